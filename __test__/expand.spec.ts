// Expansion at the boundary: the spec's arithmetic, soft failures with their reasons, structure
// mode, the cache controls and stats, watching, invalid_request for every malformed argument,
// and 1000 concurrent expansions while files change.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync, utimesSync, renameSync, symlinkSync, rmSync } from 'node:fs'
import { join } from 'node:path'

import {
  ContextEngine,
  clearFileCache,
  expandChunk,
  expandChunkDetailed,
  fileCacheStats,
  invalidateDirectory,
  invalidateFile,
  unwatchWorkspace,
  watchWorkspace,
  type KnowledgeChunk,
  type TextChunk,
} from '../lib/index.js'
import { tempDir } from './support/files'

const code = (err: unknown) => (err as { code?: string }).code
const isInvalid = (err: unknown) => {
  assert.ok(err instanceof Error)
  assert.equal(code(err), 'invalid_request')
  return true
}

const numbered = (n: number, tag = 'line') => Array.from({ length: n }, (_, i) => `${tag} ${i + 1}\n`).join('')
const linesOf = (a: number, b: number, tag = 'line') =>
  Array.from({ length: b - a + 1 }, (_, i) => `${tag} ${a + i}`).join('\n')

/** A fresh workspace (its real path, so that cache keys match). */
const workspace = () => tempDir('ce-expand-')

/** Writes a file dated 10 s back: outside the cache's racy window, so it may be cached. */
function put(root: string, rel: string, content: string) {
  const p = join(root, rel)
  mkdirSync(join(p, '..'), { recursive: true })
  writeFileSync(p, content)
  const past = new Date(Date.now() - 10_000)
  utimesSync(p, past, past)
  return p
}

const chunk = (filePath: string, startLine: number, endLine: number): TextChunk => ({
  content: `ORIGINAL ${startLine}-${endLine}`,
  filePath,
  startLine,
  endLine,
})

test("the spec's example: lines 25-30 with 5 context lines give lines 20-35", async () => {
  const ws = workspace()
  put(ws, 'src/a.ts', numbered(50))
  const out = await expandChunk(ws, chunk('src/a.ts', 25, 30), 5)
  assert.equal(out, linesOf(20, 35))
  assert.equal(out.split('\n').length, 16)
  const d = await expandChunkDetailed(ws, chunk('src/a.ts', 25, 30), 5)
  assert.deepEqual(
    { ...d },
    { content: linesOf(20, 35), startLine: 20, endLine: 35, expanded: true, mode: 'lines', clipped: false, redactions: [] },
  )
  // clamped at both ends, and a huge contextLines is the whole file
  assert.equal(await expandChunk(ws, chunk('src/a.ts', 2, 3), 10), linesOf(1, 13))
  assert.equal(await expandChunk(ws, chunk('src/a.ts', 48, 49), 10), linesOf(38, 50))
  assert.equal(await expandChunk(ws, chunk('src/a.ts', 10, 10), 1e9), linesOf(1, 50))
})

test('contextLines <= 0 returns the content unchanged', async () => {
  const ws = workspace()
  put(ws, 'a.ts', numbered(50))
  const c = chunk('a.ts', 25, 30)
  assert.equal(await expandChunk(ws, c, 0), c.content)
  assert.equal(await expandChunk(ws, c, -3), c.content)
  const d = await expandChunkDetailed(ws, c, 0)
  assert.equal(d.expanded, false)
  assert.equal(d.reason, 'no_context')
  assert.equal(d.startLine, 25)
  assert.equal(d.endLine, 30)
})

test('a KnowledgeChunk expands like a TextChunk', async () => {
  const ws = workspace()
  put(ws, 'k.py', numbered(40))
  const k: KnowledgeChunk = { id: 'r1', score: 0.9, content: 'x', filePath: 'k.py', startLine: 25, endLine: 30, language: 'python' }
  assert.equal(await expandChunk(ws, k, 5), linesOf(20, 35))
})

