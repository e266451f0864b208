// `context-engine/kata` used the way Kata Cloud's main process uses a context provider: put in
// an adapter that maps provider ids to providers and falls back to a default one, called
// through the adapter's result form and its legacy snippets-only form, and its answers kept
// only when they pass the field rules of Kata's persisted-state loader. The adapter and the
// loader rules are restated below from Kata's documented behaviour (not copied).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  writeFileSync,
} from 'node:fs'
import { dirname, isAbsolute, join, resolve } from 'node:path'

import { ContextEngine } from '../lib/index.js'
import {
  createKataContextProvider,
  type ContextProvider,
  type ContextProviderId,
  type ContextQuery,
  type ContextRetrievalError,
  type ContextRetrievalResult,
  type ContextSnippet,
} from '../lib/kata.js'
import { permissionsEnforced } from './support/permissions'
import { tempDir } from './support/files'

const PACKAGE_ROOT = resolve(__dirname, '..')

// --- Kata's adapter, restated: providers by id, fallback to the default provider, the
// fallback recorded in `fallbackFromProviderId`, a thrown error turned into `io_failure`, and
// the legacy overload `(query, providerId)` that resolves to the snippets only ([] on failure).
type Request = ContextQuery & { providerId: ContextProviderId }

function kataAdapter(providers: ContextProvider[], defaultId: ContextProviderId) {
  const byId = new Map(providers.map((p) => [p.id, p] as const))
  async function result(request: Request): Promise<ContextRetrievalResult> {
    const chosen = byId.get(request.providerId) ?? byId.get(defaultId)
    const fellBack = byId.has(request.providerId) || request.providerId === defaultId ? undefined : request.providerId
    if (!chosen) {
      const error: ContextRetrievalError = {
        code: 'provider_unavailable',
        message: 'not configured',
        remediation: 'configure one',
        retryable: true,
        providerId: request.providerId,
      }
      return { ok: false, providerId: request.providerId, snippets: [], error }
    }
    try {
      const answer = await chosen.retrieve(request)
      return fellBack ? { ...answer, fallbackFromProviderId: fellBack } : answer
    } catch (thrown) {
      const message = thrown instanceof Error ? thrown.message : 'provider threw'
      const error: ContextRetrievalError = {
        code: 'io_failure',
        message,
        remediation: 'see logs',
        retryable: true,
        providerId: chosen.id,
      }
      return { ok: false, providerId: chosen.id, snippets: [], fallbackFromProviderId: fellBack, error }
    }
  }
  function retrieve(request: Request): Promise<ContextRetrievalResult>
  function retrieve(query: ContextQuery, providerId: ContextProviderId): Promise<ContextSnippet[]>
  async function retrieve(q: Request | ContextQuery, providerId?: ContextProviderId) {
    if (providerId) {
      const r = await result({ ...q, providerId })
      return r.ok ? r.snippets : []
    }
    return result(q as Request)
  }
  return { retrieve }
}

// --- Kata's persisted-state loader rules, restated: a snippet or an error missing a field (or
// with an empty string where text is expected, or an unknown id/code) is silently dropped.
const KATA_IDS = new Set(['filesystem', 'mcp'])
const KATA_CODES = new Set(['provider_unavailable', 'unsupported_provider', 'invalid_query', 'invalid_root_path', 'io_failure'])
const text = (v: unknown): boolean => typeof v === 'string' && v.length > 0

function loaderKeepsSnippet(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return false
  const s = v as Record<string, unknown>
  return (
    text(s.id) &&
    KATA_IDS.has(s.provider as string) &&
    text(s.path) &&
    text(s.source) &&
    typeof s.content === 'string' &&
    typeof s.score === 'number' &&
    Number.isFinite(s.score)
  )
}

function loaderKeepsError(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return false
  const e = v as Record<string, unknown>
  return (
    KATA_CODES.has(e.code as string) &&
    text(e.message) &&
    text(e.remediation) &&
    typeof e.retryable === 'boolean' &&
    KATA_IDS.has(e.providerId as string)
  )
}

// --- fixtures
function write(root: string, rel: string, body: string): void {
  const p = join(root, rel)
  mkdirSync(dirname(p), { recursive: true })
  writeFileSync(p, body)
}

