// Retrieval at the N-API boundary: Context Retrieval Contract v1 (request, response, errors,
// behaviour, scope) and its six acceptance tests (see docs/design/context-retrieval-contract-v1.md,
// sections 3 to 5 and 7), over real temporary repositories (real files, real `git`).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync, rmSync, symlinkSync, readdirSync, statSync } from 'node:fs'
import { join, dirname } from 'node:path'

import {
  ContextEngine,
  retrieve,
  indexStatus,
  prepareIndex,
  type ContextRetrievalRequest,
  type ContextSnippet,
} from '../lib/index.js'
import { permissionsEnforced } from './support/permissions'
import { backdate, tempDir } from './support/files'

const CODES = new Set(['invalid_request', 'unauthorized', 'unavailable', 'timeout', 'internal'])

function write(root: string, rel: string, text: string): void {
  const p = join(root, rel)
  mkdirSync(dirname(p), { recursive: true })
  writeFileSync(p, text)
}

function repo(): string {
  const root = tempDir('ce-retrieve-')
  write(
    root,
    'src/router.ts',
    [
      '/** Routes requests to handlers. */',
      'export class Router {',
      '  add(method: string, path: string, handler: Handler): void {',
      '    this.routes.push({ method, path, handler })',
      '  }',
      '',
      '  match(method: string, path: string): Handler | undefined {',
      '    return this.routes.find((r) => r.method === method && r.path === path)?.handler',
      '  }',
      '}',
      '',
    ].join('\n'),
  )
  write(
    root,
    'src/cookie.ts',
    [
      'export function parseCookie(header: string): Record<string, string> {',
      '  const out: Record<string, string> = {}',
      "  for (const part of header.split(';')) {",
      "    const [k, v] = part.split('=')",
      "    out[k.trim()] = decodeURIComponent(v ?? '')",
      '  }',
      '  return out',
      '}',
      '',
    ].join('\n'),
  )
  write(root, 'src/utils/url.ts', 'export const getPath = (request: Request): string => {\n  return new URL(request.url).pathname\n}\n')
  write(root, 'README.md', '# Demo\n\nA tiny web framework with a router and cookie helpers.\n')
  execFileSync('git', ['init', '-q'], { cwd: root })
  execFileSync('git', ['add', '.'], { cwd: root })
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'init'], { cwd: root })
  return root
}

function req(rootPath: string, prompt: string, extra: Partial<ContextRetrievalRequest> = {}): ContextRetrievalRequest {
  return { prompt, spaceId: 'space-1', sessionId: 'session-1', rootPath, providerId: 'mcp', ...extra }
}

async function rejectsWith(p: Promise<unknown>, code: string, forbidden: string[] = []): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof Error)
    const e = err as Error & { code?: string }
    assert.equal(e.code, code, e.message)
    assert.ok(CODES.has(e.code!))
    for (const f of forbidden) assert.ok(!e.message.includes(f), `message leaks ${f}: ${e.message}`)
    return true
  })
}

// Acceptance test 1: valid request returns ranked ContextSnippet[] with required fields.
test('a valid request returns ranked snippets with every contract field', async () => {
  const root = repo()
  const out = await retrieve(req(root, 'cookie header parsing is broken'))
  assert.ok(out.length >= 1)
  assert.equal(out[0].path, 'src/cookie.ts')
  for (const s of out) {
    assert.equal(typeof s.id, 'string')
    assert.ok(s.id.length > 0)
    assert.equal(s.provider, 'mcp')
    assert.equal(typeof s.path, 'string')
    assert.ok(!s.path.startsWith('/'), 'paths are relative to the root')
    assert.equal(typeof s.source, 'string')
    assert.equal(typeof s.content, 'string')
    assert.ok(Number.isFinite(s.score) && s.score > 0)
    assert.ok(s.startLine! >= 1 && s.endLine! >= s.startLine!)
  }
  for (let i = 1; i < out.length; i++) assert.ok(out[i - 1].score >= out[i].score, 'sorted by descending score')
  assert.ok(out[0].content.includes('parseCookie'))
  assert.equal(out[0].language, 'typescript')
  assert.equal(out[0].source, `src/cookie.ts:${out[0].startLine}-${out[0].endLine}`)
})

