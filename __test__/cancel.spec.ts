// Cancellation and engine limits at the boundary: an AbortSignal in the last options argument
// rejects like Node's own APIs (AbortError, code ABORT_ERR) within 50 ms, before or during the
// work; an aborted first index build leaves no index and the next call works; `timeoutMs` ends
// calls with `timeout`; `allowedRoots` refuses roots outside them. Real files in a temp dir
// (20,000 of them) and a loopback HTTP server that never answers.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { getEventListeners } from 'node:events'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

import { ContextEngine, dirContext, parseValidationOutput, prepareIndex, remoteFileContext, retrieve } from '../lib/index.js'

const FILES = 20_000
let root = ''
let small = ''
const dirs: string[] = []
let server: Server
let silentUrl = ''

before(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'ce-cancel-')))
  dirs.push(root)
  for (let d = 0; d < 200; d++) {
    const dir = join(root, `pkg${d}`)
    mkdirSync(dir)
    for (let f = 0; f < FILES / 200; f++) {
      writeFileSync(join(dir, `mod${f}.ts`), `export function handler_${d}_${f}(input: string) {\n  return input + 'widget_${f}'\n}\n`)
    }
  }
  small = realpathSync(mkdtempSync(join(tmpdir(), 'ce-cancel-small-')))
  dirs.push(small)
  writeFileSync(join(small, 'a.ts'), 'export const widget = 1\n')
  // Accepts connections and never answers.
  server = createServer(() => {})
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  silentUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
})

after(() => {
  server.closeAllConnections()
  server.close()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

const request = (rootPath: string) => ({ prompt: 'widget handler', spaceId: 's', sessionId: 's', rootPath, providerId: 'mcp' as const })

function isAbort(err: unknown): boolean {
  assert.ok(err instanceof Error, `expected an Error, got ${String(err)}`)
  assert.equal(err.name, 'AbortError')
  assert.equal((err as { code?: string }).code, 'ABORT_ERR')
  return true
}

async function rejectsWithin(p: Promise<unknown>, start: number, check: (e: unknown) => boolean): Promise<number> {
  let elapsed = -1
  await assert.rejects(
    p.finally(() => {
      elapsed = performance.now() - start
    }),
    check,
  )
  return elapsed
}

async function waitFor(cond: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) assert.fail('condition not reached in time')
    await sleep(2)
  }
}

test('an already-aborted signal rejects at once and starts nothing', async () => {
  const engine = new ContextEngine()
  const ac = new AbortController()
  ac.abort(new Error('user went away'))
  const t0 = performance.now()
  const elapsed = await rejectsWithin(engine.retrieve(request(root), { signal: ac.signal }), t0, (err) => {
    isAbort(err)
    assert.equal(((err as Error).cause as Error).message, 'user went away')
    return true
  })
  assert.ok(elapsed <= 50, `rejected after ${elapsed.toFixed(1)} ms`)
  assert.equal(engine.indexStatus(root).state, 'absent')
  await assert.rejects(engine.prepareIndex(root, { signal: ac.signal }), isAbort)
  await assert.rejects(dirContext(small, { signal: ac.signal }), isAbort)
  assert.equal(engine.indexStatus(root).state, 'absent')
})

test('abort during the first build of 20,000 files: rejects within 50 ms, no half-built index, the next call works', async () => {
  const engine = new ContextEngine()
  const ac = new AbortController()
  const p = engine.retrieve(request(root), { signal: ac.signal })
  await waitFor(() => {
    const s = engine.indexStatus(root)
    return s.state === 'building' && s.filesRead > 0
  })
  const t0 = performance.now()
  ac.abort()
  const elapsed = await rejectsWithin(p, t0, isAbort)
  assert.ok(elapsed <= 50, `rejected ${elapsed.toFixed(1)} ms after abort`)
  // The work stops at its next batch of files, dropping what it had built.
  await waitFor(() => engine.indexStatus(root).state !== 'building', 10_000)
  const status = engine.indexStatus(root)
  assert.equal(status.state, 'absent', 'no half-built index is kept')
  assert.equal(status.files, 0)
  const snippets = await engine.retrieve(request(root))
  assert.ok(snippets.length > 0)
  const ready = engine.indexStatus(root)
  assert.equal(ready.state, 'ready')
  assert.equal(ready.files, FILES)
})

test('prepareIndex on the default engine aborts the same way', async () => {
  const ac = new AbortController()
  const p = prepareIndex(root, { signal: ac.signal })
  await sleep(5)
  const t0 = performance.now()
  ac.abort()
  const elapsed = await rejectsWithin(p, t0, isAbort)
  assert.ok(elapsed <= 50, `rejected ${elapsed.toFixed(1)} ms after abort`)
})

test('a call that finishes removes its abort listener; a later abort changes nothing', async () => {
  const ac = new AbortController()
  const engine = new ContextEngine()
  const snippets = await engine.retrieve(request(small), { signal: ac.signal })
  assert.equal(snippets.length, 1)
  assert.equal(getEventListeners(ac.signal, 'abort').length, 0)
  ac.abort()
  assert.equal(engine.indexStatus(small).state, 'ready')
  assert.equal((await retrieve(request(small))).length, 1)
})

test('a remote call waiting on a server that never answers aborts within 50 ms', async () => {
  const ac = new AbortController()
  const p = remoteFileContext({ repo: 'a/b', file: 'f.ts', line: 1 }, { baseUrl: silentUrl, timeout: 60_000, fallback: false, signal: ac.signal })
  await sleep(50)
  const t0 = performance.now()
  ac.abort()
  const elapsed = await rejectsWithin(p, t0, isAbort)
  assert.ok(elapsed <= 50, `rejected ${elapsed.toFixed(1)} ms after abort`)
})

