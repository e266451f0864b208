// What a user sees when a tree is indexed cold, run by hand (results in BENCHMARKS.md): a fresh
// Node process, `new ContextEngine()` with default options (or the ones given), `prepareIndex(root)`,
// `indexStatus(root)` polled until `ready`; then warm latency over prompts, steady memory, and
// `rg -c struct` over the same tree in the same run as the reference (run before and after the
// build, the median reported, so a cold page cache does not favour either side).
//
//   node --expose-gc --import tsx benches/scale-probe.ts ROOT [ROOT...] [--addon PATH]
//        [--prompts kernel|small] [--rounds 3] [--cache-dir DIR] [--no-watch] [--via retrieve]
//        [--settle SECONDS]
//
// Times: `prepare` is when prepareIndex resolved, `ready` when indexStatus first said ready (polled
// every 20 ms), `rg` is one pass of `rg -c struct`. Memory: RSS sampled every 50 ms (peak), and
// after the warm rounds and a GC (steady), with RssAnon/RssFile from /proc/self/status.
// `--cache-dir DIR` sets indexCacheDir and also measures a restart (a second engine, first answer).
// `--no-watch` sets `watch: false`; `--via retrieve` times the first `retrieve` instead of
// prepareIndex (what benches/kernel.bench.ts calls the cold first answer).
import { execFileSync } from 'node:child_process'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, resolve } from 'node:path'
import { KERNEL } from './kernel-prompts'

const argv = process.argv.slice(2)
function opt(name: string, fallback: string): string {
  const i = argv.indexOf(`--${name}`)
  return i >= 0 && argv[i + 1] ? argv[i + 1] : fallback
}
const flags = new Set(['--addon', '--prompts', '--rounds', '--cache-dir', '--via', '--settle'])
const roots: string[] = []
for (let i = 0; i < argv.length; i++) {
  if (flags.has(argv[i])) i++
  else if (!argv[i].startsWith('--')) roots.push(resolve(argv[i]))
}
if (roots.length === 0) {
  console.error('usage: scale-probe.ts ROOT [ROOT...] [--addon PATH] [--prompts kernel|small] [--rounds N] [--cache-dir DIR]')
  process.exit(2)
}

