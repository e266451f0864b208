// repo_map's central files through the official SDK client over stdio, and the export behind
// them (`fileRanks`): on a generated repository where one module is imported by many others,
// that module comes first with its definitions, folders carry the roles of their files, the
// token budget holds at every size, and bad arguments give the documented errors.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { Client } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'

import { ContextEngine, fileRanks } from '../lib/index.js'
import { BIN, errorText, ok, resultTokens, text, write } from './support/mcp'
import { tempDir } from './support/files'

const USERS = 40


let repo: string
let cacheHome: string
let client: Client

before(async () => {
  repo = tempDir('ce-map-')
  cacheHome = tempDir('ce-map-cache-')
  // The module everything uses sits deep in a small folder, under a name no query would favour.
  write(
    repo,
    'lib/zz/kernel.ts',
    'export interface KernelConfig {\n  depth: number\n}\n\nexport function bootKernel(config: KernelConfig): number {\n  return config.depth\n}\n\nexport class KernelRegistry {\n  entries: string[] = []\n}\n',
  )
  // A second module a few files use, and a big one nobody uses.
  write(repo, 'lib/aa/format.ts', 'export function formatLine(s: string): string {\n  return s.trim()\n}\n')
  const lonely: string[] = []
  for (let i = 0; i < 200; i++) lonely.push(`export function unusedHelper${i}(x: number): number {\n  return x + ${i}\n}\n`)
  write(repo, 'lib/aa/lonely.ts', lonely.join('\n'))
  for (let i = 0; i < USERS; i++) {
    const uses = i % 10 === 0 ? 'formatLine(String(bootKernel(c)))' : 'bootKernel(c)'
    write(
      repo,
      `app/feature${i}/handler${i}.ts`,
      `import { bootKernel, KernelConfig } from '../../lib/zz/kernel'\nimport { formatLine } from '../../lib/aa/format'\n\nexport function handler${i}(c: KernelConfig): unknown {\n  return ${uses}\n}\n`,
    )
  }
  for (let i = 0; i < 5; i++) write(repo, `tests/handler${i}.test.ts`, `import { handler${i} } from '../app/feature${i}/handler${i}'\ntest('h', () => handler${i}({ depth: 1 }))\n`)
  write(repo, 'docs/guide.md', '# Guide\n\nStart with the kernel.\n')
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !['GITEA_URL', 'GITEA_TOKEN', 'HOUND_URL', 'GITHUB_TOKEN', 'GH_TOKEN', 'CONTEXT_ENGINE_INDEX_CACHE_DIR'].includes(k)) out[k] = v
  }
  out.XDG_CACHE_HOME = cacheHome
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--root', repo], env: out, stderr: 'pipe' })
  client = new Client({ name: 'map-spec', version: '1.0.0' })
  await client.connect(transport)
})

after(async () => {
  await client?.close()
  rmSync(repo, { recursive: true, force: true })
  rmSync(cacheHome, { recursive: true, force: true })
})

test('fileRanks: the file the others import first, with roles, folders, limit and path', async () => {
  const r = await fileRanks(repo, { limit: 5 })
  assert.equal(r.total, USERS + 9)
  assert.equal(r.files.length, 5)
  assert.deepEqual(r.files.slice(0, 2).map((f) => f.path), ['lib/zz/kernel.ts', 'lib/aa/format.ts'])
  assert.equal(r.files[0].role, 'source')
  assert.equal(r.files[0].language, 'typescript')
  assert.ok(r.files[0].centrality > r.files[1].centrality && r.files[1].centrality > 0)
  const all = await fileRanks(repo, { limit: 5000 })
  assert.equal(all.files.length, USERS + 9)
  assert.equal(all.files.find((f) => f.path === 'lib/aa/lonely.ts')?.centrality, 0)
  for (let i = 1; i < all.files.length; i++) {
    const [a, b] = [all.files[i - 1], all.files[i]]
    assert.ok(a.centrality > b.centrality || (a.centrality === b.centrality && a.path < b.path), `${a.path} before ${b.path}`)
  }
  assert.deepEqual(await fileRanks(repo, { limit: 5000 }), all, 'the same answer every call')
  const folder = (p: string) => all.folders.find((f) => f.path === p)
  assert.deepEqual(folder('app'), { path: 'app', files: USERS, role: 'source' })
  assert.deepEqual(folder('tests'), { path: 'tests', files: 5, role: 'test' })
  assert.equal(folder('docs')?.role, 'docs')
  assert.equal(folder('lib/zz')?.files, 1)
  const lib = await new ContextEngine().fileRanks(repo, { path: 'lib' })
  assert.deepEqual(lib.files.map((f) => f.path), ['lib/zz/kernel.ts', 'lib/aa/format.ts', 'lib/aa/lonely.ts'])
  assert.deepEqual(lib.folders.map((f) => f.path), ['lib/aa', 'lib/zz'])
})

