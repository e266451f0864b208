// Prompt-builder benchmarks (run by hand, never in CI; numbers go into BENCHMARKS.md).
//
//   npm run build && npm run bench:builders
//
// The success criteria of the context-builder spec (docs/design/context-builder-spec.md):
// latency  p50/p95 of 30 runs after 3 warm-ups of each builder, and of the context
//          sources, on a generated repository of 10,000 files with 1,000+ commits, a feature
//          branch with 30 changed files (some over 500 lines) and a binary file.
// memory   peak memory of one operation: each operation runs once in a fresh child process;
//          growth = VmHWM after the call - VmRSS before it (Linux /proc/self/status), the addon
//          already loaded. Includes a review whose diff carries a 50 MB text file. git's own
//          memory (a separate process) is not counted.
// size     review-context size vs "diff + full changed files" on real changes: the last 40
//          non-merge commits of a real repository (BENCH_REAL_REPO, a git directory; default
//          this repository; BENCH_REAL_PATH=src keeps commits touching src), each reviewed
//          against its parent. Sizes in o200k_base tokens.
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, existsSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'

import * as ce from '../lib/index.js'

const ROOT = join(__dirname, '..')

function git(cwd: string, args: string[], input?: string): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', input, maxBuffer: 1 << 30 })
}

function lines(n: number, tag: string): string {
  let s = ''
  for (let i = 1; i <= n; i++) s += `export const ${tag}_${i} = ${i} // line ${i} of ${tag}\n`
  return s
}

/** A 10,000-file repository with 1,000 commits, written with git fast-import. */
function generateRepo(dir: string): void {
  git(dir, ['init', '-q', '-b', 'main'])
  git(dir, ['config', 'user.name', 'Bench'])
  git(dir, ['config', 'user.email', 'bench@example.com'])
  const parts: string[] = []
  let mark = 0
  const data = (s: string) => `data ${Buffer.byteLength(s)}\n${s}\n`
  const path = (i: number) => `src/pkg${String(i % 100).padStart(2, '0')}/file${String(i).padStart(5, '0')}.ts`
  const size = (i: number) => (i % 50 === 0 ? 1500 : 40)
  let when = 1_700_000_000
  const commit = (msg: string, files: Array<[string, string]>, from?: string) => {
    mark += 1
    when += 60
    parts.push(`commit refs/heads/main\nmark :${mark}\ncommitter Bench <bench@example.com> ${when} +0000\n${data(msg)}`)
    if (from) parts.push(`from ${from}\n`)
    for (const [p, c] of files) parts.push(`M 100644 inline ${p}\n${data(c)}`)
    parts.push('\n')
  }
  const first: Array<[string, string]> = []
  for (let i = 0; i < 10_000; i++) first.push([path(i), lines(size(i), `v0_f${i}`)])
  first.push(['CLAUDE.md', '# Conventions\n' + Array.from({ length: 200 }, (_, i) => `- rule ${i + 1}: keep things tidy\n`).join('')])
  first.push(['specs/tasks.md', Array.from({ length: 80 }, (_, i) => `- [ ] T${String(i + 1).padStart(3, '0')} implement part ${i + 1}\n`).join('')])
  commit('initial import', first)
  for (let c = 1; c < 1000; c++) {
    const files: Array<[string, string]> = []
    for (let k = 0; k < 3; k++) {
      const i = (c * 37 + k * 1009) % 10_000
      files.push([path(i), lines(size(i), `v${c}_f${i}`)])
    }
    commit(`change ${c}: touch three files`, files)
  }
  git(dir, ['fast-import', '--quiet'], parts.join(''))
  git(dir, ['checkout', '-q', '-f', 'main'])
  // the feature branch: 30 changed files (every 6th one large), a binary file
  git(dir, ['checkout', '-q', '-b', 'feature'])
  for (let k = 0; k < 30; k++) {
    const i = k * 300 + (k % 6 === 0 ? 50 - ((k * 300) % 50) : 1)
    const p = join(dir, path(i))
    const text = readFileSync(p, 'utf8').split('\n')
    for (const at of [5, Math.floor(text.length / 2), text.length - 3]) text[at] = `export const edited_${k}_${at} = true`
    writeFileSync(p, text.join('\n'))
  }
  writeFileSync(join(dir, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 13, 1, 2, 3, 0, 255]))
  git(dir, ['add', '-A'])
  git(dir, ['-c', 'commit.gpgsign=false', 'commit', '-q', '-m', 'feature work'])
}

