// Expansion benchmark (run by hand, never in CI; numbers go into BENCHMARKS.md).
//
//   npm run build && npm run bench:expand
//
// On 120 real source files (Rust, TypeScript, Python; 50 to 10,000 lines) copied into a temp
// workspace, with one 10-line chunk per file and contextLines 10:
// 1. latency p50/p99 of one awaited call at a time: expandChunk on a cache miss (cache
//    disabled) and on a hit (warm cache), structure mode likewise, and in the same run Node's
//    fs.promises.readFile + split + slice + join for the same chunks, plus two JS caches
//    (a Map, and a Map revalidated with fs.promises.stat as ours is);
// 2. throughput with 64 calls in flight (calls/s);
// 3. memory of a full cache: RSS growth after filling a 100-file cache of 10,000-line files.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { promises as fsp } from 'node:fs'
import { cpus, homedir, tmpdir } from 'node:os'
import { extname, join, relative } from 'node:path'

import { ContextEngine, type ExpandChunkOptions, type TextChunk } from '../lib/index.js'

const ROOT = join(__dirname, '..')
const CARGO = join(homedir(), '.cargo/registry/src')
const cargoCrate = (prefix: string) => {
  try {
    for (const index of readdirSync(CARGO)) {
      const hit = readdirSync(join(CARGO, index)).filter((c) => c.startsWith(prefix)).sort().pop()
      if (hit) return join(CARGO, index, hit, 'src')
    }
  } catch {}
  return ''
}
const PY = '/root/.pyenv/versions/3.11.7/lib/python3.11'
const SOURCES: Array<{ exts: string[]; dirs: string[]; take: number }> = [
  { exts: ['.rs'], dirs: [cargoCrate('tokio-1'), cargoCrate('regex-automata')], take: 40 },
  { exts: ['.ts'], dirs: [join(ROOT, 'node_modules/@napi-rs/cli/src'), join(ROOT, 'node_modules/typescript/lib')], take: 40 },
  { exts: ['.py'], dirs: [join(PY, 'asyncio'), join(PY, 'email'), join(PY, 'json'), join(PY, 'http'), join(PY, 'unittest')], take: 40 },
]

function walk(dir: string, exts: string[], out: string[]) {
  let names: string[]
  try {
    names = readdirSync(dir).sort()
  } catch {
    return
  }
  for (const name of names) {
    const full = join(dir, name)
    const st = statSync(full, { throwIfNoEntry: false })
    if (!st) continue
    if (st.isDirectory()) walk(full, exts, out)
    else if (st.isFile() && exts.includes(extname(name)) && !name.endsWith('.d.ts')) out.push(full)
  }
}

// A deterministic generator (the same chunks every run).
let seed = 42
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)

const ws = realpathSync(mkdtempSync(join(tmpdir(), 'ce-bench-expand-')))
const files: string[] = []
for (const src of SOURCES) {
  const found: string[] = []
  for (const d of src.dirs) if (d) walk(d, src.exts, found)
  let taken = 0
  for (const f of found) {
    if (taken >= src.take) break
    const lines = readFileSync(f, 'utf8').split('\n').length
    if (lines < 50 || lines > 10_000) continue
    const rel = join(extname(f).slice(1), String(taken).padStart(3, '0') + '-' + relative(src.dirs[0], f).replace(/[\\/]/g, '_'))
    mkdirSync(join(ws, extname(f).slice(1)), { recursive: true })
    cpSync(f, join(ws, rel))
    const past = new Date(Date.now() - 60_000)
    utimesSync(join(ws, rel), past, past)
    files.push(rel)
    taken++
  }
}
const lineCounts = new Map(files.map((f) => [f, readFileSync(join(ws, f), 'utf8').split('\n').length]))
const CONTEXT = 10
const chunks: TextChunk[] = files.map((f) => {
  const n = lineCounts.get(f)!
  const start = 1 + Math.floor(rand() * Math.max(1, n - 10))
  return { content: 'chunk', filePath: f, startLine: start, endLine: Math.min(n, start + 9) }
})
const totalBytes = files.reduce((s, f) => s + statSync(join(ws, f)).size, 0)