test('fileRanks: bad arguments reject with invalid_request', async () => {
  const bad: Array<[unknown, unknown, RegExp]> = [
    ['relative/root', undefined, /rootPath/],
    ['', undefined, /rootPath/],
    [42, undefined, /rootPath/],
    [join(repo, 'no-such-dir'), undefined, /./],
    [repo, { limit: 0 }, /limit/],
    [repo, { limit: 5001 }, /limit/],
    [repo, { limit: 1.5 }, /limit/],
    [repo, { limit: 'ten' }, /limit/],
    [repo, { path: '../outside' }, /path/],
    [repo, { path: '/etc' }, /path/],
    [repo, { path: 'lib/../..' }, /path/],
    [repo, { path: 7 }, /path/],
    [repo, 'options', /options/],
  ]
  for (const [root, options, message] of bad) {
    await assert.rejects(
      (fileRanks as (r: unknown, o?: unknown) => Promise<unknown>)(root, options),
      (e: Error & { code?: string }) => e.code === 'invalid_request' && message.test(e.message) && !e.message.includes(tmpdir()),
      `${JSON.stringify(root)} ${JSON.stringify(options)}`,
    )
  }
  const confined = new ContextEngine({ allowedRoots: [join(repo, 'lib')] })
  await assert.rejects(confined.fileRanks(repo), (e: Error & { code?: string }) => e.code === 'invalid_request' && /allowedRoots/.test(e.message))
  const aborted = AbortSignal.abort()
  await assert.rejects(fileRanks(repo, { signal: aborted }), (e: Error) => e.name === 'AbortError')
})

test('repo_map: the most imported file first with its definitions, folders with their roles', async () => {
  const r = await client.callTool({ name: 'repo_map', arguments: {} })
  const out = ok(r)
  assert.equal(out.central[0], 'lib/zz/kernel.ts')
  assert.equal(out.central[1], 'lib/aa/format.ts')
  assert.ok(!out.central.includes('lib/aa/lonely.ts'), 'a file nobody uses is not central')
  const t = text(r)
  assert.match(t, /\ncentral files [^\n]*\n {2}lib\/zz\/kernel\.ts {2}0\.\d\d — interface KernelConfig:1, function bootKernel:5, class KernelRegistry:9\n {2}lib\/aa\/format\.ts /)
  assert.match(t, /\n {2}app\/ {2}40 files, mostly typescript \(source\)\n/)
  assert.match(t, /\n {2}tests\/ {2}5 files, mostly typescript \(test\)\n/)
  assert.match(t, /\n {2}docs\/ {2}1 file \(docs\)\n/)
  // A folder: its own central files.
  const lib = await client.callTool({ name: 'repo_map', arguments: { path: 'lib' } })
  assert.deepEqual(ok(lib).central, ['lib/zz/kernel.ts', 'lib/aa/format.ts'])
  assert.match(text(lib), /^lib: 3 files/)
})

test('repo_map: the token budget holds, and what was left out is said', async () => {
  for (const maxTokens of [400, 700, 1000, 2000, 4000]) {
    const r = await client.callTool({ name: 'repo_map', arguments: { maxTokens } })
    const out = ok(r)
    assert.ok((await resultTokens(r)) <= maxTokens, `maxTokens ${maxTokens}`)
    // kernel, format, and the five handlers the tests import.
    if (out.central.length < 7) {
      assert.equal(out.truncated, true, `maxTokens ${maxTokens}`)
      assert.match(text(r), /more central files? left out at the token budget: call repo_map with path set to a folder for its own central files, or raise maxTokens \(at most 25000\)\]/)
    }
  }
  const small = ok(await client.callTool({ name: 'repo_map', arguments: { maxTokens: 400 } }))
  const big = ok(await client.callTool({ name: 'repo_map', arguments: { maxTokens: 4000 } }))
  assert.ok(small.central.length < big.central.length, `${small.central.length} < ${big.central.length}`)
  assert.deepEqual(big.central.slice(0, small.central.length), small.central, 'a smaller budget shows a prefix')
})

test('repo_map: bad arguments give the documented errors', async () => {
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ path: '../' }, /^invalid_request: /],
    [{ path: '/etc' }, /^invalid_request: /],
    [{ path: 'lib/zz/kernel.ts' }, /^invalid_request: lib\/zz\/kernel\.ts is not a folder of the root/],
    [{ maxTokens: 10 }, /^invalid_request: /],
    [{ maxTokens: 100_000 }, /^invalid_request: /],
    [{ maxFiles: 0 }, /^invalid_request: /],
    [{ depth: 2 }, /^invalid_request: /],
  ]
  for (const [args, pattern] of cases) assert.match(errorText(await client.callTool({ name: 'repo_map', arguments: args })), pattern, JSON.stringify(args))
})