function generateHugeDiffRepo(dir: string): void {
  git(dir, ['init', '-q', '-b', 'main'])
  git(dir, ['config', 'user.name', 'Bench'])
  git(dir, ['config', 'user.email', 'bench@example.com'])
  writeFileSync(join(dir, 'small.ts'), lines(100, 'small'))
  git(dir, ['add', '-A'])
  git(dir, ['-c', 'commit.gpgsign=false', 'commit', '-q', '-m', 'base'])
  git(dir, ['checkout', '-q', '-b', 'feature'])
  mkdirSync(join(dir, 'data'))
  const line = 'a plain line of generated text data used to make the file fifty megabytes long\n'
  writeFileSync(join(dir, 'data/big.txt'), line.repeat(Math.ceil((50 * 1024 * 1024) / line.length)))
  writeFileSync(join(dir, 'small.ts'), lines(101, 'small'))
  git(dir, ['add', '-A'])
  git(dir, ['-c', 'commit.gpgsign=false', 'commit', '-q', '-m', 'add a 50 MB file'])
  // and 50 MB more, staged but not committed, for diffContext (and the work-tree review)
  writeFileSync(join(dir, 'data/big2.txt'), line.toUpperCase().repeat(Math.ceil((50 * 1024 * 1024) / line.length)))
  git(dir, ['add', 'data/big2.txt'])
}

const TSC_OUTPUT = Array.from({ length: 20 }, (_, k) => {
  const i = (k * 500) % 10_000
  const p = `src/pkg${String(i % 100).padStart(2, '0')}/file${String(i).padStart(5, '0')}.ts`
  return `${p}(${(k % 30) + 5},3): error TS2322: Type 'number' is not assignable to type 'string'.`
}).join('\n')

const ISSUE = {
  number: 7,
  title: 'Crash in the parser',
  body: Array.from({ length: 10 }, (_, k) => `- see src/pkg${String(k * 7).padStart(2, '0')}/file${String(k * 7 + 100).padStart(5, '0')}.ts:12`).join('\n'),
  labels: ['bug'],
  state: 'open',
  assignees: [],
  url: 'https://github.com/example/repo/issues/7',
}

type Op = { name: string; run: (root: string) => Promise<unknown> }
const OPS: Op[] = [
  { name: 'buildImplementationContext', run: (r) => ce.buildImplementationContext('specs/tasks.md', r) },
  { name: 'buildReviewContext', run: (r) => ce.buildReviewContext(r, 'main') },
  { name: 'buildFixContext', run: (r) => ce.buildFixContext(TSC_OUTPUT, [], r) },
  { name: 'buildIssueContext', run: (r) => ce.buildIssueContext(ISSUE, r) },
  { name: 'dirContext (src/pkg00)', run: (r) => ce.dirContext(join(r, 'src/pkg00')) },
  { name: 'dirContext (whole repo)', run: (r) => ce.dirContext(r) },
  { name: 'diffContext', run: (r) => ce.diffContext(r) },
]

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
}

async function latency(root: string): Promise<void> {
  console.log('\n## latency (ms), 30 runs after 3 warm-ups')
  console.log('| operation | p50 | p95 | max |')
  console.log('|---|---:|---:|---:|')
  for (const op of OPS) {
    for (let i = 0; i < 3; i++) await op.run(root)
    const times: number[] = []
    for (let i = 0; i < 30; i++) {
      const t = process.hrtime.bigint()
      await op.run(root)
      times.push(Number(process.hrtime.bigint() - t) / 1e6)
    }
    times.sort((a, b) => a - b)
    console.log(`| ${op.name} | ${pct(times, 50).toFixed(1)} | ${pct(times, 95).toFixed(1)} | ${times[times.length - 1].toFixed(1)} |`)
  }
}

function status(): { rss: number; hwm: number } {
  const s = readFileSync('/proc/self/status', 'utf8')
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)![1])
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') }
}

async function childOp(name: string, root: string): Promise<void> {
  const op = OPS.find((o) => o.name === name)!
  ce.estimateTokens('warm the addon')
  global.gc?.()
  const before = status()
  const result = await op.run(root)
  const after = status()
  const bytes = Buffer.byteLength(JSON.stringify(result))
  process.stdout.write(JSON.stringify({ before, after, bytes, meta: (result as { _metadata?: { warnings: string[] } })._metadata?.warnings?.slice(0, 3) }))
}

