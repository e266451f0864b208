// Hostile input at the N-API boundary, for EVERY export (the list is read from the addon, so a
// new export is covered without editing this file): throwing getters, Proxies whose traps
// throw, revoked Proxies, 20 MB strings and tokens that must never come back in a message,
// wrong types, `null` fields, prototype pollution, classes called without `new`, methods and
// getters called on a foreign `this`. Every failure must be an Error with one of the contract
// codes; an async export must reject, never throw synchronously.
//
// No host other than this machine is ever contacted: every server setting and proxy variable
// points at a closed loopback port before the addon is loaded.
for (const key of ['GITEA_URL', 'HOUND_URL', 'GITHUB_API_URL', 'HTTPS_PROXY', 'HTTP_PROXY', 'ALL_PROXY', 'https_proxy', 'http_proxy', 'all_proxy']) {
  process.env[key] = 'http://127.0.0.1:9'
}
for (const key of ['GITEA_TOKEN', 'GITHUB_TOKEN', 'GH_TOKEN', 'NO_PROXY', 'no_proxy']) delete process.env[key]
process.env.GITEA_TIMEOUT = '2000'
process.env.HOUND_TIMEOUT = '2000'

import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

// eslint-disable-next-line @typescript-eslint/no-require-imports
const binding = require('../lib/index.js') as Record<string, unknown>

const CODES = new Set(['invalid_request', 'unauthorized', 'unavailable', 'timeout', 'internal'])
const HUGE = 'x'.repeat(20 * 1024 * 1024)
const TOKEN = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'

const root = realpathSync(mkdtempSync(join(tmpdir(), 'ce-hostile-')))
writeFileSync(join(root, 'a.txt'), 'alpha\nbeta\n')
// A directory of its own for watchWorkspace, unwatched when the tests end.
const watched = realpathSync(mkdtempSync(join(tmpdir(), 'ce-hostile-watch-')))
after(() => {
  ;(binding.unwatchWorkspace as (p: string) => boolean)(watched)
  rmSync(root, { recursive: true, force: true })
  rmSync(watched, { recursive: true, force: true })
})

/** Arguments that pass validation, per export, so hostile values reach every position. */
const VALID: Record<string, unknown[]> = {
  estimateTokens: ['abc'],
  countTokens: ['abc', 'o200k_base'],
  countTokensSync: ['abc', 'o200k_base'],
  truncateFile: ['a\nb\nc', 1, [1], { contextLines: 1 }],
  truncateFileDetailed: ['a\nb\nc', 1, [1], { contextLines: 1 }],
  truncateFileSync: ['a\nb\nc', 1, [1], { contextLines: 1 }],
  fitToBudget: [{ a: 'x' }, 100, { estimate: true }],
  fitToBudgetSync: [{ a: 'x' }, 100, { estimate: true }],
  expandChunk: [root, { content: 'alpha', filePath: 'a.txt', startLine: 1, endLine: 1 }, 1, {}],
  expandChunkDetailed: [root, { content: 'alpha', filePath: 'a.txt', startLine: 1, endLine: 1 }, 1, {}],
  retrieve: [{ prompt: 'alpha', spaceId: 's', sessionId: 's', rootPath: root, providerId: 'mcp' }, {}],
  prepareIndex: [root, {}],
  fileRanks: [root, { limit: 5 }],
  indexStatus: [root],
  clearFileCache: [],
  invalidateFile: [join(root, 'a.txt')],
  invalidateDirectory: [root],
  fileCacheStats: [],
  languages: [],
  unwatchWorkspace: [root],
  dirContext: [root, {}],
  fileContext: [join(root, 'a.txt'), {}],
  diffContext: [root, {}],
  prContext: ['/nonexistent-ce-hostile', 1, {}],
  composeContext: [[{ kind: 'file', label: 'a', content: 'b' }], {}],
  composeContextSync: [[{ kind: 'file', label: 'a', content: 'b' }], {}],
  buildImplementationContext: ['tasks.md', root, {}],
  buildReviewContext: [root, 'main', {}],
  buildFixContext: ['', [], root, {}],
  buildIssueContext: [{ number: 1, title: 't' }, root, {}],
  parseValidationOutput: ['x'],
  parseValidationOutputSync: ['x'],
  remoteFileContext: [{ repo: 'a/b', file: 'f', line: 1 }, { baseUrl: 'http://127.0.0.1:9', timeout: 2000 }],
  redactSecrets: ['nothing secret here'],
  repoStats: [{ root }],
  watchWorkspace: [watched],
}