test('failures return the original content, with the reason in the detailed variant', async () => {
  const outer = workspace()
  put(outer, 'secret.txt', 'TOP SECRET\n')
  const ws = join(outer, 'ws')
  put(ws, 'a.ts', numbered(10))
  put(ws, 'empty.ts', '')
  mkdirSync(join(ws, 'dir'))
  writeFileSync(join(ws, 'bin.dat'), Buffer.from([0, 1, 2, 0, 255]))
  symlinkSync(join(outer, 'secret.txt'), join(ws, 'link.txt'))
  const cases: Array<[string, number, number, string]> = [
    ['missing.ts', 1, 2, 'not_found'],
    ['../secret.txt', 1, 1, 'outside_workspace'],
    [join(outer, 'secret.txt'), 1, 1, 'outside_workspace'],
    ['link.txt', 1, 1, 'outside_workspace'],
    ['empty.ts', 1, 1, 'empty_file'],
    ['dir', 1, 1, 'not_a_file'],
    ['bin.dat', 1, 1, 'binary'],
    ['a.ts', 20, 25, 'out_of_range'],
    ['a.ts', 5, 3, 'invalid_range'],
    ['', 1, 1, 'invalid_path'],
  ]
  for (const [path, s, e, reason] of cases) {
    const c = chunk(path, s, e)
    assert.equal(await expandChunk(ws, c, 3), c.content, path)
    const d = await expandChunkDetailed(ws, c, 3)
    assert.equal(d.expanded, false, path)
    assert.equal(d.reason, reason, path)
    assert.equal(d.content, c.content)
    assert.ok(!d.content.includes('SECRET'))
  }
  for (const bad of ['relative/ws', join(outer, 'no-such-dir')]) {
    const d = await expandChunkDetailed(bad, chunk('a.ts', 1, 1), 3)
    assert.equal(d.reason, 'invalid_workspace')
  }
  // an absolute path inside the workspace is fine
  assert.equal(await expandChunk(ws, chunk(join(ws, 'a.ts'), 5, 5), 1), linesOf(4, 6))
})

test('secrets in the expanded lines are redacted unless redact: false', async () => {
  const ws = workspace()
  // a fake token with a varied body, assembled at run time
  const body = Array.from({ length: 36 }, (_, i) => 'aB3xQ9mZ7kR2'[(i * 7 + 3) % 12]).join('')
  const token = ['ghp', body].join('_')
  put(ws, 'cfg.ts', numbered(20).replace('line 12\n', `const token = "${token}"\n`))
  const d = await expandChunkDetailed(ws, chunk('cfg.ts', 10, 10), 3)
  assert.ok(!d.content.includes(token))
  assert.match(d.content, /\[REDACTED:github_token\]/)
  assert.deepEqual(d.redactions, [{ kind: 'github_token', line: 12 }])
  assert.ok(!(await expandChunk(ws, chunk('cfg.ts', 10, 10), 3)).includes(token))
  const raw = await expandChunkDetailed(ws, chunk('cfg.ts', 10, 10), 3, { redact: false })
  assert.ok(raw.content.includes(token))
  assert.deepEqual(raw.redactions, [])
  await assert.rejects(expandChunk(ws, chunk('cfg.ts', 10, 10), 3, { redact: 'no' as never }), isInvalid)
})

test('structure mode widens to the enclosing method, class or function', async () => {
  const ws = workspace()
  put(
    ws,
    'svc.ts',
    [
      "import { a } from './a'",
      '',
      'export class Service {',
      '  /** Runs it. */',
      '  run(x: number): number {',
      '    const y = x * 2',
      '    return y',
      '  }',
      '}',
      '',
    ].join('\n'),
  )
  const d = await expandChunkDetailed(ws, chunk('svc.ts', 6, 6), 1, { mode: 'structure' })
  assert.equal(d.mode, 'structure')
  assert.equal(d.blockKind, 'method')
  assert.deepEqual([d.startLine, d.endLine], [4, 8])
  assert.ok(d.content.startsWith('  /** Runs it. */'))
  const capped = await expandChunkDetailed(ws, chunk('svc.ts', 6, 6), 1, { mode: 'structure', maxLines: 3 })
  assert.deepEqual([capped.startLine, capped.endLine, capped.clipped], [5, 7, true])
  // the import line is in no block: line mode
  const top = await expandChunkDetailed(ws, chunk('svc.ts', 1, 1), 1, { mode: 'structure' })
  assert.deepEqual([top.mode, top.fallback, top.startLine, top.endLine], ['lines', 'no_enclosing_block', 1, 2])
  put(ws, 'notes.md', numbered(20))
  const md = await expandChunkDetailed(ws, chunk('notes.md', 10, 10), 2, { mode: 'structure' })
  assert.deepEqual([md.mode, md.fallback, md.content], ['lines', 'unsupported_language', linesOf(8, 12)])
  // lines mode is the default
  assert.equal((await expandChunkDetailed(ws, chunk('svc.ts', 6, 6), 1)).content, '  run(x: number): number {\n    const y = x * 2\n    return y')
})