test('provider echoes providerId, and both providers are served', async () => {
  const root = repo()
  const fs = await retrieve(req(root, 'router match', { providerId: 'filesystem' }))
  const mcp = await retrieve(req(root, 'router match', { providerId: 'mcp' }))
  assert.ok(fs.length > 0)
  assert.ok(fs.every((s) => s.provider === 'filesystem'))
  assert.ok(mcp.every((s) => s.provider === 'mcp'))
  assert.deepEqual(
    fs.map((s) => [s.id, s.path, s.score]),
    mcp.map((s) => [s.id, s.path, s.score]),
  )
})

// Acceptance test 2: empty corpus/query returns [].
test('an empty corpus, an empty query and a query with no match return []', async () => {
  const root = repo()
  assert.deepEqual(await retrieve(req(root, '')), [])
  assert.deepEqual(await retrieve(req(root, '   ?! ')), [])
  assert.deepEqual(await retrieve(req(root, 'xylophone zebra quasar')), [])
  const empty = tempDir('ce-empty-')
  assert.deepEqual(await retrieve(req(empty, 'router')), [])
})

// Acceptance test 3: `limit` is honoured, with a default and a cap.
test('limit is honoured, defaults to 20 and is capped to 100', async () => {
  const root = repo()
  for (let i = 0; i < 130; i++) write(root, `src/gen/widget${i}.ts`, `export const widget${i} = () => 'widget ${i}'\n`)
  assert.equal((await retrieve(req(root, 'widget', { limit: 1 }))).length, 1)
  assert.equal((await retrieve(req(root, 'widget', { limit: 7 }))).length, 7)
  assert.equal((await retrieve(req(root, 'widget'))).length, 20)
  assert.equal((await retrieve(req(root, 'widget', { limit: 100000 }))).length, 100)
})

// Acceptance test 4: out-of-scope path request is rejected safely.
test('out-of-scope roots are rejected with invalid_request and a safe message', async () => {
  const root = repo()
  await rejectsWith(retrieve(req('../../etc', 'x')), 'invalid_request')
  await rejectsWith(retrieve(req('relative/dir', 'x')), 'invalid_request')
  await rejectsWith(retrieve(req('/no/such/dir/secret-name-42', 'x')), 'invalid_request', ['secret-name-42'])
  await rejectsWith(retrieve(req(join(root, 'README.md'), 'x')), 'invalid_request')
  await rejectsWith(retrieve(req('', 'x')), 'invalid_request')
  await rejectsWith(retrieve(req('/tmp/\0evil', 'x')), 'invalid_request')
})

test('symlinks leading outside the root are never read', async () => {
  const outside = tempDir('ce-outside-')
  write(outside, 'secret.ts', "export const canaryOutsideValue = 'do not leak'\n")
  const root = repo()
  symlinkSync(join(outside, 'secret.ts'), join(root, 'src/link.ts'))
  symlinkSync(outside, join(root, 'src/linked-dir'))
  symlinkSync('../../..', join(root, 'src/up'))
  symlinkSync(join(root, 'src/loop'), join(root, 'src/loop'))
  const out = await retrieve(req(root, 'canaryOutsideValue do not leak secret'))
  assert.ok(out.every((s) => !s.content.includes('canaryOutsideValue')), JSON.stringify(out))
  assert.ok(out.every((s) => !s.path.includes('..') && !s.path.startsWith('/')))
})