// For the tree of benches/gen-small-tree.ts: the shared words, a few names, and nothing.
const SMALL = [
  'retry the request when the socket times out',
  'validate the schema of a config',
  'encode the token into a header',
  'dispatch an event to every listener',
  'parse the config and cache the result',
  'flush the buffer to the queue',
  'load user session token',
  'how is the request sent',
  'getUserItem4999',
  'parseConfigItem19996',
  'flushCacheItem44991',
  'sendRequestItem159992',
  'xylophone quasar zeppelin',
]

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]
}
const median = (xs: number[]) => pct(xs, 50)
const mb = (n: number) => `${(n / 1e6).toFixed(0)} MB`
function procStatus(): string {
  try {
    const s = readFileSync('/proc/self/status', 'utf8')
    const f = (k: string) => Number(s.match(new RegExp(`^${k}:\\s*(\\d+) kB`, 'm'))?.[1] ?? 0) / 1000
    return `RssAnon ${f('RssAnon').toFixed(0)} MB, RssFile ${f('RssFile').toFixed(0)} MB, VmHWM ${f('VmHWM').toFixed(0)} MB`
  } catch {
    return 'no /proc/self/status'
  }
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
function rgPass(root: string): number {
  const t = performance.now()
  // rg's CPU is a child's: not in process.cpuUsage(); wall time only.
  try {
    execFileSync('rg', ['-c', '--no-messages', 'struct', root], { stdio: ['ignore', 'ignore', 'ignore'] })
  } catch {}
  return performance.now() - t
}

async function main(): Promise<void> {
  const addon = resolve(opt('addon', join(__dirname, '..', 'dist', 'index.js')))
  const { ContextEngine } = createRequire(__filename)(addon)
  const prompts = opt('prompts', 'kernel') === 'small' ? SMALL : KERNEL
  const rounds = Number(opt('rounds', '3'))
  const cacheDir = opt('cache-dir', '')
  console.log(`roots ${roots.join(' ')}\naddon ${addon}\nnode ${process.version}, ${new Date().toISOString()}`)

  const rg: number[] = roots.map(() => 0)
  roots.forEach((r, k) => {
    rg[k] += rgPass(r)
  })
  console.log(`rg -c struct       ${rg.map((ms) => `${ms.toFixed(0)} ms`).join(', ')} (before the build)`)

  const options: Record<string, unknown> = cacheDir ? { indexCacheDir: cacheDir } : {}
  if (argv.includes('--no-watch')) options.watch = false
  const viaRetrieve = opt('via', 'prepareIndex') === 'retrieve'
  console.log(`options            ${JSON.stringify(options)}, cold via ${viaRetrieve ? 'the first retrieve' : 'prepareIndex + indexStatus'}`)
  const engine = new ContextEngine(options)
  let peak = process.memoryUsage().rss
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss)
  }, 50)
  for (const root of roots) {
    const t = performance.now()
    const cpu0 = process.cpuUsage()
    let prepared = 0
    const call = viaRetrieve
      ? engine.retrieve({ prompt: prompts[0], spaceId: 'probe', sessionId: 'probe', rootPath: root, providerId: 'mcp', limit: 20 })
      : engine.prepareIndex(root)
    const p = call.then(() => {
      prepared = performance.now() - t
    })
    let ready = 0
    while (!ready) {
      if (engine.indexStatus(root).state === 'ready') ready = performance.now() - t
      else await sleep(20)
    }
    await p
    const cpu = process.cpuUsage(cpu0)
    const s = engine.indexStatus(root)
    console.log(`cold               ${root}: ready ${(ready / 1000).toFixed(2)} s, ${viaRetrieve ? 'retrieve' : 'prepareIndex'} resolved ${(prepared / 1000).toFixed(2)} s, CPU ${(cpu.user / 1e6).toFixed(1)} s user + ${(cpu.system / 1e6).toFixed(1)} s system; ${s.files} files, ${s.chunks} chunks, ${s.terms} terms, ${mb(s.bytes)} estimated`)
  }
  const peakBuild = peak
  const rssBuilt = process.memoryUsage().rss

  // `--settle S`: wait S seconds before the warm calls (a background save or spill done).
  const settle = Number(opt('settle', '0'))
  if (settle > 0) await sleep(settle * 1000)
  const ask = (root: string, prompt: string) =>
    engine.retrieve({ prompt, spaceId: 'probe', sessionId: 'probe', rootPath: root, providerId: 'mcp', limit: 20 })
  const warm: number[] = []
  for (let r = 0; r < rounds; r++) {
    for (const root of roots) {
      for (const q of prompts) {
        const t = performance.now()
        await ask(root, q)
        warm.push(performance.now() - t)
      }
    }
  }
  await sleep(cacheDir ? 15000 : 1000)
  if (global.gc) global.gc()
  const steady = process.memoryUsage().rss
  clearInterval(sampler)
  roots.forEach((r, k) => {
    rg[k] += rgPass(r)
  })
  console.log(`rg -c struct       ${roots.map((r, k) => `${(rg[k] / 2).toFixed(0)} ms`).join(', ')} (mean of the passes before and after the build)`)
  console.log(`warm (${warm.length} calls) p50 ${median(warm).toFixed(1)} ms  p95 ${pct(warm, 95).toFixed(1)} ms  max ${Math.max(...warm).toFixed(1)} ms`)
  console.log(`memory (RSS)       after build ${mb(rssBuilt)}, peak ${mb(Math.max(peak, peakBuild))} (${mb(peakBuild)} during the build), steady ${mb(steady)}; ${procStatus()}`)
  const held = roots.map((r) => engine.indexStatus(r))
  console.log(`index              ${held.map((s) => `${mb(s.bytes)} on the heap, ${mb(s.mappedBytes ?? 0)} read from a mapped file`).join('; ')}`)
  if (cacheDir) {
    const bytes = readdirSync(cacheDir)
      .filter((n) => n.endsWith('.ceidx'))
      .reduce((sum, n) => sum + statSync(join(cacheDir, n)).size, 0)
    console.log(`index on disk      ${mb(bytes)}`)
    const again = new ContextEngine({ indexCacheDir: cacheDir })
    const t = performance.now()
    await again.retrieve({ prompt: prompts[1], spaceId: 'probe', sessionId: 'probe', rootPath: roots[0], providerId: 'mcp', limit: 20 })
    console.log(`restart            first answer ${(performance.now() - t).toFixed(0)} ms`)
  }
}

main().catch((err) => {
  console.error(`error (${err.code ?? 'unknown'}): ${err.message}`)
  process.exit(1)
})