test('a signal that is not an AbortSignal is invalid_request', async () => {
  for (const signal of [{}, 42, 'x', { aborted: false }, Object.create(AbortSignal.prototype)]) {
    await assert.rejects(retrieve(request(small), { signal: signal as AbortSignal }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'invalid_request')
      assert.match(err.message, /signal must be an AbortSignal/)
      return true
    })
  }
  // null and undefined mean no signal.
  assert.equal((await retrieve(request(small), { signal: null })).length, 1)
  assert.equal((await retrieve(request(small), { signal: undefined })).length, 1)
})

test('timeoutMs ends a long first build with timeout, promptly, and leaves no index', async () => {
  const engine = new ContextEngine({ timeoutMs: 20 })
  const t0 = performance.now()
  const elapsed = await rejectsWithin(engine.prepareIndex(root), t0, (err: unknown) => {
    assert.equal((err as { code?: string }).code, 'timeout')
    assert.equal((err as { reason?: string }).reason, 'deadline')
    return true
  })
  assert.ok(elapsed <= 20 + 50, `rejected after ${elapsed.toFixed(1)} ms`)
  await waitFor(() => engine.indexStatus(root).state !== 'building', 10_000)
  assert.equal(engine.indexStatus(root).state, 'absent')
  // A generous deadline does not get in the way.
  const patient = new ContextEngine({ timeoutMs: 600_000 })
  assert.equal((await patient.retrieve(request(small))).length, 1)
})

test('allowedRoots refuses every root outside them, with reason outside_allowed_roots', async () => {
  const engine = new ContextEngine({ allowedRoots: [small] })
  assert.equal((await engine.retrieve(request(small))).length, 1)
  const outside = (err: Error & { code?: string; reason?: string }) => {
    assert.equal(err.code, 'invalid_request')
    assert.equal(err.reason, 'outside_allowed_roots')
    assert.ok(!err.message.includes(root))
    return true
  }
  await assert.rejects(engine.retrieve(request(root)), outside)
  await assert.rejects(engine.retrieve(request('/')), outside)
  await assert.rejects(engine.retrieve(request(join(small, '..'))), outside)
  await assert.rejects(engine.prepareIndex(root), outside)
  assert.throws(() => engine.indexStatus(root), outside)
  assert.throws(() => engine.evict(root), outside)
  await assert.rejects(engine.expandChunk(root, { content: 'x', filePath: 'pkg0/mod0.ts', startLine: 1, endLine: 1 }, 2), outside)
  await assert.rejects(engine.watchWorkspace(root), outside)
  assert.throws(() => new ContextEngine({ allowedRoots: ['relative'] }), (err: Error & { code?: string }) => err.code === 'invalid_request')
  assert.throws(() => new ContextEngine({ allowedRoots: 'nope' as never }), (err: Error & { code?: string }) => err.code === 'invalid_request')
})

test('parseValidationOutput runs off the JS thread; its sync twin is bounded', async () => {
  const big = 'src/a.ts(1,1): error TS2322: Type mismatch.\n'.repeat(100_000)
  // Off the JS thread: the call returns a pending promise, and the event loop runs (a timer
  // fires) before the parse settles. (Timings are measured in benches/boundary.bench.ts.)
  let settled = false
  const p = parseValidationOutput(big).then((r) => {
    settled = true
    return r
  })
  assert.ok(p instanceof Promise)
  await new Promise((resolve) => setImmediate(resolve))
  assert.equal(settled, false, 'a 4 MB parse settled before the event loop turned')
  assert.equal((await p).length, 100_000)
  const { parseValidationOutputSync } = await import('../lib/index.js')
  assert.equal(parseValidationOutputSync('src/a.ts(1,1): error TS2322: x\n').length, 1)
  assert.throws(() => parseValidationOutputSync(big), (err: Error & { code?: string; reason?: string }) => err.code === 'invalid_request' && err.reason === 'too_large')
})

test('many calls sharing one signal: one listener, no MaxListeners warning, all settle', async () => {
  const ac = new AbortController()
  const warnings: Error[] = []
  const onWarning = (w: Error) => warnings.push(w)
  process.on('warning', onWarning)
  try {
    const calls = Array.from({ length: 50 }, () => dirContext(small, { signal: ac.signal }))
    assert.ok(getEventListeners(ac.signal, 'abort').length <= 1)
    ac.abort()
    for (const r of await Promise.allSettled(calls)) {
      if (r.status === 'rejected') isAbort(r.reason)
    }
    const done = new AbortController()
    await Promise.all(Array.from({ length: 50 }, () => dirContext(small, { signal: done.signal })))
    assert.equal(getEventListeners(done.signal, 'abort').length, 0)
    await sleep(20)
  } finally {
    process.off('warning', onWarning)
  }
  assert.deepEqual(warnings.map((w) => w.name), [])
})

test('the sync twins are bounded; the async ones take the same input', async () => {
  const { countTokensSync, countTokens, fitToBudgetSync, truncateFileSync } = await import('../lib/index.js')
  const text = 'word '.repeat(60_000)
  const tooLarge = (err: Error & { code?: string; reason?: string }) => err.code === 'invalid_request' && err.reason === 'too_large'
  assert.throws(() => countTokensSync(text), tooLarge)
  assert.ok((await countTokens(text)) > 0)
  assert.throws(() => fitToBudgetSync({ a: text }, 10), tooLarge)
  assert.throws(() => truncateFileSync('x\n'.repeat(600_000), 10), tooLarge)
  assert.equal(countTokensSync('hello world'), 2)
})