function memory(root: string, hugeRoot: string): void {
  console.log('\n## peak RSS growth of one operation (child process, MiB)')
  console.log('| operation | repository | RSS before | peak growth | result size |')
  console.log('|---|---|---:|---:|---:|')
  const runs: Array<[string, string, string]> = OPS.map((o) => [o.name, root, '10,000 files'])
  runs.push(['buildReviewContext', hugeRoot, 'diff with a 50 MB file'])
  runs.push(['diffContext', hugeRoot, 'diff with a 50 MB file'])
  for (const [name, r, label] of runs) {
    const res = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', __filename, 'child', name, r], { encoding: 'utf8', maxBuffer: 1 << 26 })
    if (res.status !== 0) {
      console.log(`| ${name} | ${label} | failed: ${res.stderr.slice(0, 200)} |`)
      continue
    }
    const m = JSON.parse(res.stdout)
    const growth = (m.after.hwm - m.before.rss) / 1024
    console.log(`| ${name} | ${label} | ${(m.before.rss / 1024).toFixed(1)} | ${growth.toFixed(1)} | ${(m.bytes / 1024).toFixed(1)} KiB |`)
    if (m.meta && label.includes('50 MB')) console.log(`|  | warnings: ${m.meta.join('; ')} | | | |`)
  }
}

async function size(): Promise<void> {
  const source = process.env.BENCH_REAL_REPO ?? join(ROOT, '.git')
  const work = mkdtempSync(join(tmpdir(), 'ce-bench-real-'))
  try {
    execFileSync('git', ['clone', '-q', '--no-checkout', source, work])
    // BENCH_REAL_PATH limits the commits to those touching a path (e.g. `src`).
    const pathspec = process.env.BENCH_REAL_PATH ? ['--', process.env.BENCH_REAL_PATH] : []
    const commits = git(work, ['rev-list', '--no-merges', '--max-count=40', 'HEAD', ...pathspec]).trim().split('\n')
    let reviewed = 0
    let reviewNoLock = 0
    let fullNoLock = 0
    let review = 0
    let full = 0
    let largeFiles = 0
    let files = 0
    const rows: string[] = []
    for (const c of commits) {
      git(work, ['checkout', '-q', '-f', '--detach', c])
      let parent: string
      try {
        parent = git(work, ['rev-parse', '--verify', '-q', `${c}^`]).trim()
      } catch {
        continue
      }
      reviewed += 1
      const ctx = await ce.buildReviewContext(work, parent)
      // Token counts are summed per part (the diff, then each file); the diff is in both.
      const d = ce.countTokensSync(ctx.diff)
      let r = d
      let f = d
      for (const [p, kept] of Object.entries(ctx.changed_files)) {
        const text = readFileSync(join(work, p), 'utf8')
        const rk = ce.countTokensSync(kept)
        const fk = ce.countTokensSync(text)
        r += rk
        f += fk
        if (!/(\.lock|-lock\.json|lock\.yaml)$/.test(p)) {
          reviewNoLock += rk
          fullNoLock += fk
        }
        if (text.split('\n').length >= 500) largeFiles += 1
        files += 1
      }
      reviewNoLock += d
      fullNoLock += d
      review += r
      full += f
      rows.push(`${c.slice(0, 8)}: ${r} vs ${f}`)
    }
    console.log(`\n## review context vs diff + full files (${source}${pathspec.length ? ` -- ${pathspec[1]}` : ''}, ${reviewed} commits)`)
    console.log(`changed text files: ${files} (${largeFiles} of 500+ lines)`)
    console.log(`tokens (o200k_base): review ${review}, full ${full}, reduction ${(100 * (1 - review / full)).toFixed(1)}%`)
    console.log(`without lockfiles: review ${reviewNoLock}, full ${fullNoLock}, reduction ${(100 * (1 - reviewNoLock / fullNoLock)).toFixed(1)}%`)
    if (process.env.BENCH_VERBOSE) console.log(rows.join('\n'))
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

async function main(): Promise<void> {
  if (process.argv[2] === 'child') return childOp(process.argv[3], process.argv[4])
  const only = process.argv[2]
  console.log(`machine: ${cpus().length} x ${cpus()[0].model}, node ${process.version}, ${new Date().toISOString()}`)
  if (only === 'size') return size()
  const base = mkdtempSync(join(tmpdir(), 'ce-bench-'))
  const root = join(base, 'repo')
  const huge = join(base, 'huge')
  mkdirSync(root)
  mkdirSync(huge)
  try {
    let t = Date.now()
    generateRepo(root)
    const count = git(root, ['rev-list', '--count', 'HEAD']).trim()
    const nfiles = git(root, ['ls-files']).trim().split('\n').length
    console.log(`generated: ${nfiles} files, ${count} commits in ${((Date.now() - t) / 1000).toFixed(1)} s`)
    t = Date.now()
    generateHugeDiffRepo(huge)
    console.log(`generated the 50 MB diff repository in ${((Date.now() - t) / 1000).toFixed(1)} s`)
    if (!only || only === 'latency') await latency(root)
    if (!only || only === 'memory') memory(root, huge)
    if (!only) await size()
  } finally {
    if (existsSync(base)) rmSync(base, { recursive: true, force: true })
  }
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