// --- Node baselines -----------------------------------------------------------------------
// Lines as File.ReadAllLines gives them (and expandChunk does): a final newline does not start
// another line.
const splitLines = (text: string) => {
  const lines = text.split('\n')
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop()
  return lines
}
const sliceLines = (lines: string[], c: TextChunk) => {
  const start = Math.max(0, c.startLine - CONTEXT - 1)
  const end = Math.min(lines.length, c.endLine + CONTEXT)
  return lines.slice(start, end).join('\n')
}
const nodeRead = async (c: TextChunk) => sliceLines(splitLines(await fsp.readFile(join(ws, c.filePath), 'utf8')), c)
const mapCache = new Map<string, string[]>()
const nodeMap = async (c: TextChunk) => {
  let lines = mapCache.get(c.filePath)
  if (!lines) mapCache.set(c.filePath, (lines = splitLines(await fsp.readFile(join(ws, c.filePath), 'utf8'))))
  return sliceLines(lines, c)
}
const statCache = new Map<string, { lines: string[]; size: number; mtimeMs: number }>()
const nodeStat = async (c: TextChunk) => {
  const p = join(ws, c.filePath)
  const st = await fsp.stat(p)
  let e = statCache.get(p)
  if (!e || e.size !== st.size || e.mtimeMs !== st.mtimeMs) {
    e = { lines: splitLines(await fsp.readFile(p, 'utf8')), size: st.size, mtimeMs: st.mtimeMs }
    statCache.set(p, e)
  }
  return sliceLines(e.lines, c)
}

// --- harness ------------------------------------------------------------------------------
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]
const us = (ms: number) => (ms * 1000).toFixed(1)

async function latency(name: string, fn: (c: TextChunk) => Promise<string>, rounds: number) {
  for (const c of chunks) await fn(c) // warm-up (fills caches where there are any)
  const times: number[] = []
  for (let r = 0; r < rounds; r++) {
    for (const c of chunks) {
      const t0 = performance.now()
      await fn(c)
      times.push(performance.now() - t0)
    }
  }
  times.sort((a, b) => a - b)
  return { name, p50: pct(times, 0.5), p99: pct(times, 0.99), n: times.length }
}

async function throughput(fn: (c: TextChunk) => Promise<string>, calls: number, inFlight = 64) {
  for (const c of chunks) await fn(c)
  let next = 0
  const t0 = performance.now()
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < calls) {
        const c = chunks[next++ % chunks.length]
        await fn(c)
      }
    }),
  )
  return calls / ((performance.now() - t0) / 1000)
}

// 3. Memory of a full cache, measured first (before anything else has grown the heap): 100
// synthetic files of 10,000 lines (the largest the cache keeps), about 45 MB of text.
async function memory() {
  const gc = (globalThis as { gc?: () => void }).gc
  const settle = () => {
    gc?.()
    gc?.()
  }
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'ce-bench-mem-')))
  const past = new Date(Date.now() - 60_000)
  const memChunks: TextChunk[] = []
  for (let f = 0; f < 100; f++) {
    const text = Array.from({ length: 10_000 }, (_, i) => `    let value_${i} = compute(${f}, ${i}); // line ${i + 1}`).join('\n') + '\n'
    writeFileSync(join(dir, `m${f}.ts`), text)
    utimesSync(join(dir, `m${f}.ts`), past, past)
    memChunks.push({ content: '', filePath: `m${f}.ts`, startLine: 5000, endLine: 5010 })
  }
  const fileBytes = memChunks.reduce((n, c) => n + statSync(join(dir, c.filePath)).size, 0)
  const engine = new ContextEngine()
  await engine.expandChunk(dir, memChunks[0], 1) // load the addon's lazy state first
  engine.clearFileCache()
  settle()
  const rss0 = process.memoryUsage().rss
  for (const c of memChunks) await engine.expandChunk(dir, c, CONTEXT)
  settle()
  const rss1 = process.memoryUsage().rss
  const s = engine.fileCacheStats()
  const mb = (n: number) => (n / 1024 / 1024).toFixed(1)
  console.log(
    `full cache: ${s.entries} files of 10,000 lines, ${mb(fileBytes)} MB on disk, stats.bytes ${mb(s.bytes)} MB, RSS +${mb(rss1 - rss0)} MB${gc ? '' : ' (run with --expose-gc)'}`,
  )
  engine.clearFileCache()
  settle()
  console.log(`after clearFileCache: RSS +${mb(process.memoryUsage().rss - rss0)} MB over the empty cache\n`)
  rmSync(dir, { recursive: true, force: true })
}