const throwingGetters = (): object => {
  const o: Record<string, unknown> = {}
  for (const key of ['prompt', 'rootPath', 'spaceId', 'sessionId', 'providerId', 'limit', 'content', 'filePath', 'startLine', 'endLine', 'maxChars', 'maxLines', 'maxFiles', 'root', 'signal', 'encoding', 'estimate', 'minLines', 'contextLines', 'mode', 'number', 'title', 'stages', 'repo', 'file', 'line', 'baseUrl', 'token', 'kind', 'label', 'fileCache', 'a']) {
    Object.defineProperty(o, key, { enumerable: true, get() { throw new TypeError('getter says no') } })
  }
  return o
}
const trapAll = (): object =>
  new Proxy({}, {
    get() { throw new TypeError('trap get') },
    has() { throw new TypeError('trap has') },
    ownKeys() { throw new TypeError('trap ownKeys') },
    getOwnPropertyDescriptor() { throw new TypeError('trap gopd') },
    getPrototypeOf() { throw new TypeError('trap proto') },
  })
const revoked = (): object => {
  const r = Proxy.revocable({}, {})
  r.revoke()
  return r.proxy
}
const everyField = (value: unknown): object =>
  new Proxy({}, { get: (_t, k) => (typeof k === 'string' && k !== 'then' ? value : undefined) })
const arrayProxy = (): object => new Proxy([], { get() { throw new TypeError('array trap') } })

const HOSTILE: Array<[string, () => unknown]> = [
  ['throwing getters', throwingGetters],
  ['a Proxy whose traps throw', trapAll],
  ['a revoked Proxy', revoked],
  ['an array Proxy', arrayProxy],
  ['a 20 MB string', () => HUGE],
  ['an object whose every field is a 20 MB string', () => everyField(HUGE)],
  ['an object whose every field is a token', () => everyField(TOKEN)],
  ['an object whose every field is null', () => everyField(null)],
  ['an object whose every field is a number', () => everyField(1.5)],
  ['an object whose every field is a Proxy that throws', () => everyField(trapAll())],
  ['a token', () => TOKEN],
  ['null', () => null],
  ['a number', () => -1.5],
  ['NaN', () => NaN],
  ['a symbol', () => Symbol('s')],
  ['a bigint', () => 10n],
  ['a function', () => () => 1],
  ['an array holding a huge string', () => [HUGE]],
  ['a Date', () => new Date(0)],
]

function checkError(err: unknown, where: string): void {
  assert.ok(err instanceof Error, `${where}: expected an Error, got ${String(err)}`)
  const e = err as Error & { code?: unknown; reason?: unknown }
  assert.ok(typeof e.code === 'string' && CODES.has(e.code), `${where}: code ${String(e.code)} (${e.message.slice(0, 200)})`)
  assert.ok(e.message.length < 2000, `${where}: message of ${e.message.length} characters`)
  assert.ok(!e.message.includes('x'.repeat(100)), `${where}: the huge string came back`)
  assert.ok(!e.message.includes(TOKEN), `${where}: the token came back`)
  assert.doesNotMatch(e.message, /napi value|rust type|Failed to convert|Illegal invocation/, where)
  if (e.reason !== undefined) assert.match(String(e.reason), /^[a-z_]+$/, where)
}

/** Calls `f`; an async export must return a promise (rejecting with a coded Error). */
async function check(name: string, f: () => unknown, isAsync: boolean | undefined, where: string): Promise<void> {
  let result: unknown
  try {
    result = f()
  } catch (err) {
    assert.notEqual(isAsync, true, `${where}: an async export threw synchronously`)
    checkError(err, where)
    return
  }
  if (result instanceof Promise) {
    assert.notEqual(isAsync, false, `${where}: a sync export returned a promise`)
    try {
      await result
    } catch (err) {
      checkError(err, where)
    }
  }
}

const functions: string[] = Object.keys(binding).filter((k) => typeof binding[k] === 'function' && /^[a-z]/.test(k))
const classes = Object.keys(binding).filter((k) => typeof binding[k] === 'function' && /^[A-Z]/.test(k))

test('the export list is read from the addon, and every function has a valid call here', () => {
  assert.ok(functions.length >= 25, `only ${functions.length} functions`)
  // Without a valid call, whether an export is async is unknown and the checks below that it
  // never throws synchronously could not fail for it.
  assert.deepEqual(functions.filter((f) => !(f in VALID)), [])
  assert.ok(classes.includes('ContextEngine'))
  assert.ok(!functions.some((f) => f.startsWith('__')), 'diagnostics are not in the published addon')
})