test('a root given through .. components or a symlink is the same root', async () => {
  const root = repo()
  const viaDots = `${root}/src/..`
  const links = tempDir('ce-retrieve-link-')
  const viaLink = join(links, 'root-link')
  symlinkSync(root, viaLink, 'dir')
  const a = await retrieve(req(root, 'router'))
  assert.ok(a.length > 0)
  // The same snippets; each one's `root` echoes the spelling the request gave.
  const asGiven = (given: string) => a.map((s) => ({ ...s, root: given }))
  assert.deepEqual(await retrieve(req(viaDots, 'router')), asGiven(viaDots))
  assert.deepEqual(await retrieve(req(viaLink, 'router')), asGiven(viaLink))
  const engine = new ContextEngine()
  await engine.prepareIndex(viaLink)
  assert.equal(engine.indexStatus(root).state, 'ready', 'the symlinked root and its target share one index')
  rmSync(links, { recursive: true, force: true })
})

// Acceptance test 5: error categories map to contract values.
test('malformed requests reject with invalid_request, never throw synchronously', async () => {
  const root = repo()
  const bad: unknown[] = [
    undefined,
    null,
    42,
    'a string',
    [],
    { ...req(root, 'x'), prompt: undefined },
    { ...req(root, 'x'), prompt: 42 },
    { ...req(root, 'x'), spaceId: undefined },
    { ...req(root, 'x'), spaceId: '' },
    { ...req(root, 'x'), sessionId: null },
    { ...req(root, 'x'), sessionId: 7 },
    { ...req(root, 'x'), rootPath: undefined },
    { ...req(root, 'x'), rootPath: {} },
    { ...req(root, 'x'), providerId: 'other' },
    { ...req(root, 'x'), providerId: undefined },
    { ...req(root, 'x'), limit: 0 },
    { ...req(root, 'x'), limit: -1 },
    { ...req(root, 'x'), limit: 1.5 },
    { ...req(root, 'x'), limit: Number.NaN },
    { ...req(root, 'x'), limit: Infinity },
    { ...req(root, 'x'), limit: '10' },
    { ...req(root, 'x'), prompt: 'x'.repeat(300 * 1024) },
    { ...req(root, 'x'), spaceId: 's'.repeat(5000) },
  ]
  for (const r of bad) {
    let promise: Promise<unknown> | undefined
    assert.doesNotThrow(() => {
      promise = retrieve(r as ContextRetrievalRequest)
    })
    await rejectsWith(promise!, 'invalid_request')
  }
})

test('error messages never echo a secret-looking argument', async () => {
  const token = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789'
  await rejectsWith(retrieve(req(`/nope/${token}`, 'x')), 'invalid_request', [token])
  await rejectsWith(retrieve({ ...req('/tmp', 'x'), providerId: token as never }), 'invalid_request', [token])
})

// Acceptance test 6: ordering is deterministic for identical inputs.
test('identical requests give identical responses, across engines too', async () => {
  const root = repo()
  const r = req(root, 'match a route path to its handler')
  const a = await retrieve(r)
  const b = await retrieve(r)
  const c = await new ContextEngine().retrieve(r)
  assert.deepEqual(b, a)
  assert.deepEqual(c, a)
  assert.ok(a.length >= 2)
})

test('ids are stable for the same range and content and change with content', async () => {
  const root = repo()
  const first = await retrieve(req(root, 'parseCookie'))
  const again = await retrieve(req(root, 'parseCookie'))
  assert.equal(first[0].id, again[0].id)
  write(root, 'src/cookie.ts', "export function parseCookie(header: string) {\n  return header.split(';').length\n}\n")
  const changed = await retrieve(req(root, 'parseCookie'))
  assert.notEqual(changed[0].id, first[0].id)
  assert.ok(changed[0].content.includes('.length'))
})

test('snippet content is bounded in lines and characters', async () => {
  const root = repo()
  const lines = Array.from({ length: 400 }, (_, i) => `  total += lookupValue(${i}) // accumulate`)
  write(root, 'src/big.ts', `export function accumulateAll() {\n${lines.join('\n')}\n}\n`)
  write(root, 'src/wide.ts', `export const wideLine = '${'w'.repeat(1900)}'\n`.repeat(5))
  const out = await retrieve(req(root, 'accumulate lookupValue wideLine', { limit: 50 }))
  assert.ok(out.length > 0)
  for (const s of out) {
    assert.ok(s.content.split('\n').length <= 60, `${s.path} has ${s.content.split('\n').length} lines`)
    assert.ok(s.content.length <= 4000)
  }
})