function space(parent?: string): string {
  const root = parent ?? tempDir('ce-kata-')
  write(root, 'src/session/store.ts', [
    'export class SessionStore {',
    '  private sessions = new Map<string, Session>()',
    '  save(session: Session): void {',
    '    this.sessions.set(session.id, session)',
    '  }',
    '  load(id: string): Session | undefined {',
    '    return this.sessions.get(id)',
    '  }',
    '}',
    '',
  ].join('\n'))
  write(root, 'src/billing/invoice.ts', 'export function invoiceTotal(lines: number[]): number {\n  return lines.reduce((a, b) => a + b, 0)\n}\n')
  write(root, 'README.md', '# Space\n\nSessions are saved by the session store.\n')
  for (let i = 0; i < 12; i++) write(root, `src/gen/session${i}.ts`, `export const session${i} = 'session ${i}'\n`)
  return root
}

const query = (rootPath: string, prompt = 'where are sessions saved', extra: Partial<ContextQuery> = {}): ContextQuery => ({
  prompt,
  spaceId: 'space-1',
  sessionId: 'session-1',
  rootPath,
  ...extra,
})

function assertFailure(r: ContextRetrievalResult, code: string, retryable: boolean, id: ContextProviderId = 'mcp'): void {
  assert.equal(r.ok, false, JSON.stringify(r))
  if (r.ok) return
  assert.equal(r.error.code, code, r.error.message)
  assert.equal(r.error.retryable, retryable)
  assert.equal(r.providerId, id)
  assert.equal(r.error.providerId, id)
  assert.deepEqual(r.snippets, [])
  assert.ok(loaderKeepsError(r.error), `Kata's loader would drop ${JSON.stringify(r.error)}`)
}

test('a query answers with absolute paths, engine sources, Kata fields and the default limit 5', async () => {
  const root = space()
  const provider = createKataContextProvider()
  assert.equal(provider.id, 'mcp')
  const r = await provider.retrieve(query(root))
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(r.providerId, 'mcp')
  assert.equal(r.snippets.length, 5, 'Kata default of 5 (more than 5 files match)')
  for (const s of r.snippets) {
    assert.ok(loaderKeepsSnippet(s), `Kata's loader would drop ${JSON.stringify(s)}`)
    assert.deepEqual(Object.keys(s).sort(), ['content', 'id', 'path', 'provider', 'score', 'source'])
    assert.equal(s.provider, 'mcp')
    assert.ok(isAbsolute(s.path) && s.path.startsWith(root), s.path)
    assert.ok(existsSync(s.path))
    const m = /^(.+):(\d+)-(\d+)$/.exec(s.source)
    assert.ok(m, s.source)
    assert.equal(join(root, m[1]), s.path)
    assert.ok(Number(m[2]) >= 1 && Number(m[3]) >= Number(m[2]))
    assert.ok(s.id.startsWith('mcp:'))
  }
  assert.equal(r.snippets[0].path, join(root, 'src', 'session', 'store.ts'))
  assert.ok(r.snippets[0].content.includes('save(session: Session)'))
  for (let i = 1; i < r.snippets.length; i++) assert.ok(r.snippets[i - 1].score >= r.snippets[i].score)

  assert.equal((await provider.retrieve(query(root, 'session', { limit: 2 }))).snippets.length, 2)
  const three = createKataContextProvider({ limit: 3 })
  assert.equal((await three.retrieve(query(root, 'session'))).snippets.length, 3)
  assert.equal((await three.retrieve(query(root, 'session', { limit: 7 }))).snippets.length, 7)
  assert.equal((await provider.retrieve(query(root, 'xylophone quasar'))).snippets.length, 0)
})

test('the root is trimmed and ~ expanded to the home directory', async () => {
  const home = tempDir('ce-kata-home-')
  const root = join(home, 'kata', 'project')
  mkdirSync(root, { recursive: true })
  space(root)
  const saved = process.env.HOME
  const savedProfile = process.env.USERPROFILE
  process.env.HOME = home
  process.env.USERPROFILE = home
  try {
    const provider = createKataContextProvider({ id: 'filesystem' })
    const r = await provider.retrieve(query('  ~/kata/project \n', 'invoice total'))
    assert.equal(r.ok, true, JSON.stringify(r))
    assert.equal(r.snippets[0].path, join(root, 'src', 'billing', 'invoice.ts'))
    assert.equal(r.snippets[0].provider, 'filesystem')
    const trimmed = await provider.retrieve(query(`\t${root}  `, 'invoice total'))
    assert.equal(trimmed.ok, true)
    assert.deepEqual(trimmed.snippets, r.snippets)
  } finally {
    if (saved === undefined) delete process.env.HOME
    else process.env.HOME = saved
    if (savedProfile === undefined) delete process.env.USERPROFILE
    else process.env.USERPROFILE = savedProfile
  }
})