test('the entry exports every function and class of the binding, and each class every method', () => {
  // The entry lists the binding's exports by hand; an export added to the binding and not to
  // the entry would be missing from the package.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const raw = require('../index.js') as Record<string, unknown>
  // The cancellation token is the entry's own plumbing; `__`-prefixed keys are the loader's.
  const internal = new Set(['cancelToken', 'cancelCall'])
  assert.deepEqual(
    Object.keys(raw).filter((k) => !internal.has(k) && !k.startsWith('__') && !(k in binding)),
    [],
  )
  for (const [name, value] of Object.entries(raw)) {
    if (typeof value !== 'function' || !/^[A-Z]/.test(name)) continue
    const own = Object.getOwnPropertyNames(value.prototype).filter((m) => m !== 'constructor')
    const wrapped = (binding[name] as { prototype: object }).prototype
    assert.deepEqual(
      own.filter((m) => !(m in wrapped)),
      [],
      `${name}: methods of the binding missing from the entry`,
    )
  }
})

for (const name of functions) {
  test(`${name}: hostile arguments give coded errors, never a sync throw from an async export`, async () => {
    const f = binding[name] as (...a: unknown[]) => unknown
    const valid = VALID[name]
    let isAsync: boolean | undefined
    if (valid) {
      // The valid call itself must resolve or fail with a code; it tells whether the export is async.
      let r: unknown
      try {
        r = f(...valid)
        isAsync = r instanceof Promise
      } catch (err) {
        isAsync = false
        checkError(err, `${name}(valid)`)
      }
      if (r instanceof Promise) await r.catch((err) => checkError(err, `${name}(valid)`))
    }
    const positions = valid ? Math.max(valid.length, 1) : 4
    for (let i = 0; i < positions; i++) {
      for (const [label, make] of HOSTILE) {
        const argv = valid ? [...valid] : []
        argv[i] = make()
        await check(name, () => f(...argv), isAsync, `${name} with ${label} as argument ${i + 1}`)
      }
    }
  })
}

test('prototype pollution: an inherited key never becomes a section, a field or an option', async () => {
  const proto = Object.prototype as Record<string, unknown>
  proto.polluted = 'from the prototype'
  proto.maxChars = 'ghp_not_a_number'
  proto.signal = 42
  try {
    const fitted = await (binding.fitToBudget as Function)({ a: 'one line' }, 1000)
    assert.deepEqual(Object.keys(fitted), ['a'])
    const sync = (binding.fitToBudgetSync as Function)({ a: 'x' }, 1000)
    assert.deepEqual(Object.keys(sync), ['a'])
    const composed = await (binding.composeContext as Function)([{ kind: 'file', label: 'a', content: 'b' }])
    assert.equal(composed.truncated, false)
    const composedSync = (binding.composeContextSync as Function)([{ kind: 'file', label: 'a', content: 'b' }])
    assert.deepEqual(composedSync, composed)
  } finally {
    delete proto.polluted
    delete proto.maxChars
    delete proto.signal
  }
})

test('null option fields mean absent, everywhere', async () => {
  const { ContextEngine } = binding as { ContextEngine: new (o?: unknown) => { fileCacheStats(): { maxFiles: number } } }
  const engine = new ContextEngine({ fileCache: null, watch: null, maxRoots: null, indexCacheDir: null, allowedRoots: null, timeoutMs: null })
  assert.equal(engine.fileCacheStats().maxFiles, 100)
  const withNulls = new ContextEngine({ fileCache: { maxFiles: null, ttlMs: null } })
  assert.equal(withNulls.fileCacheStats().maxFiles, 100)
  assert.equal(await (binding.truncateFile as Function)('a\nb', 5, null, { contextLines: null }), 'a\nb')
  const fitted = await (binding.fitToBudget as Function)({ a: 'x' }, null, { encoding: null, estimate: null, minLines: null })
  assert.deepEqual(fitted, { a: 'x' })
  const expanded = await (binding.expandChunk as Function)(root, { content: 'alpha', filePath: 'a.txt', startLine: 1, endLine: 1, language: null }, 1, { mode: null, maxLines: null, redact: null, signal: null })
  assert.match(expanded, /alpha/)
  const d = await (binding.dirContext as Function)(root, { maxFiles: null, maxChars: null, signal: null })
  assert.equal(d.kind, 'dir')
})

test('wrong option types name the field and the type, not Rust types or the value', () => {
  const { ContextEngine } = binding as { ContextEngine: new (o?: unknown) => unknown }
  assert.throws(() => new ContextEngine({ fileCache: { maxFiles: TOKEN } }), (err: Error & { code?: string; reason?: string }) => {
    checkError(err, 'fileCache.maxFiles')
    assert.equal(err.code, 'invalid_request')
    assert.equal(err.reason, 'invalid_argument')
    assert.match(err.message, /options\.fileCache\.maxFiles must be a number/)
    return true
  })
  assert.throws(() => new ContextEngine({ indexCacheDir: HUGE }), (err: Error) => {
    checkError(err, 'indexCacheDir')
    return true
  })
})