test('changed, added and deleted files are reflected on the next call', async () => {
  const root = repo()
  assert.deepEqual(await retrieve(req(root, 'frobnicateWidget')), [])
  write(root, 'src/new.ts', 'export function frobnicateWidget() { return 1 }\n')
  assert.equal((await retrieve(req(root, 'frobnicateWidget')))[0]?.path, 'src/new.ts')
  write(root, 'src/new.ts', 'export function defrobnicateWidget() { return 2 }\n')
  const changed = await retrieve(req(root, 'defrobnicateWidget'))
  assert.ok(changed[0].content.includes('defrobnicateWidget'))
  rmSync(join(root, 'src/new.ts'))
  assert.deepEqual(await retrieve(req(root, 'defrobnicateWidget')), [])
})

test('50 parallel calls on one root share one index and agree', async () => {
  const root = repo()
  const engine = new ContextEngine()
  const r = req(root, 'router handler cookie')
  const all = await Promise.all(Array.from({ length: 50 }, () => engine.retrieve(r)))
  for (const out of all) assert.deepEqual(out, all[0])
  assert.ok(all[0].length > 0)
  const status = engine.indexStatus(root)
  assert.equal(status.state, 'ready')
  assert.equal(status.files, 4)
})

test('unreadable and odd files are skipped without failing the request', async () => {
  const root = repo()
  write(root, 'src/binary.ts', 'router\0\0\0binary')
  writeFileSync(join(root, 'src/latin1.ts'), Buffer.from('export const routerCaf\xe9 = 1\r\n', 'latin1'))
  write(root, 'src/locked.ts', 'export const routerLocked = 1\n')
  execFileSync('chmod', ['000', join(root, 'src/locked.ts')])
  try {
    execFileSync('mkfifo', [join(root, 'src/pipe.ts')])
  } catch {
    // mkfifo may be missing; the other oddities still run
  }
  const out = await retrieve(req(root, 'router routerCaf routerLocked', { limit: 50 }))
  assert.ok(out.length > 0)
  assert.ok(out.every((s) => s.path !== 'src/binary.ts'))
  assert.ok(out.every((s) => s.path !== 'src/pipe.ts'), 'a FIFO is never read')
  const latin = out.find((s) => s.path === 'src/latin1.ts')
  assert.ok(latin && !latin.content.includes('\r'))
  // The locked file is skipped when the OS refuses to read it. A process that may bypass file
  // permissions reads through mode 000 (only when the run says so knowingly), and then the file
  // is retrieved like any other.
  const locked = out.find((s) => s.path === 'src/locked.ts')
  if (permissionsEnforced(join(root, 'src/locked.ts'))) assert.equal(locked, undefined, 'an unreadable file is never retrieved')
  else assert.match(locked?.content ?? '', /routerLocked/)
})

test('engines keep their own indexes; status, prepare and evict', async () => {
  const root = repo()
  const engine = new ContextEngine({ maxRoots: 1 })
  assert.equal(engine.indexStatus(root).state, 'absent')
  const status = await engine.prepareIndex(root)
  assert.equal(status.state, 'ready')
  assert.equal(status.files, 4)
  assert.ok(status.chunks >= 4 && status.terms > 10 && status.bytes > 0)
  assert.equal(status.mappedBytes, 0, 'without indexCacheDir the index is all on the heap')
  const other = repo()
  await engine.retrieve(req(other, 'router'))
  assert.equal(engine.indexStatus(root).state, 'absent', 'least recently used root evicted')
  assert.equal(engine.evict(other), true)
  assert.equal(engine.evict(other), false)
  assert.equal(indexStatus(root).state, 'absent', 'the default engine is separate')
  assert.equal((await prepareIndex(root)).state, 'ready')
  assert.throws(() => new ContextEngine({ maxRoots: 0 }), (e: Error & { code?: string }) => e.code === 'invalid_request')
  assert.throws(() => new ContextEngine({ maxRoots: 'x' as never }), (e: Error & { code?: string }) => e.code === 'invalid_request')
  await rejectsWith(engine.prepareIndex('relative'), 'invalid_request')
  assert.throws(() => engine.indexStatus(42 as never), (e: Error & { code?: string }) => e.code === 'invalid_request')
})

