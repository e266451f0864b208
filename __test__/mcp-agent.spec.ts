// The MCP server as an agent host uses it, through the official SDK client over stdio: results
// bounded by tokens under default arguments (a large generated file, a very long line, a large
// tree), paging that continues exactly where a result stopped, the symbol and map tools, the
// index cache shared by two server processes, and errors that say what to do next.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

import { Client } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'

import { countTokens, languages } from '../lib/index.js'
import { BIN, errorText, ok, resultTokens, serverEnv as env, text, write } from './support/mcp'

/** What Claude Code accepts of one tool result, about. */
const HOST_CAP = 25_000


const dirs: string[] = []
function tempDir(prefix: string): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), prefix)))
  dirs.push(d)
  return d
}

interface Session {
  client: Client
  stderr: () => string
}

async function connect(root: string, cacheHome: string, extra: string[] = []): Promise<Session> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--root', root, ...extra], env: env(cacheHome), stderr: 'pipe' })
  let err = ''
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()))
  const client = new Client({ name: 'agent-spec', version: '1.0.0' })
  await client.connect(transport)
  return { client, stderr: () => err }
}

async function waitFor(cond: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((r) => setTimeout(r, 20))
  }
}

// A repository with what hurts agents: a large generated header, a line of 400k characters, a
// 1,500-line function, a large tree of small modules using one helper everywhere, and a few
// named definitions to find.
let repo: string
let cacheHome: string
let s: Session
const HEADER_LINES = 40_000
const MODULES = 1500

before(async () => {
  repo = tempDir('ce-agent-')
  cacheHome = tempDir('ce-agent-cache-')
  const header: string[] = ['/* Register masks of the display engine. */']
  for (let i = 0; i < HEADER_LINES; i++) header.push(`#define DCN_REG_${i}_FIELD_${i % 97}_MASK 0x${(i * 2654435761 % 4294967296).toString(16).padStart(8, '0')}L`)
  write(repo, 'include/asic_reg/dcn_sh_mask.h', `${header.join('\n')}\n`)
  write(repo, 'web/bundle.min.js', `${'var a=1,b=function(c){return c*2};'.repeat(12_000)}\n`)
  const body: string[] = ['export function hugeDispatch(op: number): number {', '  let acc = 0']
  for (let i = 0; i < 1500; i++) body.push(`  if (op === ${i}) acc += applyStep(${i}, op * ${i % 13})`)
  body.push('  return acc', '}', '')
  write(repo, 'src/dispatch.ts', body.join('\n'))
  write(repo, 'src/steps.ts', 'export function applyStep(step: number, value: number): number {\n  return step + value\n}\n')
  write(
    repo,
    'src/skiplist.c',
    [
      '#include "server.h"',
      '',
      '/* Insert a new node in the skiplist. */',
      'zskiplistNode *zslInsert(zskiplist *zsl, double score, sds ele) {',
      '    zskiplistNode *update[ZSKIPLIST_MAXLEVEL], *x;',
      '    x = zsl->header;',
      '    return x;',
      '}',
      '',
      'void zslDelete(zskiplist *zsl, double score) {',
      '    zslInsert(zsl, score, NULL);',
      '}',
      '',
    ].join('\n'),
  )
  write(repo, 'src/server.cc', 'int serverMain(int argc, char **argv) {\n  return 0\n}\n')
  write(repo, 'src/server.h', 'int serverMain(int argc, char **argv);\n')
  write(repo, 'tests/test_steps.py', 'def test_apply_step():\n    assert True\n')
  write(repo, 'docs/guide.md', '# Guide\n\nHow to dispatch.\n')
  for (let i = 0; i < MODULES; i++) {
    write(repo, `pkg/mod${i % 30}/handler${i}.ts`, `import { applyStep } from '../../src/steps'\n\nexport function handler${i}(input: number): number {\n  return applyStep(${i}, input)\n}\n`)
  }
  s = await connect(repo, cacheHome)
})

