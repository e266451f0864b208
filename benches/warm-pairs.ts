// Warm retrieval latency of two package entries side by side in one Node process, on one tree:
// each builds its index with default options (`new ContextEngine()`, `prepareIndex`, then a
// wait for background work such as a save or the unnamed temporary file), then the prompts
// are asked of both, alternating which goes first, so that both see the same machine load.
//
//   node --expose-gc --import tsx benches/warm-pairs.ts ROOT BEFORE_ENTRY AFTER_ENTRY
//        [--rounds 3] [--settle 20] [--prompts kernel|small]
//
// Each entry is a package's dist/index.js (or lib/index.ts) with its release addon beside it.
// Prints p50 / p95 / mean of each side, how often the second entry was faster pair by pair and
// the median of the pairs' differences;
// `rg -c struct` over the tree before the calls, as the reference.
import { execFileSync } from 'node:child_process'
import { resolve } from 'node:path'
import { KERNEL } from './kernel-prompts'

const argv = process.argv.slice(2)
function opt(name: string, fallback: string): string {
  const i = argv.indexOf(`--${name}`)
  return i >= 0 && argv[i + 1] ? argv[i + 1] : fallback
}
const positional = argv.filter((a, i) => !a.startsWith('--') && !(i > 0 && argv[i - 1].startsWith('--')))
const [root, beforePath, afterPath] = positional.map((p) => resolve(p))
if (!root || !beforePath || !afterPath) {
  console.error('usage: warm-pairs.ts ROOT BEFORE_ENTRY AFTER_ENTRY [--rounds N] [--settle S]')
  process.exit(2)
}
const SMALL = ['retry the request when the socket times out', 'parse the config and cache the result', 'getUserItem4999']
const prompts = opt('prompts', 'kernel') === 'small' ? SMALL : KERNEL
const rounds = Number(opt('rounds', '3'))
const settle = Number(opt('settle', '20'))
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]
}

async function main(): Promise<void> {
  console.log(`root ${root}\nbefore ${beforePath}\nafter ${afterPath}\nnode ${process.version}, ${new Date().toISOString()}`)
  const t0 = performance.now()
  try {
    execFileSync('rg', ['-c', 'struct', root], { stdio: ['ignore', 'ignore', 'ignore'], maxBuffer: 1 << 30 })
  } catch {
    // rg exits 1 when nothing matches; the time is what counts.
  }
  console.log(`rg -c struct       ${(performance.now() - t0).toFixed(0)} ms`)
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const sides = [beforePath, afterPath].map((p) => new (require(p).ContextEngine)())
  for (const [k, engine] of sides.entries()) {
    const t = performance.now()
    await engine.prepareIndex(root)
    const s = engine.indexStatus(root)
    console.log(`${k ? 'after ' : 'before'} ready ${((performance.now() - t) / 1000).toFixed(1)} s, ${s.files} files`)
  }
  await sleep(settle * 1000)
  for (const [k, engine] of sides.entries()) {
    const s = engine.indexStatus(root)
    console.log(`${k ? 'after ' : 'before'} index ${(s.bytes / 1e6).toFixed(0)} MB on the heap, ${((s.mappedBytes ?? 0) / 1e6).toFixed(0)} MB mapped`)
  }
  if (global.gc) global.gc()
  const times: number[][] = [[], []]
  const diffs: number[] = []
  let afterFaster = 0
  let n = 0
  for (let r = 0; r < rounds; r++) {
    for (const [i, prompt] of prompts.entries()) {
      const order = (r + i) % 2 === 0 ? [0, 1] : [1, 0]
      const pair = [0, 0]
      for (const k of order) {
        const t = performance.now()
        await sides[k].retrieve({ prompt, spaceId: 'pairs', sessionId: 'pairs', rootPath: root, providerId: 'mcp', limit: 20 })
        pair[k] = performance.now() - t
        times[k].push(pair[k])
      }
      diffs.push(pair[1] - pair[0])
      if (pair[1] < pair[0]) afterFaster++
      n++
    }
  }
  for (const [k, xs] of times.entries()) {
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length
    console.log(`${k ? 'after ' : 'before'} warm (${xs.length} calls) p50 ${pct(xs, 50).toFixed(1)} ms  p95 ${pct(xs, 95).toFixed(1)} ms  mean ${mean.toFixed(1)} ms`)
  }
  console.log(`after faster in ${afterFaster} of ${n} pairs; median of after - before ${pct(diffs, 50).toFixed(2)} ms`)
}

main().catch((err) => {
  console.error(`error (${err.code ?? 'unknown'}): ${err.message}`)
  process.exit(1)
})