test('gitignored, vendored, lock and generated files are not retrieved', async () => {
  const root = repo()
  write(root, '.gitignore', 'secret-notes.ts\n')
  write(root, 'secret-notes.ts', 'export const quokkaMarker = 1\n')
  write(root, 'node_modules/dep/index.js', 'export const quokkaMarker = 2\n')
  write(root, 'package-lock.json', '{"quokkaMarker": 3}\n')
  write(root, 'src/gen.ts', '// Code generated by protoc. DO NOT EDIT.\nexport const quokkaMarker = 4\n')
  write(root, 'src/real.ts', 'export const quokkaMarker = 5\n')
  const out: ContextSnippet[] = await retrieve(req(root, 'quokkaMarker'))
  assert.deepEqual(
    out.map((s) => s.path),
    ['src/real.ts'],
  )
})

test('secrets in snippet content are redacted', async () => {
  const root = repo()
  const token = 'ghp_Zx81Kq3Lm9Vb2Nc7Hd4Fg6Js0Tw5Ye1Ru8Pa'
  write(root, 'src/deploy.ts', `export const deployTokenConfig = {\n  token: '${token}',\n}\n`)
  const out = await retrieve(req(root, 'deployTokenConfig'))
  assert.equal(out[0].path, 'src/deploy.ts')
  assert.ok(!out[0].content.includes(token))
  assert.ok(out[0].content.includes('[REDACTED:'))
})

test('the CLI answers queries and speaks the benchmark JSONL protocol', async () => {
  const { spawnSync } = await import('node:child_process')
  const root = repo()
  const cli = join(__dirname, '..', 'bin', 'context-engine.js')
  const q = spawnSync(process.execPath, [cli, 'query', 'parseCookie header', '--root', root, '--limit', '2', '--json'], {
    encoding: 'utf8',
  })
  assert.equal(q.status, 0, q.stderr)
  const snippets = JSON.parse(q.stdout) as ContextSnippet[]
  assert.equal(snippets.length, 2)
  assert.equal(snippets[0].path, 'src/cookie.ts')
  const input = [
    JSON.stringify({ id: 'a', root, prompt: 'router match', limit: 3 }),
    JSON.stringify({ id: 'b', root: 'relative/dir', prompt: 'x', limit: 3 }),
    'not json',
    JSON.stringify({ id: 'c', root, prompt: '', limit: 3 }),
  ].join('\n')
  const s = spawnSync(process.execPath, [cli, 'serve', '--stdio'], { input, encoding: 'utf8' })
  assert.equal(s.status, 0, s.stderr)
  const lines = s.stdout.trim().split('\n').map((l) => JSON.parse(l))
  assert.equal(lines.length, 4)
  assert.equal(lines[0].id, 'a')
  assert.equal(lines[0].results[0].path, 'src/router.ts')
  assert.ok(lines[0].results.length <= 3 && typeof lines[0].results[0].startLine === 'number')
  assert.deepEqual([lines[1].id, lines[1].error.code], ['b', 'invalid_request'])
  assert.equal(lines[2].error.code, 'invalid_request')
  assert.deepEqual(lines[3], { id: 'c', results: [] })
  const bad = spawnSync(process.execPath, [cli, 'frobnicate'], { encoding: 'utf8' })
  assert.equal(bad.status, 2)
})

/** Waits until the index file in `cache` was (re)written at or after `since` (saves run in the
 * background, off the request that changed the index; the rename that publishes a file is
 * atomic, so a file that is there is complete). */