for (const name of classes) {
  test(`class ${name}: called without new, foreign this and foreign getters give invalid_request`, async () => {
    const C = binding[name] as { new (...a: unknown[]): object; (...a: unknown[]): unknown; prototype: object }
    assert.throws(() => C(), (err: Error & { code?: string }) => {
      checkError(err, `${name}()`)
      assert.equal(err.code, 'invalid_request')
      return true
    })
    const fakes: Array<[string, unknown]> = [
      ['a plain object', {}],
      ['an object inheriting from the class', Object.create(C.prototype)],
      ['undefined', undefined],
      ['a number', 1],
    ]
    for (const key of Object.getOwnPropertyNames(C.prototype)) {
      if (key === 'constructor') continue
      const d = Object.getOwnPropertyDescriptor(C.prototype, key)!
      for (const [label, fake] of fakes) {
        const where = `${name}.prototype.${key} on ${label}`
        if (typeof d.value === 'function') {
          let r: unknown
          try {
            r = (d.value as Function).call(fake, root)
          } catch (err) {
            checkError(err, where)
            continue
          }
          if (r instanceof Promise) await r.then(() => assert.fail(`${where} resolved`), (err) => checkError(err, where))
          else assert.fail(`${where} returned ${String(r)}`)
        } else if (d.get) {
          assert.throws(() => d.get!.call(fake), (err: unknown) => {
            checkError(err, where)
            return true
          })
        }
      }
    }
  })
}

test('classes still construct, subclass and pass instanceof through the guard', async () => {
  const { ContextEngine } = binding as { ContextEngine: new (o?: unknown) => { fileCacheStats(): unknown; indexStatus(r: string): { state: string } } }
  const e = new ContextEngine()
  assert.ok(e instanceof ContextEngine)
  assert.equal(e.indexStatus(root).state, 'absent')
  class Mine extends ContextEngine {
    hello(): string {
      return 'hi'
    }
  }
  const m = new Mine()
  assert.ok(m instanceof ContextEngine)
  assert.equal(m.hello(), 'hi')
  assert.equal(m.indexStatus(root).state, 'absent')
})

test('errors carry a reason besides the code, so callers need not parse messages', async () => {
  const reasonOf = async (p: Promise<unknown>): Promise<[string?, string?]> => {
    try {
      await p
    } catch (err) {
      const e = err as { code?: string; reason?: string }
      return [e.code, e.reason]
    }
    assert.fail('expected a rejection')
  }
  writeFileSync(join(root, 'blob.bin'), Buffer.from([0, 1, 2, 0, 255, 0, 7, 0]))
  const fileContext = binding.fileContext as (p: string, o?: unknown) => Promise<unknown>
  const dirContext = binding.dirContext as (p: string, o?: unknown) => Promise<unknown>
  const diffContext = binding.diffContext as (p: string, o?: unknown) => Promise<unknown>
  assert.deepEqual(await reasonOf(fileContext(join(root, 'missing.txt'))), ['invalid_request', 'not_found'])
  assert.deepEqual(await reasonOf(fileContext(join(root, 'blob.bin'))), ['invalid_request', 'binary'])
  assert.deepEqual(await reasonOf(fileContext('../etc/passwd', { root })), ['invalid_request', 'invalid_path'])
  const outsideFile = join(tmpdir(), `ce-hostile-outside-${process.pid}.txt`)
  writeFileSync(outsideFile, 'outside\n')
  try {
    assert.deepEqual(await reasonOf(fileContext(outsideFile, { root })), ['invalid_request', 'outside_root'])
  } finally {
    rmSync(outsideFile, { force: true })
  }
  assert.deepEqual(await reasonOf(dirContext(join(root, 'a.txt'))), ['invalid_request', 'not_a_directory'])
  assert.deepEqual(await reasonOf(dirContext(join(root, 'nope'))), ['invalid_request', 'not_found'])
  assert.deepEqual(await reasonOf(dirContext('relative/dir')), ['invalid_request', 'invalid_path'])
  assert.deepEqual(await reasonOf(diffContext(root)), ['invalid_request', 'not_a_repository'])
  assert.deepEqual(await reasonOf((binding.countTokens as Function)(42)), ['invalid_request', 'invalid_argument'])
  const retrieve = binding.retrieve as (r: unknown) => Promise<unknown>
  assert.deepEqual(await reasonOf(retrieve({ prompt: 'x'.repeat(300 * 1024), spaceId: 's', sessionId: 's', rootPath: root, providerId: 'mcp' })), ['invalid_request', 'too_large'])
})
