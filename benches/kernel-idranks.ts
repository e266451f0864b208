// Kernel identifier ranks (BENCHMARKS.md, "Kernel identifiers"): for the 16 identifier prompts of
// benches/kernel.bench.ts, the rank of the file that defines the identifier among the distinct
// files of the engine's 20 snippets (1 = the first file; `>20` = not among them), and how many
// are in the top 10. Reference in the same run: ripgrep, files containing the identifier as a
// word ordered by their number of matching lines (the grep baseline's order).
//
//   node --import tsx benches/kernel-idranks.ts --root DIR [--addon PATH] [--rounds 3] [--no-rg]
//   node --import tsx benches/kernel-idranks.ts --root DIR --dump FILE    # ranks of a kernel.bench.ts --dump
//
// DIR is the tree of benches/kernel-corpus.sh (Linux 6.1). Without --dump: a fresh engine with
// default options, one `retrieve` per prompt with `limit: 20` (the first one builds the index),
// then --rounds warm rounds over the 16 prompts for latency. With --dump, the ranks are read
// from the result lists another run wrote (the last round of `kernel.bench.ts --dump FILE`).
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, resolve } from 'node:path'

/** Each identifier prompt and the file that defines its identifier in Linux 6.1. */
export const IDENTIFIERS: Array<[prompt: string, identifier: string, definedIn: string]> = [
  ['copy_from_user', 'copy_from_user', 'include/linux/uaccess.h'],
  ['kmem_cache_alloc', 'kmem_cache_alloc', 'mm/slub.c'],
  ['spin_lock_irqsave', 'spin_lock_irqsave', 'include/linux/spinlock.h'],
  ['wake_up_process', 'wake_up_process', 'kernel/sched/core.c'],
  ['handle_mm_fault', 'handle_mm_fault', 'mm/memory.c'],
  ['schedule_timeout', 'schedule_timeout', 'kernel/time/timer.c'],
  ['`mutex_lock` deadlock', 'mutex_lock', 'kernel/locking/mutex.c'],
  ['alloc_pages returns NULL', 'alloc_pages', 'mm/mempolicy.c'],
  ['vfs_read', 'vfs_read', 'fs/read_write.c'],
  ['tcp_sendmsg', 'tcp_sendmsg', 'net/ipv4/tcp.c'],
  ['register_netdev', 'register_netdev', 'net/core/dev.c'],
  ['of_property_read_u32 in a device tree driver', 'of_property_read_u32', 'include/linux/of.h'],
  ['request_irq fails with EBUSY', 'request_irq', 'include/linux/interrupt.h'],
  ['dma_map_single', 'dma_map_single', 'include/linux/dma-mapping.h'],
  ['ext4_fill_super', 'ext4_fill_super', 'fs/ext4/super.c'],
  ['blk_mq_submit_bio', 'blk_mq_submit_bio', 'block/blk-mq.c'],
]

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback
}

/** 1-based rank of `file` among the distinct files of `paths` (in order), or 0 if absent. */
export function fileRank(paths: string[], file: string): number {
  const distinct = [...new Set(paths)]
  return distinct.indexOf(file) + 1
}

const shown = (rank: number, of = 20) => (rank === 0 ? `>${of}` : String(rank))

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]
}

/** The result lists of a `kernel.bench.ts --dump` file: prompt -> paths in order. */
function readDump(file: string): Map<string, string[]> {
  const lists = new Map<string, string[]>()
  let current: string[] | undefined
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('## ')) {
      current = []
      lists.set(line.slice(3), current)
    } else if (line && current) {
      // `path:start-end score`
      current.push(line.slice(0, line.lastIndexOf(' ')).replace(/:\d+-\d+$/, ''))
    }
  }
  return lists
}