async function saved(cache: string, since: number): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const files = readdirSync(cache).filter((n) => n.endsWith('.ceidx'))
    if (files.length > 0 && files.every((n) => statSync(join(cache, n)).mtimeMs >= since)) return
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error('the index was not saved')
}

test('indexCacheDir: a new engine over the same directory answers identically without re-reading', async () => {
  const root = repo()
  backdate(root)
  const cache = tempDir('ce-index-cache-')
  const first = new ContextEngine({ indexCacheDir: cache })
  const prompts = ['parseCookie', 'router match handler', 'getPath url']
  const t0 = Date.now() - 1000
  const before = await Promise.all(prompts.map((p) => first.retrieve(req(root, p))))
  assert.ok(before.every((r) => r.length > 0))
  await saved(cache, t0)
  assert.equal(readdirSync(cache).filter((n) => n.endsWith('.ceidx')).length, 1, 'one file per root')

  // "Restart": a new engine with the same cache directory.
  const second = new ContextEngine({ indexCacheDir: join(cache, '.', '') })
  const after = await Promise.all(prompts.map((p) => second.retrieve(req(root, p))))
  assert.deepEqual(after, before)
  const status = second.indexStatus(root)
  assert.equal(status.state, 'ready')
  assert.equal(status.filesRead, 0, 'no file re-read after the restart')
  assert.equal(status.files, 4)
  if (process.platform === 'linux') {
    // The loaded index reads its terms and postings from the mapped file, not the heap.
    assert.ok(status.mappedBytes > 0)
    const heapOnly = new ContextEngine()
    await heapOnly.prepareIndex(root)
    assert.ok(status.bytes < heapOnly.indexStatus(root).bytes)
  }

  // Changes made while "down" are seen by the next engine.
  write(root, 'src/session.ts', 'export function loadSession(token: string) {\n  return token\n}\n')
  rmSync(join(root, 'src/utils/url.ts'))
  const third = new ContextEngine({ indexCacheDir: cache })
  const t1 = Date.now()
  assert.equal((await third.retrieve(req(root, 'loadSession')))[0].path, 'src/session.ts')
  await saved(cache, t1 - 20)
  assert.equal(third.indexStatus(root).filesRead, 1, 'only the added file was read')
  assert.ok((await third.retrieve(req(root, 'getPath'))).every((s) => s.path !== 'src/utils/url.ts'))

  // A damaged cache file is rebuilt, not an error. The damaged file is a new file in its
  // place (as any writer that renames does), not the old one cut short: the engines above
  // still map the old one, and reading a mapped page past a file's new end kills the process.
  for (const n of readdirSync(cache)) {
    rmSync(join(cache, n))
    writeFileSync(join(cache, n), 'garbage')
  }
  const fourth = new ContextEngine({ indexCacheDir: cache })
  assert.deepEqual(await fourth.retrieve(req(root, 'parseCookie')), await new ContextEngine().retrieve(req(root, 'parseCookie')))
  assert.equal(fourth.indexStatus(root).filesRead, 4, 'rebuilt from the files')
  // The rebuilt index is saved in the background: let that save finish (the garbage replaced,
  // no temporary file left) before the directory goes.
  for (let i = 0; i < 500; i++) {
    const names = readdirSync(cache)
    if (names.every((n) => n.endsWith('.ceidx') && statSync(join(cache, n)).size > 'garbage'.length)) break
    await new Promise((r) => setTimeout(r, 10))
  }
  rmSync(cache, { recursive: true, force: true, maxRetries: 10 })
})

test('indexCacheDir must be an absolute path string', () => {
  const bad = ['', 'relative/dir', 42, true, {}, '/tmp/\0x', `/${'a'.repeat(5000)}`]
  for (const indexCacheDir of bad) {
    assert.throws(
      () => new ContextEngine({ indexCacheDir: indexCacheDir as never }),
      (e: Error & { code?: string }) => e.code === 'invalid_request' && !e.message.includes('aaaa'),
    )
  }
  assert.ok(new ContextEngine({ indexCacheDir: undefined }))
})

