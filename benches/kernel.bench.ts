// Retrieval at kernel scale, run by hand (results in BENCHMARKS.md): cold build with progress,
// warm latency over 40 mixed prompts, freshness (edit, new, delete seen by the next call),
// memory, restart with indexCacheDir, and ripgrep over the same tree in the same run as the
// reference. Works on any tree (`--root`); the prompts are the kernel's unless `--prompts small`
// (the tree of benches/gen-small-tree.ts) or `--prompts messages` (pasted kernel messages).
//
//   node --expose-gc --import tsx benches/kernel.bench.ts --root DIR [--addon PATH] [--cache-dir DIR]
//        [--prompts kernel|small|messages] [--rounds 3] [--max-files N] [--dump FILE]
// Peak RSS: run under `/usr/bin/time -v`. `--addon` loads another build of the addon (for a
// before/after in the same run). `--dump` writes every prompt's results (source and score) of the
// last round, to check that two builds answer identically. With `--cache-dir` the script also measures a restart: a second
// engine on the same cache directory, time to its first answer.
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync, statSync, writeFileSync, rmSync, mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { createRequire } from 'node:module'
import { KERNEL } from './kernel-prompts'

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback
}

// Pasted kernel messages (each a string constant of the tree), for the cost of looking the
// messages up in the top files' text: `--prompts messages`.
const MESSAGES = [
  'VFS: Unable to mount root fs on unknown-block(0,0)',
  'Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000009',
  'BUG: scheduling while atomic: swapper/0/0/0x00000002',
  'WARNING: possible circular locking dependency detected',
  'Out of memory: Killed process 1234 (java) total-vm:123456kB',
  'usb 1-1: device descriptor read/64, error -71',
  'EXT4-fs error (device sda1): ext4_find_entry: reading directory lblock 0',
  'watchdog: BUG: soft lockup - CPU#3 stuck for 22s! [kworker/3:1:123]',
  'nfs: server 10.0.0.1 not responding, still trying',
  'e1000e 0000:00:19.0 eth0: Detected Hardware Unit Hang',
]
const SMALL = Array.from({ length: 40 }, (_, k) => {
  const ids = ['getUserItem', 'parseConfigItem', 'flushCacheItem', 'sendRequestItem']
  return k % 2 === 0 ? `${ids[k % 4]}${k * 4999}` : ['retry the request when the socket times out', 'validate the schema of a config', 'encode the token into a header', 'dispatch an event to every listener'][k % 4]
})

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]
}
const mb = (n: number) => `${(n / 1e6).toFixed(0)} MB`
/** Linux: resident anonymous memory (heap) and resident file pages (code, mapped files). */
function procStatus(): string {
  try {
    const s = readFileSync('/proc/self/status', 'utf8')
    const f = (k: string) => s.match(new RegExp(`^${k}:\\s*(\\d+) kB`, 'm'))?.[1]
    return `RssAnon ${Math.round(Number(f('RssAnon')) / 1000)} MB, RssFile ${Math.round(Number(f('RssFile')) / 1000)} MB`
  } catch {
    return 'no /proc/self/status'
  }
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function main(): Promise<void> {
  const root = resolve(arg('root', ''))
  if (!arg('root', '')) throw new Error('--root DIR is required')
  const addon = resolve(arg('addon', join(__dirname, '..', 'dist', 'index.js')))
  const { ContextEngine } = createRequire(__filename)(addon)
  const set = arg('prompts', 'kernel')
  const prompts = set === 'small' ? SMALL : set === 'messages' ? MESSAGES : KERNEL
  const rounds = Number(arg('rounds', '3'))
  const cacheDir = arg('cache-dir', '')
  console.log(`root ${root}\naddon ${addon}\nnode ${process.version}, ${new Date().toISOString()}`)

  // Reference: one ripgrep pass over the tree for an identifier, same run.
  let t = performance.now()
  try {
    execFileSync('rg', ['-c', '--no-messages', 'copy_from_user', root], { stdio: ['ignore', 'ignore', 'ignore'] })
  } catch {}
  const rg = performance.now() - t
  t = performance.now()
  let rgFiles = 0
  try {
    rgFiles = execFileSync('rg', ['--files', root], { maxBuffer: 1 << 30 }).toString().split('\n').length - 1
  } catch {}
  console.log(`ripgrep            'copy_from_user' over the tree ${rg.toFixed(0)} ms; rg --files: ${rgFiles} files in ${(performance.now() - t).toFixed(0)} ms`)

  const maxFiles = arg('max-files', '')
  const options: Record<string, unknown> = cacheDir ? { indexCacheDir: cacheDir } : {}
  if (maxFiles) options.maxFilesPerRoot = Number(maxFiles)
  const engine = new ContextEngine(options)
  const ask = (e: any, prompt: string) =>
    e.retrieve({ prompt, spaceId: 'bench', sessionId: 'bench', rootPath: root, providerId: 'mcp', limit: 20 })
  let peak = process.memoryUsage().rss
  const rss0 = peak
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss)
  }, 50)
  t = performance.now()
  const first = ask(engine, prompts[0])
  let progress = ''
  const poll = setInterval(() => {
    const s = engine.indexStatus(root)
    progress = `${s.state} ${s.filesRead}/${s.filesTotal ?? '?'}`
  }, 1000)
  await first
  clearInterval(poll)
  const cold = performance.now() - t
  const peakBuild = Math.max(peak, process.memoryUsage().rss)
  const status = engine.indexStatus(root)
  console.log(`cold first answer  ${(cold / 1000).toFixed(2)} s  (last progress seen: ${progress || 'none'})`)
  console.log(`index              ${status.files} files, ${status.chunks} chunks, ${status.terms} terms, ${mb(status.bytes)} estimated; mode ${status.freshness ?? 'n/a'}`)
  if (status.ignoredFiles !== undefined) console.log(`coverage           ignored ${status.ignoredFiles}, skipped ${JSON.stringify(status.skipped)}, warnings ${JSON.stringify(status.warnings)}`)
  const rssBuilt = process.memoryUsage().rss

  const warm: number[] = []
  let dump = ''
  for (let r = 0; r < rounds; r++) {
    for (const p of prompts) {
      t = performance.now()
      const res = await ask(engine, p)
      warm.push(performance.now() - t)
      if (r === rounds - 1) dump += `## ${p}\n${res.map((s: any) => `${s.source} ${s.score}\n`).join('')}`
    }
  }
  if (arg('dump', '')) writeFileSync(arg('dump', ''), dump)
  console.log(`warm (${warm.length} calls, ${prompts.length} prompts) p50 ${pct(warm, 50).toFixed(1)} ms  p95 ${pct(warm, 95).toFixed(1)} ms  max ${Math.max(...warm).toFixed(1)} ms`)

  // Freshness: an edit, a new file, a deletion, each asked right after.
  const dir = join(root, 'zz_bench_fresh')
  mkdirSync(dir, { recursive: true })
  const f = join(dir, 'probe.c')
  writeFileSync(f, 'int benchProbeAlpha(void) { return 1; }\n')
  t = performance.now()
  const a = await ask(engine, 'benchProbeAlpha')
  const tNew = performance.now() - t
  writeFileSync(f, 'int benchProbeBravo(void) { return 2; }\n')
  t = performance.now()
  const b = await ask(engine, 'benchProbeBravo')
  const tEdit = performance.now() - t
  rmSync(dir, { recursive: true, force: true })
  t = performance.now()
  const c = await ask(engine, 'benchProbeBravo')
  const tDel = performance.now() - t
  const seen = a[0]?.path === 'zz_bench_fresh/probe.c' && b[0]?.path === 'zz_bench_fresh/probe.c' && !c.some((s: any) => s.path.startsWith('zz_bench_fresh/'))
  console.log(`freshness          new ${tNew.toFixed(0)} ms, edit ${tEdit.toFixed(0)} ms, delete ${tDel.toFixed(0)} ms; all seen by the next call: ${seen}`)
  // Let a background save finish, then measure steady memory.
  await sleep(cacheDir ? 15000 : 1000)
  if (global.gc) global.gc()
  clearInterval(sampler)
  const idle = process.memoryUsage().rss
  // Steady is measured after one more round of every prompt: an index read from its mapped
  // cache file counts the pages those queries touched.
  const mappedWarm: number[] = []
  for (const p of prompts) {
    t = performance.now()
    await ask(engine, p)
    mappedWarm.push(performance.now() - t)
  }
  if (global.gc) global.gc()
  const steady = process.memoryUsage().rss
  console.log(`memory (RSS)       before ${mb(rss0)}, after build ${mb(rssBuilt)}, idle after the save ${mb(idle)}, steady (after one more round) ${mb(steady)}, peak sampled ${mb(peak)} (${mb(peakBuild)} until the first answer)`)
  console.log(`memory detail      ${procStatus()}; index ${mb(engine.indexStatus(root).bytes)} heap estimate, ${mb(engine.indexStatus(root).mappedBytes ?? 0)} read from the mapped cache file`)
  console.log(`warm, the round after the edits and their save (${engine.indexStatus(root).mappedBytes ? 'mapped' : 'heap'} index, ${mappedWarm.length} calls) p50 ${pct(mappedWarm, 50).toFixed(1)} ms  p95 ${pct(mappedWarm, 95).toFixed(1)} ms  max ${Math.max(...mappedWarm).toFixed(1)} ms`)

  if (cacheDir) {
    const bytes = readdirSync(cacheDir)
      .filter((n) => n.endsWith('.ceidx'))
      .reduce((sum, n) => sum + statSync(join(cacheDir, n)).size, 0)
    console.log(`index on disk      ${mb(bytes)}`)
    const again = new ContextEngine(options)
    t = performance.now()
    await ask(again, prompts[1])
    console.log(`restart            first answer ${(performance.now() - t).toFixed(0)} ms (files read ${again.indexStatus(root).filesRead})`)
    const restarted: number[] = []
    for (let r = 0; r < rounds; r++) {
      for (const p of prompts) {
        t = performance.now()
        await ask(again, p)
        restarted.push(performance.now() - t)
      }
    }
    console.log(`warm after restart (${restarted.length} calls) p50 ${pct(restarted, 50).toFixed(1)} ms  p95 ${pct(restarted, 95).toFixed(1)} ms  max ${Math.max(...restarted).toFixed(1)} ms; RSS ${mb(process.memoryUsage().rss)} (both engines), ${procStatus()}`)
  }
}

main().catch((err) => {
  console.error(`error (${err.code ?? 'unknown'}): ${err.message}`)
  process.exit(1)
})