test('malformed arguments reject with invalid_request (never a synchronous throw)', async () => {
  const ws = workspace()
  put(ws, 'a.ts', numbered(5))
  const good = chunk('a.ts', 1, 1)
  const calls: Array<() => Promise<unknown>> = [
    () => expandChunk(42 as never, good, 1),
    () => expandChunk(ws, null as never, 1),
    () => expandChunk(ws, [good] as never, 1),
    () => expandChunk(ws, 'a.ts' as never, 1),
    () => expandChunk(ws, { ...good, content: undefined } as never, 1),
    () => expandChunk(ws, { ...good, filePath: 7 } as never, 1),
    () => expandChunk(ws, { ...good, startLine: 0 }, 1),
    () => expandChunk(ws, { ...good, startLine: 1.5 }, 1),
    () => expandChunk(ws, { ...good, endLine: Number.NaN }, 1),
    () => expandChunk(ws, { ...good, endLine: '3' } as never, 1),
    () => expandChunk(ws, { ...good, language: 5 } as never, 1),
    () => expandChunk(ws, good, Number.NaN),
    () => expandChunk(ws, good, Infinity),
    () => expandChunk(ws, good, 2.5),
    () => expandChunk(ws, good, '5' as never),
    () => expandChunk(ws, good, undefined as never),
    () => expandChunk(ws, good, 1, 'structure' as never),
    () => expandChunk(ws, good, 1, { mode: 'blocks' as never }),
    () => expandChunk(ws, good, 1, { maxLines: 0 }),
    () => expandChunk(ws, good, 1, { maxLines: -4 }),
    () => expandChunkDetailed(ws, good, Number.NaN),
    () => watchWorkspace('relative/path'),
    () => watchWorkspace(5 as never),
  ]
  for (const call of calls) {
    let promise: Promise<unknown> | undefined
    assert.doesNotThrow(() => {
      promise = call()
    })
    await assert.rejects(promise!, isInvalid)
  }
  // the message names the argument, never its value
  const secret = 'sk-THIS-IS-NOT-ECHOED'
  await assert.rejects(expandChunk(ws, { ...good, startLine: secret } as never, 1), (err: Error) => {
    assert.ok(!err.message.includes(secret))
    assert.match(err.message, /chunk\.startLine/)
    return true
  })
  // sync controls throw invalid_request
  assert.throws(() => invalidateFile(42 as never), isInvalid)
  assert.throws(() => invalidateFile('relative/file.ts'), isInvalid)
  assert.throws(() => invalidateDirectory(''), isInvalid)
  assert.throws(() => unwatchWorkspace(null as never), isInvalid)
  assert.throws(() => new ContextEngine({ fileCache: { maxFiles: -1 } }), isInvalid)
  assert.throws(() => new ContextEngine({ fileCache: { ttlMs: Number.NaN } }), isInvalid)
  assert.throws(() => new ContextEngine([] as never), isInvalid)
  assert.throws(() => new ContextEngine({ watch: 'yes' } as never), isInvalid)
})

test('the cache: hits, misses, limits, invalidation by components, clearing', async () => {
  const engine = new ContextEngine({ fileCache: { maxFiles: 3 } })
  const ws = workspace()
  for (const name of ['a/b/one.ts', 'a/b/deep/two.ts', 'a/bc/three.ts']) put(ws, name, numbered(20))
  const s0 = engine.fileCacheStats()
  assert.deepEqual(
    [s0.entries, s0.hits, s0.misses, s0.maxFiles, s0.maxFileLines, s0.ttlMs],
    [0, 0, 0, 3, 10_000, 300_000],
  )
  for (const name of ['a/b/one.ts', 'a/b/deep/two.ts', 'a/bc/three.ts']) {
    await engine.expandChunk(ws, chunk(name, 5, 5), 1)
  }
  await engine.expandChunk(ws, chunk('a/b/one.ts', 10, 10), 1)
  let s = engine.fileCacheStats()
  assert.deepEqual([s.entries, s.hits, s.misses], [3, 1, 3])
  assert.ok(s.bytes > 0)

  assert.equal(engine.invalidateDirectory(join(ws, 'a/b')), 2)
  assert.equal(engine.fileCacheStats().entries, 1)
  assert.equal(engine.invalidateFile(join(ws, 'a/bc/three.ts')), 1)
  assert.equal(engine.invalidateFile(join(ws, 'a/bc/three.ts')), 0)

  // a fourth file evicts the least recently used
  put(ws, 'x.ts', numbered(3))
  for (const name of ['a/b/one.ts', 'a/b/deep/two.ts', 'a/bc/three.ts', 'x.ts']) {
    await engine.expandChunk(ws, chunk(name, 1, 1), 1)
  }
  s = engine.fileCacheStats()
  assert.deepEqual([s.entries, s.evictions], [3, 1])
  assert.equal(engine.clearFileCache(), 3)
  assert.equal(engine.fileCacheStats().entries, 0)

  // the default engine is separate
  clearFileCache()
  const before = fileCacheStats()
  await expandChunk(ws, chunk('x.ts', 1, 1), 1)
  assert.equal(fileCacheStats().misses, before.misses + 1)
  assert.equal(invalidateFile(join(ws, 'x.ts')), 1)
  assert.equal(invalidateDirectory(ws), 0)
})