test('bad queries and roots are results, never rejections, with Kata codes and remediations', async () => {
  const root = space()
  const provider = createKataContextProvider()
  const anyRetrieve = provider.retrieve as (q: unknown) => Promise<ContextRetrievalResult>
  for (const bad of [undefined, null, 42, 'text', [], () => 1]) assertFailure(await anyRetrieve(bad), 'invalid_query', false)
  for (const prompt of ['', '   ', '?! -- ...', 12 as unknown as string]) {
    assertFailure(await provider.retrieve(query(root, prompt)), 'invalid_query', false)
  }
  for (const limit of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '3' as unknown as number]) {
    assertFailure(await provider.retrieve(query(root, 'session', { limit })), 'invalid_query', false)
  }
  const file = join(root, 'README.md')
  for (const rootPath of ['', '   ', 'relative/space', './space', join(root, 'missing'), file, join(file, 'below'), 7 as unknown as string]) {
    const r = await provider.retrieve(query(rootPath))
    assertFailure(r, 'invalid_root_path', false)
    if (!r.ok && typeof rootPath === 'string' && rootPath.length > 3) {
      assert.ok(!r.error.message.includes(rootPath.trim()), 'no path in the message')
    }
  }
  if (process.platform !== 'win32') {
    const locked = join(root, 'locked')
    mkdirSync(locked)
    chmodSync(locked, 0o000)
    try {
      if (permissionsEnforced(locked)) {
        assertFailure(await provider.retrieve(query(locked)), 'invalid_root_path', false)
      }
    } finally {
      chmodSync(locked, 0o755)
    }
  }
  const r = await provider.retrieve(query(root, 'session', { spaceId: '', sessionId: '' }))
  assert.equal(r.ok, true, 'blank space/session ids do not fail this provider alone')
})

test('engine errors map to Kata codes with the right retryable, under the provider id', async () => {
  const root = space()
  const cases: Array<[string | undefined, string, boolean, RegExp]> = [
    ['unavailable', 'provider_unavailable', true, /retry/i],
    ['unauthorized', 'provider_unavailable', false, /credentials|permissions/i],
    ['timeout', 'io_failure', true, /prepare\(rootPath\)/],
    ['internal', 'io_failure', true, /retry/i],
    [undefined, 'io_failure', true, /retry/i],
    ['invalid_request', 'invalid_query', false, /prompt/i],
  ]
  for (const [engineCode, kataCode, retryable, remediation] of cases) {
    // The failing engine: a ContextEngine whose retrieve/prepareIndex reject with an engine
    // error of `engineCode`, which the real engine raises only under conditions a test
    // cannot stage (a host that stops answering, an index build past its deadline).
    const failing = Object.create(ContextEngine.prototype) as ContextEngine
    const thrown = Object.assign(new Error('secret /home/someone/path token=abc'), engineCode ? { code: engineCode } : {})
    failing.retrieve = async () => {
      throw thrown
    }
    failing.prepareIndex = async () => {
      throw thrown
    }
    const provider = createKataContextProvider({ engine: failing, id: 'filesystem' })
    for (const r of [await provider.retrieve(query(root)), await provider.prepare(root)]) {
      assertFailure(r as ContextRetrievalResult, kataCode, retryable, 'filesystem')
      if (!r.ok) {
        assert.match(r.error.remediation, remediation)
        assert.ok(!r.error.message.includes('secret') && !r.error.message.includes('token'), r.error.message)
      }
    }
  }
  // A non-Error thrown value is still a result.
  const odd = Object.create(ContextEngine.prototype) as ContextEngine
  odd.retrieve = () => Promise.reject('plain string')
  assertFailure(await createKataContextProvider({ engine: odd }).retrieve(query(root)), 'io_failure', true)
})