test('indexStatus says how the index stays fresh, what it skipped, and warns when ignore rules hide the root', async () => {
  const { spawnSync } = await import('node:child_process')
  const root = repo()
  write(root, 'src/blob.ts', 'router\0\0binary')
  const engine = new ContextEngine()
  const status = await engine.prepareIndex(root)
  assert.ok(status.freshness === 'watching' || status.freshness === 'polling')
  if (process.platform === 'linux') assert.equal(status.freshness, 'watching')
  assert.equal(status.skipped.binary, 1)
  assert.deepEqual(status.warnings, [])
  assert.equal(typeof status.ignoredFiles, 'number')
  assert.equal(typeof status.filesTotal, 'number')
  // Debian's kernel tarball ships a top-level .gitignore with `/*`: say so.
  const hidden = repo()
  write(hidden, '.gitignore', '/*\n!/debian/\n')
  await engine.prepareIndex(hidden)
  const s = engine.indexStatus(hidden)
  assert.equal(s.files, 0)
  assert.equal(s.warnings.length, 1)
  assert.match(s.warnings[0], /`\/\*` at \.gitignore:1/)
  const cli = join(__dirname, '..', 'bin', 'context-engine.js')
  const out = spawnSync(process.execPath, [cli, 'query', 'router', '--root', hidden], { encoding: 'utf8' })
  assert.equal(out.status, 0)
  assert.match(out.stderr, /warning: ignore rules hide/)
  assert.throws(() => new ContextEngine({ maxIndexBytes: 0 }), (e: Error & { code?: string }) => e.code === 'invalid_request')
  const small = new ContextEngine({ maxIndexBytes: 1 })
  await small.prepareIndex(root)
  await small.prepareIndex(hidden)
  assert.equal(small.indexStatus(root).state, 'absent', 'over the budget: least recently used dropped')
  assert.equal(small.indexStatus(hidden).state, 'ready')
})

// `explain: true` adds the signals that scored each snippet; without it there are none.
test('explain adds each snippet its signals, and is validated', async () => {
  const root = repo()
  const plain = await retrieve(req(root, 'parseCookie header'))
  assert.ok(plain.length > 0)
  assert.ok(plain.every((s) => s.signals === undefined || s.signals === null))
  const explained = await retrieve(req(root, 'parseCookie header', { explain: true }))
  assert.deepEqual(
    explained.map((s) => [s.id, s.score]),
    plain.map((s) => [s.id, s.score]),
  )
  const g = explained[0].signals!
  assert.equal(explained[0].path, 'src/cookie.ts')
  assert.equal(g.role, 'source')
  assert.ok(g.bm25 > 0 && g.symbol > 0 && g.roleFactor === 1)
  // A one-line prompt is not re-ranked by the references between its top files.
  assert.ok(g.referencedBy === 0 && g.referenceFactor === 1)
  assert.equal(g.roleUnasked, false)
  // No file is named after a modifier of this question's subject.
  assert.ok(explained.every((s) => s.signals!.modifierStem === false))
  // Nor after a word of its complement (it has no preposition).
  assert.ok(explained.every((s) => s.signals!.complementStem === false))
  // Nor after the project (the prompt does not name it).
  assert.ok(explained.every((s) => s.signals!.projectStem === false))
  // Nor by what the project does (the prompt is not a question with the project as agent).
  assert.ok(explained.every((s) => s.signals!.actionStem === false))
  // `decodeURIComponent` meets `decode`, a general synonym of the prompt's "parse", which
  // gives a part of the file's BM25; the router holds neither word.
  assert.ok(g.synonym > 0 && g.synonym < g.bm25)
  assert.ok(explained.filter((s) => s.path === 'src/router.ts').every((s) => s.signals!.synonym === 0))
  // The share of the question's words one definition line holds (0 here: no file is within
  // 3% of another's score, so no line is read).
  assert.ok(explained.every((s) => s.signals!.definitionWords >= 0 && s.signals!.definitionWords <= 1))
  assert.ok(Math.abs(g.total - explained[0].score) < 1e-3)
  await rejectsWith(retrieve(req(root, 'x', { explain: 'yes' as unknown as boolean })), 'invalid_request')
})