/** ripgrep's order: files with the identifier as a word, most matching lines first. */
function rgRank(root: string, identifier: string, definedIn: string): { rank: number; files: number; ms: number } {
  const t = performance.now()
  let out = ''
  try {
    out = execFileSync('rg', ['-c', '-w', '--no-messages', identifier, '.'], { cwd: root, maxBuffer: 1 << 28 }).toString()
  } catch (e: any) {
    out = e.stdout?.toString() ?? ''
  }
  const ms = performance.now() - t
  const counts = out
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const i = l.lastIndexOf(':')
      return { path: l.slice(0, i).replace(/^\.\//, ''), n: Number(l.slice(i + 1)) }
    })
    .sort((a, b) => b.n - a.n || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  const rank = counts.findIndex((c) => c.path === definedIn) + 1
  return { rank, files: counts.length, ms }
}

async function main(): Promise<void> {
  const rootArg = arg('root', '')
  if (!rootArg) throw new Error('--root DIR is required (the tree of benches/kernel-corpus.sh)')
  const root = resolve(rootArg)
  for (const [, , file] of IDENTIFIERS) {
    if (!existsSync(join(root, file))) throw new Error(`${file} is not in ${root}: is it the Linux 6.1 tree?`)
  }
  const dumpFile = arg('dump', '')
  const withRg = !process.argv.includes('--no-rg')
  console.log(`root ${root}\nnode ${process.version}, ${new Date().toISOString()}`)

  const lists = new Map<string, string[]>()
  const latencies: number[] = []
  if (dumpFile) {
    const dump = readDump(dumpFile)
    for (const [prompt] of IDENTIFIERS) {
      const list = dump.get(prompt)
      if (!list) throw new Error(`the dump has no results for ${JSON.stringify(prompt)}`)
      lists.set(prompt, list)
    }
    console.log(`ranks from ${resolve(dumpFile)}`)
  } else {
    const addon = resolve(arg('addon', join(__dirname, '..', 'index.js')))
    const { ContextEngine } = createRequire(__filename)(addon)
    const engine = new ContextEngine()
    const ask = (prompt: string) =>
      engine.retrieve({ prompt, spaceId: 'bench', sessionId: 'bench', rootPath: root, providerId: 'mcp', limit: 20 })
    console.log(`addon ${addon}`)
    let t = performance.now()
    for (const [i, [prompt]] of IDENTIFIERS.entries()) {
      const res = await ask(prompt)
      lists.set(prompt, res.map((s: { path: string }) => s.path))
      if (i === 0) console.log(`cold first answer  ${((performance.now() - t) / 1000).toFixed(2)} s`)
    }
    console.log(`first pass         ${((performance.now() - t) / 1000).toFixed(2)} s for ${IDENTIFIERS.length} prompts (the first builds the index)`)
    const rounds = Number(arg('rounds', '3'))
    for (let r = 0; r < rounds; r++) {
      for (const [prompt] of IDENTIFIERS) {
        t = performance.now()
        await ask(prompt)
        latencies.push(performance.now() - t)
      }
    }
  }

  console.log('\n| prompt | defined in | engine rank (files of 20 snippets) | ripgrep rank (files, by matching lines) |')
  console.log('| --- | --- | ---: | ---: |')
  let top10 = 0
  let first = 0
  let rgTop10 = 0
  let rgMs = 0
  for (const [prompt, identifier, file] of IDENTIFIERS) {
    const rank = fileRank(lists.get(prompt)!, file)
    if (rank >= 1 && rank <= 10) top10++
    if (rank === 1) first++
    let rgCell = '-'
    if (withRg) {
      const rg = rgRank(root, identifier, file)
      rgMs += rg.ms
      if (rg.rank >= 1 && rg.rank <= 10) rgTop10++
      rgCell = `${rg.rank || '-'} of ${rg.files}`
    }
    const code = prompt.includes('`') ? `\`\` ${prompt} \`\`` : `\`${prompt}\``
    console.log(`| ${code} | ${file} | ${shown(rank)} | ${rgCell} |`)
  }
  console.log(`\nengine: ${top10} of ${IDENTIFIERS.length} in the top 10, ${first} first`)
  if (withRg) console.log(`ripgrep: ${rgTop10} of ${IDENTIFIERS.length} in the top 10 (${(rgMs / 1000).toFixed(1)} s for the ${IDENTIFIERS.length} passes)`)
  if (latencies.length) {
    console.log(`warm (${latencies.length} calls) p50 ${pct(latencies, 50).toFixed(1)} ms  p95 ${pct(latencies, 95).toFixed(1)} ms  max ${Math.max(...latencies).toFixed(1)} ms`)
  }
  const rss = process.memoryUsage().rss
  console.log(`RSS at the end ${(rss / 1e6).toFixed(0)} MB (peak: run under /usr/bin/time -v)`)
}

main().catch((err) => {
  console.error(`error (${err.code ?? 'unknown'}): ${err.message}`)
  process.exit(1)
})