test("the engine's own errors keep its message, and the Kata code follows the error's reason", async () => {
  const root = space()
  const elsewhere = space()
  // A prompt the engine refuses (over 256 KiB): its message says why.
  const provider = createKataContextProvider()
  const big = await provider.retrieve(query(root, 'session '.repeat(40 * 1024)))
  assertFailure(big, 'invalid_query', false)
  if (!big.ok) {
    assert.match(big.error.message, /prompt is too large/)
    assert.match(big.error.remediation, /Shorten the prompt/)
  }
  // A root outside the engine's allowed roots: the code comes from the reason, and the message
  // is the engine's.
  const fenced = createKataContextProvider({ engine: new ContextEngine({ allowedRoots: [elsewhere] }) })
  const outside = await fenced.retrieve(query(root))
  assertFailure(outside, 'invalid_root_path', false)
  if (!outside.ok) {
    assert.match(outside.error.message, /outside the engine's allowedRoots/)
    assert.ok(!outside.error.message.includes(root), 'no path in the message')
  }
  const prepared = await fenced.prepare(root)
  assertFailure(prepared as ContextRetrievalResult, 'invalid_root_path', false)
})

test('in Kata\'s adapter: own slot, fallback to the default provider, own id whatever is asked', async () => {
  const root = space()
  const engine = new ContextEngine()

  // Kata registers the engine in its "mcp" slot beside its own filesystem provider.
  const filesystemStandIn: ContextProvider = {
    id: 'filesystem',
    async retrieve() {
      return { ok: true, providerId: 'filesystem', snippets: [] }
    },
  }
  const adapter = kataAdapter([filesystemStandIn, createKataContextProvider({ engine })], 'filesystem')
  const viaMcp = await adapter.retrieve({ ...query(root), providerId: 'mcp' })
  assert.equal(viaMcp.ok, true)
  assert.equal(viaMcp.providerId, 'mcp')
  assert.equal(viaMcp.fallbackFromProviderId, undefined)
  assert.ok(viaMcp.snippets.length > 0 && viaMcp.snippets.every((s) => s.provider === 'mcp'))

  // The engine as Kata's default "filesystem" provider: an "mcp" request falls back to it,
  // and it answers under its own id although the request says "mcp".
  const fallback = kataAdapter([createKataContextProvider({ engine, id: 'filesystem' })], 'filesystem')
  const r = await fallback.retrieve({ ...query(root), providerId: 'mcp' })
  assert.equal(r.ok, true)
  assert.equal(r.providerId, 'filesystem')
  assert.equal(r.fallbackFromProviderId, 'mcp')
  assert.ok(r.snippets.length > 0 && r.snippets.every((s) => s.provider === 'filesystem' && s.id.startsWith('filesystem:')))

  const bad = await fallback.retrieve({ ...query('relative'), providerId: 'mcp' })
  assertFailure(bad, 'invalid_root_path', false, 'filesystem')
  assert.equal(bad.fallbackFromProviderId, 'mcp')

  // The legacy overload resolves to the snippets only, and to [] on failure.
  const snippets = await adapter.retrieve(query(root), 'mcp')
  assert.ok(Array.isArray(snippets) && snippets.length > 0)
  assert.deepEqual(snippets, viaMcp.snippets)
  assert.deepEqual(await adapter.retrieve(query(root, '???'), 'mcp'), [])

  // What Kata persists survives its loader whole.
  const persisted = JSON.parse(JSON.stringify({ contextSnippets: viaMcp.snippets, contextRetrievalError: !bad.ok && bad.error }))
  assert.equal(persisted.contextSnippets.filter(loaderKeepsSnippet).length, viaMcp.snippets.length)
  assert.ok(loaderKeepsError(persisted.contextRetrievalError))
})

test('prepare(root) builds the index ahead of the first query', async () => {
  const root = space()
  const engine = new ContextEngine()
  const provider = createKataContextProvider({ engine })
  assert.equal(engine.indexStatus(root).state, 'absent')
  const prepared = await provider.prepare(`  ${root} `)
  assert.equal(prepared.ok, true, JSON.stringify(prepared))
  if (prepared.ok) {
    assert.equal(prepared.providerId, 'mcp')
    assert.equal(prepared.status.state, 'ready')
    assert.ok(prepared.status.files >= 14)
  }
  assert.equal(engine.indexStatus(root).state, 'ready')
  const bad = await provider.prepare('nope')
  assertFailure(bad as ContextRetrievalResult, 'invalid_root_path', false)
})

test('only bad factory options throw', () => {
  const create = createKataContextProvider as (o?: unknown) => unknown
  for (const bad of [42, 'x', [], { id: 'github' }, { limit: 0 }, { limit: 101 }, { limit: 2.5 }, { engine: {} }, { engine: null }]) {
    assert.throws(() => create(bad), (e: Error & { code?: string }) => e instanceof TypeError && e.code === 'invalid_request')
  }
  assert.doesNotThrow(() => create(undefined))
  assert.doesNotThrow(() => create({}))
})

function node(args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  const out = spawnSync(process.execPath, args, { cwd, env, encoding: 'utf8', timeout: 60_000 })
  assert.equal(out.status, 0, `node ${args.join(' ')}\n${out.stdout}\n${out.stderr}`)
  return out.stdout.trim()
}

test('ESM: a named import of context-engine/kata in plain Node, beside the root export', () => {
  const root = space()
  const script = `
    import { createKataContextProvider, DEFAULT_LIMIT } from 'context-engine/kata'
    import * as kataNs from 'context-engine/kata'
    import { ContextEngine, retrieve } from 'context-engine'
    import { createRequire } from 'node:module'
    import { createKataContextProvider as fromCjsFile } from './dist/kata.js'
    const require = createRequire(import.meta.url)
    const pkg = require('context-engine/package.json')
    const r = await createKataContextProvider().retrieve({ prompt: 'invoice total', spaceId: 's', sessionId: 's', rootPath: ${JSON.stringify(root)} })
    console.log(JSON.stringify({
      ok: r.ok, first: r.snippets[0]?.path, limit: DEFAULT_LIMIT, pkg: pkg.name,
      same: fromCjsFile === createKataContextProvider && kataNs.createKataContextProvider === createKataContextProvider,
      engine: typeof ContextEngine, retrieve: typeof retrieve,
    }))
  `
  const file = join(PACKAGE_ROOT, `.kata-esm-${process.pid}.mjs`)
  writeFileSync(file, script)
  try {
    const out = JSON.parse(node([file], PACKAGE_ROOT))
    assert.deepEqual(out, {
      ok: true,
      first: join(root, 'src', 'billing', 'invoice.ts'),
      limit: 5,
      pkg: 'context-engine',
      same: true,
      engine: 'function',
      retrieve: 'function',
    })
  } finally {
    execFileSync('rm', ['-f', file])
  }
})

test('CJS: require of context-engine/kata, the root export, index.js and package.json', () => {
  const root = space()
  const script = `
    const { createKataContextProvider } = require('context-engine/kata')
    const root = require('context-engine')
    const same = require('context-engine/index.js') === root
    const pkg = require('context-engine/package.json')
    createKataContextProvider({ id: 'filesystem' })
      .retrieve({ prompt: 'session store', spaceId: 's', sessionId: 's', rootPath: ${JSON.stringify(root)} })
      .then((r) => console.log(JSON.stringify({ ok: r.ok, id: r.providerId, n: r.snippets.length, same, pkg: pkg.name, retrieve: typeof root.retrieve })))
  `
  const file = join(PACKAGE_ROOT, `.kata-cjs-${process.pid}.cjs`)
  writeFileSync(file, script)
  try {
    const out = JSON.parse(node([file], PACKAGE_ROOT))
    assert.deepEqual(out, { ok: true, id: 'filesystem', n: 5, same: true, pkg: 'context-engine', retrieve: 'function' })
  } finally {
    execFileSync('rm', ['-f', file])
  }
})

test('a missing native binary: importing works, queries answer provider_unavailable', () => {
  // The package as installed without its platform binary: the real loader, no .node file.
  const pkg = tempDir('ce-kata-nobin-')
  for (const f of ['package.json', 'index.js', 'index.d.ts']) {
    copyFileSync(join(PACKAGE_ROOT, f), join(pkg, f))
  }
  cpSync(join(PACKAGE_ROOT, 'dist'), join(pkg, 'dist'), { recursive: true })
  const root = space()
  const env = { ...process.env }
  delete env.NAPI_RS_NATIVE_LIBRARY_PATH
  const script = `
    import { createKataContextProvider } from 'context-engine/kata'
    const p = createKataContextProvider()
    const r = await p.retrieve({ prompt: 'session', spaceId: 's', sessionId: 's', rootPath: ${JSON.stringify(root)} })
    const again = await p.prepare(${JSON.stringify(root)})
    console.log(JSON.stringify({ r, again }))
  `
  writeFileSync(join(pkg, 'probe.mjs'), script)
  const { r, again } = JSON.parse(node([join(pkg, 'probe.mjs')], pkg, env))
  for (const res of [r, again]) assertFailure(res, 'provider_unavailable', false)
  assert.match(r.error.remediation, /Reinstall/)
  // The bad root is still reported as such first: no addon needed to tell.
  const badRoot = `
    const { createKataContextProvider } = require('context-engine/kata')
    createKataContextProvider().retrieve({ prompt: 'x', spaceId: 's', sessionId: 's', rootPath: 'rel' }).then((r) => console.log(r.error.code))
  `
  writeFileSync(join(pkg, 'probe.cjs'), badRoot)
  assert.equal(node([join(pkg, 'probe.cjs')], pkg, env), 'invalid_root_path')
})