async function main() {
  console.log(`node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'})`)
  await memory()
  console.log(`${files.length} files, ${(totalBytes / 1024 / 1024).toFixed(2)} MB, contextLines ${CONTEXT}\n`)

  const cold = new ContextEngine({ fileCache: { maxFiles: 0 } })
  const big = new ContextEngine({ fileCache: { maxFiles: 1000 } })
  const structure = { mode: 'structure' as const }
  const raw = { redact: false }
  const ours = (e: ContextEngine, o?: ExpandChunkOptions) => (c: TextChunk) => e.expandChunk(ws, c, CONTEXT, o)

  // sanity: line mode gives the same text as the Node baseline (files have LF endings; our
  // reader also cuts lines over 2000 characters, so compare only where none are that long)
  let same = 0
  for (const c of chunks) if ((await ours(cold)(c)) === (await nodeRead(c))) same++
  console.log(`line mode equals readFile+split for ${same}/${chunks.length} chunks (redaction on: the corpus has no secrets)\n`)

  const rows = [
    await latency('expandChunk, miss (cache off)', ours(cold), 5),
    await latency('expandChunk, miss (cache off), redact: false', ours(cold, raw), 5),
    await latency('expandChunk, hit', ours(big), 20),
    await latency('expandChunk, hit, redact: false', ours(big, raw), 20),
    await latency('expandChunk structure, miss (cache off)', ours(cold, structure), 3),
    await latency('expandChunk structure, hit', ours(big, structure), 20),
    await latency('node readFile + split', nodeRead, 5),
    await latency('node Map cache (never revalidated)', nodeMap, 20),
    await latency('node Map cache + fs.stat revalidation', nodeStat, 20),
  ]
  console.log('| variant | calls | p50 (µs) | p99 (µs) |')
  console.log('|---|---|---|---|')
  for (const r of rows) console.log(`| ${r.name} | ${r.n} | ${us(r.p50)} | ${us(r.p99)} |`)

  const CALLS = 20_000
  const tput = [
    ['expandChunk, miss (cache off)', await throughput(ours(cold), CALLS)],
    ['expandChunk, miss (cache off), redact: false', await throughput(ours(cold, raw), CALLS)],
    ['expandChunk, hit', await throughput(ours(big), CALLS)],
    ['expandChunk structure, hit', await throughput(ours(big, structure), CALLS)],
    ['node readFile + split', await throughput(nodeRead, CALLS)],
    ['node Map cache + fs.stat revalidation', await throughput(nodeStat, CALLS)],
  ] as const
  console.log(`\n| variant (64 in flight, ${CALLS} calls) | calls/s |`)
  console.log('|---|---|')
  for (const [n, v] of tput) console.log(`| ${n} | ${Math.round(v)} |`)
  console.log(`\nhit-rate check: ${JSON.stringify({ hits: big.fileCacheStats().hits, misses: big.fileCacheStats().misses })}`)

  rmSync(ws, { recursive: true, force: true })
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