// A TypeScript module that only declares types has the role 'declarations': it ranks below the
// code it describes, and above it when the prompt asks for types.
test('explain names a module of type declarations, demoted unless types are asked for', async () => {
  const root = repo()
  write(
    root,
    'src/types/session.ts',
    ['/** Session store options: session cookie name and session store. */', 'export interface SessionStoreOptions {', '  cookieName: string', '}', ''].join('\n'),
  )
  const role = async (prompt: string) => {
    const out = await retrieve(req(root, prompt, { explain: true }))
    const hit = out.find((s) => s.path === 'src/types/session.ts')
    assert.ok(hit, `${prompt}: ${out.map((s) => s.path)}`)
    return hit.signals!
  }
  const plain = await role('session store cookie')
  assert.equal(plain.role, 'declarations')
  assert.ok(plain.roleFactor < 1)
  // Asked for, the declarations count more than source (1.3x).
  assert.ok((await role('session store options type')).roleFactor > 1)
})

// A build tool's configuration script is config: demoted, unless the prompt names the tool.
test('explain gives a tool configuration script the config role, asked for when the tool is named', async () => {
  const root = repo()
  write(root, 'vite.config.ts', "export default { build: { target: 'es2022', outDir: 'dist' } }\n")
  const signals = async (prompt: string) => {
    const out = await retrieve(req(root, prompt, { explain: true }))
    const hit = out.find((s) => s.path === 'vite.config.ts')
    assert.ok(hit, `${prompt}: ${out.map((s) => s.path)}`)
    return hit.signals!
  }
  const plain = await signals('build target and output dir')
  assert.equal(plain.role, 'config')
  assert.ok(plain.roleFactor < 1)
  assert.ok((await signals('vite build target')).roleFactor >= 1)
})

// A prompt that names one side of a mechanism (client or server, reader or writer...) demotes the
// files named after the other side, and explain shows it in the role factor.
test('explain shows the demotion of the side a prompt does not ask about', async () => {
  const root = repo()
  write(root, 'src/client_session.ts', 'export function openSession(store: Map<string, string>) {\n  return store\n}\n')
  write(root, 'src/server_session.ts', 'export function loadSession(store: Map<string, string>) {\n  return store\n}\n')
  const factors = async (prompt: string) => {
    const out = await retrieve(req(root, prompt, { explain: true }))
    const of = (path: string) => out.find((s) => s.path === path)?.signals?.roleFactor
    return { client: of('src/client_session.ts'), server: of('src/server_session.ts') }
  }
  const serverSide = await factors('server-side session store')
  assert.ok(serverSide.client !== undefined && serverSide.client < 1, JSON.stringify(serverSide))
  assert.ok(serverSide.server !== undefined && serverSide.server >= 1, JSON.stringify(serverSide))
  const both = await factors('session store of the client and the server')
  assert.ok(both.client !== undefined && both.client >= 1, JSON.stringify(both))
})

// A capitalized word inside a question ("how Applicative combines effects") lifts the one file
// that defines that name as written; lowercased, it is a plain word.
test('explain shows the lift of the one file defining a capitalized word of a question', async () => {
  const root = repo()
  write(root, 'src/applicative.ts', 'export interface Applicative<F> {\n  pure<A>(a: A): F\n}\n')
  write(root, 'src/commutative.ts', '// Combines independent effects, like an applicative, in any order.\nexport const commute = 1\n')
  const symbol = async (prompt: string) => {
    const out = await retrieve(req(root, prompt, { explain: true }))
    const hit = out.find((s) => s.path === 'src/applicative.ts')
    assert.ok(hit, `${prompt}: ${out.map((s) => s.path)}`)
    return hit.signals!.symbol
  }
  const written = await symbol('how Applicative combines independent effects')
  const lower = await symbol('how applicative combines independent effects')
  assert.ok(written > lower, `${written} <= ${lower}`)
})