after(async () => {
  await s?.client.close()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

test('no call under default arguments returns more than 25k tokens: a large generated file, a long line, a large tree', async () => {
  const calls: Array<[string, Record<string, unknown>]> = [
    ['file_context', { path: 'include/asic_reg/dcn_sh_mask.h' }],
    ['file_context', { path: 'web/bundle.min.js' }],
    ['expand_chunk', { path: 'include/asic_reg/dcn_sh_mask.h', startLine: 20_000, endLine: 20_000, contextLines: 1000 }],
    ['expand_chunk', { path: 'src/dispatch.ts', startLine: 700, endLine: 700, structure: true }],
    ['search_code', { query: 'applyStep handler input', limit: 100 }],
    ['search_code', { query: 'DCN_REG FIELD MASK register', limit: 100 }],
    ['find_references', { name: 'applyStep', limit: 500 }],
    ['find_symbol', { name: 'handler*', limit: 100 }],
    ['repo_map', {}],
  ]
  for (const [name, args] of calls) {
    const r = await s.client.callTool({ name, arguments: args })
    ok(r)
    const n = await resultTokens(r)
    assert.ok(n <= HOST_CAP, `${name} ${JSON.stringify(args)}: ${n} tokens`)
    // The default budget is 8000 tokens (the structured places included).
    assert.ok(n <= 8000 + 50, `${name} stays near its default budget: ${n}`)
  }
  // A larger budget is honoured, and capped at 25000.
  const big = await s.client.callTool({ name: 'file_context', arguments: { path: 'include/asic_reg/dcn_sh_mask.h', maxTokens: 25_000 } })
  const n = await resultTokens(big)
  assert.ok(n > 16_000 && n <= HOST_CAP, `maxTokens 25000 gives ${n}`)
  assert.match(errorText(await s.client.callTool({ name: 'file_context', arguments: { path: 'src/steps.ts', maxTokens: 25_001 } })), /maxTokens must be <= 25000/)
})

test('file_context and expand_chunk stop at the budget, say so, and the next startLine continues exactly', async () => {
  const first = await s.client.callTool({ name: 'file_context', arguments: { path: 'include/asic_reg/dcn_sh_mask.h', maxTokens: 2000 } })
  const a = ok(first)
  assert.equal(a.truncated, true)
  assert.equal(a.moreAfter, true)
  assert.equal(a.nextStartLine, a.endLine + 1)
  assert.match(text(first), new RegExp(`stopped at the token budget \\(2000\\): call file_context again with startLine ${a.nextStartLine}`))
  const second = await s.client.callTool({ name: 'file_context', arguments: { path: 'include/asic_reg/dcn_sh_mask.h', startLine: a.nextStartLine, maxTokens: 2000 } })
  const b = ok(second)
  assert.equal(b.startLine, a.endLine + 1)
  const lastOfFirst = text(first).split('\n').filter((l) => /^\s*\d+ \| /.test(l)).pop()!
  const firstOfSecond = text(second).split('\n').find((l) => /^\s*\d+ \| /.test(l))!
  assert.equal(Number(firstOfSecond.split('|')[0]), Number(lastOfFirst.split('|')[0]) + 1)
  // A very long line is cut and says how long it was.
  assert.match(text(await s.client.callTool({ name: 'file_context', arguments: { path: 'web/bundle.min.js' } })), /\[\.\.\. line cut at 1000 characters\]$/)
  // A structural expansion of a 1,500-line function is cut, and says so instead of calling it the whole function.
  const exp = await s.client.callTool({ name: 'expand_chunk', arguments: { path: 'src/dispatch.ts', startLine: 700, endLine: 700, structure: true } })
  const e = ok(exp)
  assert.equal(e.mode, 'structure')
  assert.equal(e.clipped, true)
  assert.ok(e.endLine - e.startLine + 1 <= 400)
  assert.match(text(exp), /the enclosing function is longer than 400 lines: only the lines around the snippet are shown/)
  assert.match(text(exp), /^src\/dispatch\.ts:\d+-\d+ \(function, cut to 400 lines around the snippet\)/)
})

test('search_code pages with offset and nextOffset, and the budget stops a page with the offset to continue', async () => {
  const all = ok(await s.client.callTool({ name: 'search_code', arguments: { query: 'applyStep handler input', limit: 6, maxTokens: 25_000 } }))
  assert.equal(all.results.length, 6)
  const p1 = ok(await s.client.callTool({ name: 'search_code', arguments: { query: 'applyStep handler input', limit: 3 } }))
  assert.equal(p1.nextOffset, 3)
  const p2 = ok(await s.client.callTool({ name: 'search_code', arguments: { query: 'applyStep handler input', limit: 3, offset: p1.nextOffset } }))
  assert.deepEqual([...p1.results, ...p2.results].map((r: any) => `${r.path}:${r.startLine}`), all.results.map((r: any) => `${r.path}:${r.startLine}`))
  const tight = await s.client.callTool({ name: 'search_code', arguments: { query: 'applyStep handler input', limit: 50, maxTokens: 600 } })
  const t = ok(tight)
  assert.equal(t.truncated, true)
  assert.ok(t.results.length >= 1 && t.results.length < 50)
  assert.equal(t.nextOffset, t.results.length)
  assert.match(text(tight), new RegExp(`stopped at the token budget \\(600\\): call search_code again with offset ${t.nextOffset}`))
})

test('find_symbol: exact names, wildcards, kind and language, with the code of the definition', async () => {
  const r = await s.client.callTool({ name: 'find_symbol', arguments: { name: 'zslInsert' } })
  const out = ok(r)
  assert.equal(out.scope, 'repository')
  assert.deepEqual(out.results.map((m: any) => [m.name, m.kind, m.path, m.line]), [['zslInsert', 'function', 'src/skiplist.c', 4]])
  assert.equal(out.results[0].codeShown, true)
  assert.match(text(r), /^function zslInsert {2}src\/skiplist\.c:4-8\n4 \| zskiplistNode \*zslInsert\(zskiplist \*zsl, double score, sds ele\) \{\n5 \| /)
  const wild = ok(await s.client.callTool({ name: 'find_symbol', arguments: { name: 'zsl*', kind: 'function' } }))
  assert.deepEqual(wild.results.map((m: any) => m.name).sort(), ['zslDelete', 'zslInsert'])
  const ts = ok(await s.client.callTool({ name: 'find_symbol', arguments: { name: 'handler1?', language: 'typescript', includeCode: false } }))
  assert.equal(ts.results.length, 10)
  assert.equal(ts.totalMatches, 10)
  assert.ok(ts.results.every((m: any) => m.language === 'typescript' && !m.codeShown))
  const none = await s.client.callTool({ name: 'find_symbol', arguments: { name: 'noSuchSymbolAnywhere' } })
  assert.match(text(none), /^No symbol named "noSuchSymbolAnywhere"\. Try a wildcard \(\*noSuchSymbolAnywhere\*\) or search_code\./)
})

test('find_references: every use, definitions marked, paged by offset', async () => {
  const r = await s.client.callTool({ name: 'find_references', arguments: { name: 'zslInsert' } })
  const out = ok(r)
  assert.deepEqual(out.references, [
    { path: 'src/skiplist.c', line: 4, definition: true },
    { path: 'src/skiplist.c', line: 11 },
  ])
  assert.match(text(r), /^src\/skiplist\.c:4: \[definition\] zskiplistNode \*zslInsert\(/)
  // A name used in hundreds of files: the first page, then the next from nextOffset.
  const p1 = ok(await s.client.callTool({ name: 'find_references', arguments: { name: 'applyStep', limit: 20 } }))
  assert.equal(p1.references.length, 20)
  assert.equal(p1.nextOffset, 20)
  const p2 = ok(await s.client.callTool({ name: 'find_references', arguments: { name: 'applyStep', limit: 20, offset: 20 } }))
  const key = (x: any) => `${x.path}:${x.line}`
  assert.equal(new Set([...p1.references, ...p2.references].map(key)).size, 40, 'the pages do not overlap')
  // Whole words only: `applyStepX` would not count, and neither does a substring.
  assert.deepEqual(ok(await s.client.callTool({ name: 'find_references', arguments: { name: 'applySte' } })).references, [])
})

test('repo_map: languages, folders with roles, and a folder\'s files with their definitions, within the budget', async () => {
  const r = await s.client.callTool({ name: 'repo_map', arguments: {} })
  const out = ok(r)
  assert.equal(out.path, '.')
  assert.ok(out.files >= MODULES)
  assert.ok(out.languages.typescript >= MODULES)
  const t = text(r)
  assert.match(t, /^repository: \d+ files, \d+ lines\nlanguages: typescript /)
  assert.match(t, /\n {2}pkg\/ {2}1500 files, mostly typescript \(source\)\n/)
  assert.match(t, /\n {2}tests\/ {2}1 file, mostly python \(test\)\n/)
  assert.match(t, /\n {2}docs\/ {2}1 file \(docs\)\n/)
  // The helper all 1500 modules import is the most central file.
  assert.equal(out.central[0], 'src/steps.ts')
  assert.match(t, /\ncentral files [^\n]*\n {2}src\/steps\.ts {2}0\.\d\d — function applyStep:1\n/)
  const src = await s.client.callTool({ name: 'repo_map', arguments: { path: 'src', maxTokens: 1000 } })
  assert.match(text(src), /^src: 5 files/)
  assert.match(text(src), /skiplist\.c — function zslInsert:4, function zslDelete:10/)
  assert.ok((await resultTokens(src)) <= 1000)
  assert.match(errorText(await s.client.callTool({ name: 'repo_map', arguments: { path: 'src/steps.ts' } })), /src\/steps\.ts is not a folder of the root/)
})

test('errors say what to do next', async () => {
  const call = async (name: string, args: Record<string, unknown>) => errorText(await s.client.callTool({ name, arguments: args }))
  // The file's length.
  assert.equal(await call('file_context', { path: 'src/steps.ts', startLine: 50 }), 'invalid_request: line 50 is outside the file: src/steps.ts has 3 lines')
  assert.equal(await call('expand_chunk', { path: 'src/steps.ts', startLine: 40, endLine: 41 }), 'invalid_request: lines 40-41 are outside the file: src/steps.ts has 3 lines')
  // The closest existing paths.
  assert.match(await call('file_context', { path: 'src/server.c' }), /^invalid_request: file not found: src\/server\.c; the closest existing paths: src\/server\.cc, src\/server\.h/)
  // A directory, with its entries and the tool that lists it.
  assert.equal(
    await call('file_context', { path: 'src' }),
    "invalid_request: src is a directory, not a file; its entries: dispatch.ts, server.cc, server.h, skiplist.c, steps.ts. Read one of its files, or call repo_map with path 'src' for an overview.",
  )
  // The size limit, and what to use instead.
  write(repo, 'data/huge.txt', 'x'.repeat(9 * 1024 * 1024))
  assert.equal(await call('file_context', { path: 'data/huge.txt' }), 'invalid_request: file is too large to read (the limit is 8 MiB): use search_code or find_symbol to find the part you need')
  // A review needs a git repository.
  assert.match(await call('build_context', { kind: 'review' }), /^invalid_request: root is not a git repository/)
  // Unknown tools list the tools.
  assert.match(await call('read_file', {}), /^invalid_request: unknown tool; the tools are: search_code, find_symbol, find_references, repo_map, file_context, expand_chunk, /)
})

test('descriptions name every language of the registry', async () => {
  const { tools } = await s.client.listTools()
  const registry = languages()
  const names = registry.map((l) => l.name)
  assert.ok(names.length >= 20)
  const lang = (n: string) => registry.find((l) => l.name === n)!
  assert.ok(lang('rust').extensions.includes('rs'))
  assert.ok(lang('cpp').extensions.includes('cc') && lang('cpp').aliases.includes('c++'))
  assert.ok(lang('ruby').fileNames.includes('Rakefile'))
  assert.deepEqual(languages(), registry, 'deterministic')
  for (const tool of ['expand_chunk', 'find_symbol']) {
    const d = tools.find((t) => t.name === tool)!.description!
    for (const n of names) assert.ok(d.includes(n), `${tool} names ${n}`)
  }
})

test('the index outlives the session: a second server process loads it from the cache folder', async () => {
  const root = tempDir('ce-agent-cache-root-')
  const home = tempDir('ce-agent-cache-home-')
  for (let i = 0; i < 300; i++) write(root, `lib/part${i}.py`, `def part_${i}(x):\n    return x + ${i}\n`)
  write(root, 'lib/needle.py', 'def find_the_needle():\n    return 42\n')
  const readNow = (log: string) => Number(/ready in \d+ ms: \d+ files, (\d+) read now/.exec(log)?.[1])

  const one = await connect(root, home)
  try {
    await waitFor(() => /ready in/.test(one.stderr()))
    assert.ok(readNow(one.stderr()) >= 301, one.stderr())
    assert.equal(ok(await one.client.callTool({ name: 'search_code', arguments: { query: 'find_the_needle' } })).results[0].path, 'lib/needle.py')
  } finally {
    await one.client.close()
  }
  const cacheFolder = join(home, 'context-engine')
  assert.ok(readdirSync(cacheFolder).length >= 1, 'the index is saved in $XDG_CACHE_HOME/context-engine')

  // A second process reads nothing again: no file changed.
  const two = await connect(root, home)
  try {
    await waitFor(() => /ready in/.test(two.stderr()))
    assert.equal(readNow(two.stderr()), 0, two.stderr())
    assert.equal(ok(await two.client.callTool({ name: 'search_code', arguments: { query: 'find_the_needle' } })).results[0].path, 'lib/needle.py')
  } finally {
    await two.client.close()
  }
  // --no-cache reads everything; --cache-dir chooses the folder.
  const other = tempDir('ce-agent-cache-dir-')
  const three = await connect(root, home, ['--no-cache'])
  const four = await connect(root, home, ['--cache-dir', other])
  try {
    await waitFor(() => /ready in/.test(three.stderr()) && /ready in/.test(four.stderr()))
    assert.ok(readNow(three.stderr()) >= 301)
    assert.ok(readNow(four.stderr()) >= 301)
  } finally {
    await Promise.all([three.client.close(), four.client.close()])
  }
  assert.ok(readdirSync(other).length >= 1)
})

test('the CLI: index prepares the cache, query then reads nothing again; --no-cache and --cache-dir', () => {
  const root = tempDir('ce-cli-root-')
  const home = tempDir('ce-cli-home-')
  for (let i = 0; i < 50; i++) write(root, `src/m${i}.go`, `package src\n\nfunc Handle${i}() int { return ${i} }\n`)
  const run = (...args: string[]) => execFileSync(process.execPath, [BIN, ...args], { env: env(home), encoding: 'utf8' })
  const first = JSON.parse(run('index', '--root', root, '--json'))
  assert.equal(first.files, 50)
  assert.equal(first.filesRead, 50)
  assert.equal(first.cacheDir, join(home, 'context-engine'))
  assert.equal(JSON.parse(run('index', '--root', root, '--json')).filesRead, 0)
  assert.match(run('query', 'Handle7', '--root', root), /── src\/m7\.go:/)
  // Several --root: one ranking, each snippet headed by its root.
  const other = tempDir('ce-cli-other-')
  write(other, 'lib/handle7_test.go', 'package lib\n\nfunc TestHandle7() { Handle7() }\n')
  const both = run('query', 'Handle7', '--root', root, '--root', other, '--no-cache')
  assert.match(both, new RegExp(`── ${root}: src/m7\\.go:`))
  assert.match(both, new RegExp(`── ${other}: lib/handle7_test\\.go:`))
  const json = JSON.parse(run('query', 'Handle7', '--root', root, '--root', other, '--json', '--no-cache'))
  assert.deepEqual([...new Set(json.map((s: { root: string }) => s.root))].sort(), [root, other].sort())
  assert.throws(() => run('index', '--root', root, '--root', other), /index takes one --root DIR/)
  assert.equal(JSON.parse(run('index', '--root', root, '--json', '--no-cache')).cacheDir, null)
  assert.throws(() => run('index', '--root', root, '--no-cache', '--cache-dir', home), /exclude each other/)
})
