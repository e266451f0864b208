// Retrieval latency and index memory at scale, run by hand (`npm run bench:retrieve`; results in
// BENCHMARKS.md). Generates a deterministic synthetic repository of N source files (default
// 10000: TypeScript, Python and Rust modules with classes, functions and doc comments over a
// shared vocabulary), then measures through the addon, as an app would call it:
//   cold  = first retrieve on a fresh engine (walk + read + index + query)
//   warm  = p50/p95/max of later retrieves with different prompts (stat-only update + query)
//   edit  = a retrieve right after one file changed
//   memory = the index's own estimate and the process RSS growth
//
//   npm run bench:retrieve -- [--files 10000] [--queries 200] [--root DIR] [--keep] [--cache-dir DIR]
// With --root, the given directory is measured instead of a synthetic one. With --cache-dir,
// the engine saves/loads its index there (`indexCacheDir`): run twice to measure a restart.
import { mkdirSync, mkdtempSync, writeFileSync, rmSync, readdirSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { ContextEngine } from '../lib/index.js'
import { NOUNS, VERBS, rng } from './synth'

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback
}

function synth(root: string, files: number): string[] {
  const rand = rng(42)
  const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)]
  const cap = (s: string) => s[0].toUpperCase() + s.slice(1)
  const prompts: string[] = []
  for (let f = 0; f < files; f++) {
    const dir = `pkg${f % 97}/${pick(NOUNS)}`
    const a = pick(NOUNS)
    const b = pick(NOUNS)
    const kind = f % 3
    const name = `${a}_${b}_${f}`
    const lines: string[] = []
    for (let k = 0; k < 6; k++) {
      const v = pick(VERBS)
      const n = pick(NOUNS)
      const fn = `${v}${cap(n)}${cap(b)}${f}_${k}`
      if (kind === 0) {
        lines.push(`/** ${cap(v)} the ${n} of a ${b} (${a}). */`, `export function ${fn}(${n}: ${cap(b)}): ${cap(a)} {`)
        for (let j = 0; j < 8; j++) lines.push(`  const ${pick(NOUNS)}${j} = ${pick(VERBS)}${cap(pick(NOUNS))}(${n}, ${j})`)
        lines.push(`  return ${n} as unknown as ${cap(a)}`, '}', '')
      } else if (kind === 1) {
        lines.push(`def ${v}_${n}_${b}_${f}_${k}(${n}, ${a}=None):`, `    """${cap(v)} the ${n} of a ${b}."""`)
        for (let j = 0; j < 8; j++) lines.push(`    ${pick(NOUNS)}_${j} = ${pick(VERBS)}_${pick(NOUNS)}(${n}, ${j})`)
        lines.push(`    return ${n}`, '')
      } else {
        lines.push(`/// ${cap(v)} the ${n} of a ${b}.`, `pub fn ${v}_${n}_${b}_${f}_${k}(${n}: &${cap(b)}) -> ${cap(a)} {`)
        for (let j = 0; j < 8; j++) lines.push(`    let ${pick(NOUNS)}_${j} = ${pick(VERBS)}_${pick(NOUNS)}(${n}, ${j});`)
        lines.push(`    ${cap(a)}::from(${n})`, '}', '')
      }
      if (f % 50 === 0 && k === 0) prompts.push(`${v} the ${n} of a ${b} in ${a} ${fn}`)
    }
    const ext = ['ts', 'py', 'rs'][kind]
    mkdirSync(join(root, dir), { recursive: true })
    writeFileSync(join(root, dir, `${name}.${ext}`), lines.join('\n'))
  }
  return prompts
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]
}

async function main(): Promise<void> {
  const files = Number(arg('files', '10000'))
  const nQueries = Number(arg('queries', '200'))
  const given = arg('root', '')
  const root = given || mkdtempSync(join(tmpdir(), 'ce-bench-'))
  let prompts: string[]
  if (given) {
    prompts = ['error handling when a request times out', 'parse the configuration file', 'cache invalidation', 'router middleware order', 'write tests for the parser']
  } else {
    const t = performance.now()
    prompts = synth(root, files)
    console.log(`generated ${files} files in ${((performance.now() - t) / 1000).toFixed(1)} s under ${root}`)
    // A checkout is not being written while it is queried: let the 2 s "racy" window pass
    // (files modified within it are re-checked on every call, see ARCHITECTURE.md).
    await new Promise((r) => setTimeout(r, 2500))
  }
  const cacheDir = arg('cache-dir', '')
  const engine = new ContextEngine(cacheDir ? { indexCacheDir: cacheDir } : {})
  const ask = (prompt: string, redact = true) =>
    engine.retrieve({ prompt, spaceId: 'bench', sessionId: 'bench', rootPath: root, providerId: 'mcp', limit: 20, redact })

  const rss0 = process.memoryUsage().rss
  let t = performance.now()
  await ask(prompts[0])
  const cold = performance.now() - t
  const rss1 = process.memoryUsage().rss
  const status = engine.indexStatus(root)

  // Warm queries, each asked twice: as shipped (snippets redacted) and with `redact: false`,
  // so that the cost of redaction is measured in the same run. Which goes first alternates (the
  // second ask of a prompt finds the caches warm).
  const warm: number[] = []
  const warmRaw: number[] = []
  for (let i = 0; i < nQueries; i++) {
    const p = prompts[i % prompts.length]
    for (const redact of i % 2 === 0 ? [true, false] : [false, true]) {
      t = performance.now()
      await ask(p, redact)
      ;(redact ? warm : warmRaw).push(performance.now() - t)
    }
  }
  writeFileSync(join(root, 'edited.ts'), 'export function freshlyEditedFunction() { return 1 }\n')
  t = performance.now()
  const edited = await ask('freshlyEditedFunction')
  const edit = performance.now() - t
  if (edited[0]?.path !== 'edited.ts') throw new Error('the edit was not seen')

  console.log(`files indexed      ${status.files}  (${status.chunks} chunks, ${status.terms} terms)`)
  console.log(`cold first query   ${cold.toFixed(0)} ms  (${status.filesRead} files read)`)
  console.log(`warm (${nQueries} queries) p50 ${pct(warm, 50).toFixed(1)} ms  p95 ${pct(warm, 95).toFixed(1)} ms  max ${Math.max(...warm).toFixed(1)} ms`)
  console.log(`  same, redact: false p50 ${pct(warmRaw, 50).toFixed(1)} ms  p95 ${pct(warmRaw, 95).toFixed(1)} ms  max ${Math.max(...warmRaw).toFixed(1)} ms`)
  console.log(`query after an edit ${edit.toFixed(1)} ms (added file found)`)
  console.log(`index memory       ${(status.bytes / 1e6).toFixed(1)} MB estimated, RSS +${((rss1 - rss0) / 1e6).toFixed(1)} MB` +
    `  (${((status.bytes / Math.max(1, status.files)) * 10000 / 1e6).toFixed(1)} MB per 10k files)`)
  if (cacheDir) {
    const bytes = readdirSync(cacheDir)
      .filter((n) => n.endsWith('.ceidx'))
      .reduce((sum, n) => sum + statSync(join(cacheDir, n)).size, 0)
    console.log(`index cache file   ${(bytes / 1e6).toFixed(1)} MB in ${cacheDir}`)
  }
  if (!given && !process.argv.includes('--keep')) rmSync(root, { recursive: true, force: true })
}

main().catch((err) => {
  console.error(`error (${err.code ?? 'unknown'}): ${err.message}`)
  process.exit(1)
})