test('maxFileLines: longer files are served but not cached', async () => {
  const engine = new ContextEngine({ fileCache: { maxFileLines: 10 } })
  const ws = workspace()
  put(ws, 'long.ts', numbered(11))
  assert.equal(await engine.expandChunk(ws, chunk('long.ts', 11, 11), 1), linesOf(10, 11))
  const s = engine.fileCacheStats()
  assert.deepEqual([s.entries, s.uncacheable], [0, 1])
})

test('an edited file is never served stale', async () => {
  const engine = new ContextEngine()
  const ws = workspace()
  const p = put(ws, 'a.ts', 'one\ntwo\nthree\n')
  assert.equal(await engine.expandChunk(ws, chunk('a.ts', 2, 2), 1), 'one\ntwo\nthree')
  assert.equal(engine.fileCacheStats().entries, 1)
  writeFileSync(p, 'ONE\nTWO\nTHREE\n') // same size
  assert.equal(await engine.expandChunk(ws, chunk('a.ts', 2, 2), 1), 'ONE\nTWO\nTHREE')
  rmSync(p)
  const d = await engine.expandChunkDetailed(ws, chunk('a.ts', 2, 2), 1)
  assert.equal(d.reason, 'not_found')
})

test('watching a workspace drops changed files from the cache', async () => {
  const engine = new ContextEngine()
  const ws = workspace()
  const p = put(ws, 'w.ts', numbered(5))
  assert.equal(await engine.watchWorkspace(ws), true)
  assert.equal(await engine.watchWorkspace(ws), false)
  assert.equal(engine.fileCacheStats().watched, 1)
  await engine.expandChunk(ws, chunk('w.ts', 1, 1), 1)
  assert.equal(engine.fileCacheStats().entries, 1)
  writeFileSync(p, numbered(6))
  const deadline = Date.now() + 10_000
  while (engine.fileCacheStats().entries !== 0) {
    assert.ok(Date.now() < deadline, 'the change was not seen')
    await new Promise((r) => setTimeout(r, 10))
  }
  assert.equal(await engine.expandChunk(ws, chunk('w.ts', 6, 6), 1), linesOf(5, 6))
  assert.equal(engine.unwatchWorkspace(ws), true)
  assert.equal(engine.unwatchWorkspace(ws), false)
  assert.equal(engine.fileCacheStats().watched, 0)

  // the engine option watches every workspace it expands in
  const auto = new ContextEngine({ watch: true })
  await auto.expandChunk(ws, chunk('w.ts', 1, 1), 1)
  assert.equal(auto.fileCacheStats().watched, 1)
  // and the module-level functions
  assert.equal(await watchWorkspace(ws), true)
  assert.equal(unwatchWorkspace(ws), true)
})

test('1000 parallel expansions over 50 files while some change', async () => {
  const engine = new ContextEngine()
  const ws = workspace()
  const version = (file: number, v: number) => numbered(30, `f${file} v${v}`)
  for (let i = 0; i < 50; i++) put(ws, `f${i}.ts`, version(i, 0))
  const visible = new Array<number>(50).fill(0)
  const writer = (async () => {
    for (let round = 1; round <= 5; round++) {
      for (let i = round % 5; i < 50; i += 5) {
        const tmp = join(ws, `tmp${i}`)
        writeFileSync(tmp, version(i, round))
        renameSync(tmp, join(ws, `f${i}.ts`)) // atomic: readers see old or new, never half
        visible[i] = round
      }
      await new Promise((r) => setTimeout(r, 2))
    }
  })()
  const reads = Array.from({ length: 1000 }, async (_, k) => {
    const i = k % 50
    const floor = visible[i]
    const out = await engine.expandChunk(ws, chunk(`f${i}.ts`, 15, 15), 2)
    const v = Number(/^f\d+ v(\d+) /.exec(out)?.[1])
    assert.ok(v >= floor, `file ${i}: v${v} after v${floor} was visible`)
    assert.equal(out, linesOf(13, 17, `f${i} v${v}`))
  })
  await Promise.all([writer, ...reads])
  for (let i = 0; i < 50; i++) {
    const out = await engine.expandChunk(ws, chunk(`f${i}.ts`, 1, 1), 1)
    assert.ok(out.startsWith(`f${i} v${visible[i]} 1`), `file ${i} final`)
  }
  const s = engine.fileCacheStats()
  assert.equal(s.hits + s.misses, 1050)
})
