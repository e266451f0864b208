// Several roots in one call against one root holding the same files, run by hand (results in
// BENCHMARKS.md). Two (or more) directories are the roots; a temporary folder holding a copy of
// each (as `<name>/`) is the single root. Each measurement runs in a fresh Node process through
// the package's entry with default options, paired and alternated (multi, single, multi, ...):
//   cold = a new `ContextEngine()` and its first `retrieve` (walk + read + index + query)
//   warm = p50 / p95 of the next retrieves, one per prompt, three rounds
// and `rg -c struct` over the same roots in the same run as the reference. It also checks
// that the two answers agree (the same top 10, paths and scores, up to the root prefix) for
// every prompt, and for each prompt followed by a second line (a prompt of several lines gets
// no centrality prior, the one signal measured within each root rather than over all).
//
//   node --import tsx benches/multi-root.bench.ts ROOT_A ROOT_B [...] [--runs 5] [--prompts FILE]
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join, resolve } from 'node:path'

const DEFAULT_PROMPTS = [
  'parse the request url and its query string',
  'serialize a map to json',
  'how are errors reported to the caller',
  'timeout while connecting to the host',
  'read the configuration file',
  'iterate over the elements of a collection',
  'encode bytes as base64',
  'retry a failed request',
  'format a number with a precision',
  'where are http headers parsed',
  'deserialize a struct from a string',
  'close the connection when the response ends',
  'log a warning message',
  'compare two values for equality',
  'test the parser with invalid input',
  'buffer the body of a response',
  'handle a cookie header',
  'the main entry point of the program',
  'free the memory of a handle',
  'escape special characters in a string',
]

/** What one child process measures: cold ms, warm ms per query, the top 10 per prompt. */
interface Measured {
  cold: number
  warm: number[]
  tops: string[][]
  /** The top 10 of each prompt followed by a second line (not timed). */
  tops2: string[][]
}

function child(): void {
  const spec = JSON.parse(process.env.MULTI_ROOT_BENCH as string) as { roots: string[]; single?: string; prompts: string[]; labels: string[] }
  // Loaded here so that a parent process never loads the addon.
  const { ContextEngine } = require('../lib/index.js') as typeof import('../lib/index.js')
  const engine = new ContextEngine()
  const request = (prompt: string) => {
    const common = { prompt, spaceId: 'bench', sessionId: 'bench', providerId: 'mcp' as const, limit: 10 }
    return spec.single ? { ...common, rootPath: spec.single } : { ...common, rootPaths: spec.roots }
  }
  const label = (s: { root: string; path: string; score: number }) =>
    `${spec.single ? s.path : `${spec.labels[spec.roots.indexOf(s.root)]}/${s.path}`} ${s.score.toFixed(4)}`
  void (async () => {
    let t = performance.now()
    await engine.retrieve(request(spec.prompts[0]))
    const cold = performance.now() - t
    const warm: number[] = []
    const tops: string[][] = []
    for (let round = 0; round < 3; round++) {
      for (const p of spec.prompts) {
        t = performance.now()
        const out = await engine.retrieve(request(p))
        warm.push(performance.now() - t)
        if (round === 0) tops.push(out.map(label))
      }
    }
    const tops2: string[][] = []
    for (const p of spec.prompts) tops2.push((await engine.retrieve(request(`${p}\nin this code`))).map(label))
    process.stdout.write(JSON.stringify({ cold, warm, tops, tops2 } satisfies Measured))
  })()
}

function run(spec: object): Measured {
  const r = spawnSync(process.execPath, ['--import', 'tsx', __filename], {
    env: { ...process.env, MULTI_ROOT_BENCH: JSON.stringify(spec) },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  })
  if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`)
  return JSON.parse(r.stdout) as Measured
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor((s.length - 1) / 2)]
}
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]
}

function rgMs(roots: string[]): number {
  const t = performance.now()
  spawnSync('rg', ['-c', 'struct', ...roots], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
  return performance.now() - t
}

function main(): void {
  const argv = process.argv.slice(2)
  const opt = (name: string) => {
    const i = argv.indexOf(`--${name}`)
    if (i < 0) return undefined
    const v = argv[i + 1]
    argv.splice(i, 2)
    return v
  }
  const runs = Number(opt('runs') ?? 5)
  const promptsFile = opt('prompts')
  const prompts = promptsFile
    ? readFileSync(promptsFile, 'utf8').split('\n').map((l) => l.trim()).filter(Boolean)
    : DEFAULT_PROMPTS
  const roots = argv.map((r) => resolve(r))
  if (roots.length < 2) throw new Error('usage: multi-root.bench.ts ROOT_A ROOT_B [...] [--runs N] [--prompts FILE]')
  const labels = roots.map((r, i) => `${i}-${basename(r)}`)
  const union = mkdtempSync(join(tmpdir(), 'ce-multi-bench-'))
  try {
    roots.forEach((r, i) => cpSync(r, join(union, labels[i]), { recursive: true }))
    const files = Number(execFileSync('sh', ['-c', `find ${JSON.stringify(union)} -type f | wc -l`], { encoding: 'utf8' }))
    const multi: Measured[] = []
    const single: Measured[] = []
    const rg: number[] = []
    for (let k = 0; k < runs; k++) {
      rg.push(rgMs(roots))
      multi.push(run({ roots, prompts, labels }))
      single.push(run({ roots, single: union, prompts, labels }))
    }
    let same = 0
    let same2 = 0
    for (let p = 0; p < prompts.length; p++) {
      if (JSON.stringify(multi[0].tops[p]) === JSON.stringify(single[0].tops[p])) same++
      if (JSON.stringify(multi[0].tops2[p]) === JSON.stringify(single[0].tops2[p])) same2++
    }
    const row = (name: string, ms: Measured[]) =>
      `| ${name} | ${median(ms.map((m) => m.cold)).toFixed(0)} | ${median(ms.map((m) => median(m.warm))).toFixed(2)} | ${median(ms.map((m) => pct(m.warm, 95))).toFixed(2)} |`
    console.log(`${roots.length} roots (${roots.map((r) => r.split("/").slice(-2).join("/")).join(', ')}), ${files} files in all; ${prompts.length} prompts x 3; ${runs} paired runs, medians; Node ${process.version}`)
    console.log('| call | cold to first answer (ms) | warm p50 (ms) | warm p95 (ms) |')
    console.log('| --- | --- | --- | --- |')
    console.log(row(`rootPaths: [${roots.length} roots]`, multi))
    console.log(row('rootPath: one folder holding copies of them', single))
    console.log(`| rg -c struct over the roots (same run) | ${median(rg).toFixed(0)} | | |`)
    console.log(
      `same top 10 (paths up to the root prefix, scores to 4 decimals): ${same} of ${prompts.length} one-line prompts, ${same2} of ${prompts.length} with a second line`,
    )
  } finally {
    rmSync(union, { recursive: true, force: true })
  }
}

if (process.env.MULTI_ROOT_BENCH) child()
else main()
