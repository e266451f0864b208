#!/usr/bin/env node
// Tokens to the answer: for every query of the retrieval DEV sets, how many o200k tokens an
// agent reads before it meets the first relevant snippet, against reading whole files in the
// order a ripgrep keyword ranking gives.
//
//   node benches/tokens-to-answer.mjs DATA_DIR BENCH_DIR [OUT_JSON]
//
// DATA_DIR is the retrieval data (commits/<repo>/, swe-dev/, semble-corpora/; see
// benches/data), BENCH_DIR the retrieval benchmark harness (its engines/grep_rank.py and
// semble/). Environment: SETS (default "commits issues semble"), REPOS (commit repositories,
// default "hono ripgrep pydantic"), LIMIT (results asked of each engine, default 50).
//
// Both engines run in fresh processes and speak the harness's JSON Lines protocol: this
// package's `context-engine serve --stdio` (default options) and the harness's grep_rank.py.
// - engine: its ranked snippets in order, each read as `path:start-end` plus its content, up to
//   and including the first snippet of a gold file (semble: of a labelled file, overlapping the
//   labelled lines when the label has them);
// - grep: the distinct files of grep_rank's order, each read whole, up to and including the
//   first gold file.
// Tokens are counted with the package's `countTokens` (o200k_base). A query whose answer is not
// among the results counts as not reached (above every threshold).
import { spawn } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import readline from 'node:readline'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
const require = createRequire(import.meta.url)
const { countTokens } = require(path.join(here, '..', 'dist', 'index.js'))

const [DATA, BENCH, OUT] = process.argv.slice(2)
if (!DATA || !BENCH) {
  process.stderr.write('usage: node benches/tokens-to-answer.mjs DATA_DIR BENCH_DIR [OUT_JSON]\n')
  process.exit(2)
}
const SETS = (process.env.SETS ?? 'commits issues semble').split(/\s+/).filter(Boolean)
const REPOS = (process.env.REPOS ?? 'hono ripgrep pydantic').split(/\s+/).filter(Boolean)
const LIMIT = Number(process.env.LIMIT ?? 50)

const readJsonl = (f) =>
  readFileSync(f, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l))

/** Every query as {set, group, id, root, prompt, isGold(path, start, end)}. */
function queries() {
  const out = []
  if (SETS.includes('commits')) {
    for (const r of REPOS) {
      const root = path.resolve(DATA, 'commits', r, 'corpus')
      for (const q of readJsonl(path.join(DATA, 'commits', r, 'queries.jsonl'))) {
        const gold = new Set(q.gold)
        out.push({ set: 'commits', group: r, id: q.id, root, prompt: q.prompt, isGold: (p) => gold.has(p) })
      }
    }
  }
  if (SETS.includes('issues')) {
    const base = path.join(DATA, 'swe-dev')
    for (const q of readJsonl(path.join(base, 'queries.jsonl'))) {
      const gold = new Set(q.gold)
      const root = path.resolve(base, q.root)
      out.push({ set: 'issues', group: (q.repo ?? q.id).split('/').pop(), id: q.id, root, prompt: q.prompt, isGold: (p) => gold.has(p) })
    }
  }
  if (SETS.includes('semble')) {
    const repos = JSON.parse(readFileSync(path.join(BENCH, 'semble', 'repos.json'), 'utf8'))
    const byName = new Map(repos.map((r) => [r.name, r]))
    for (const q of readJsonl(path.join(BENCH, 'semble', 'queries.jsonl'))) {
      const repo = byName.get(q.repo)
      const broot = !repo.benchmark_root || repo.benchmark_root === '.' ? '' : repo.benchmark_root.replace(/\/+$/, '') + '/'
      const root = path.resolve(DATA, 'semble-corpora', repo.name, broot || '.')
      const targets = [...(q.relevant ?? []), ...(q.secondary ?? [])]
        .filter((t) => t.path.startsWith(broot))
        .map((t) => ({ ...t, path: t.path.slice(broot.length) }))
      const isGold = (p, s, e) =>
        targets.some(
          (t) =>
            t.path === p &&
            (t.start_line == null || t.end_line == null || !((e ?? Infinity) < t.start_line || (s ?? 1) > t.end_line)),
        )
      out.push({ set: 'semble', group: repo.language, id: q.id, root, prompt: q.query, isGold })
    }
  }
  return out
}

/** A process speaking the harness protocol: one JSON request per line, one response per line. */
function engine(cmd, args, cwd) {
  const child = spawn(cmd, args, { cwd, stdio: ['pipe', 'pipe', 'ignore'] })
  const lines = readline.createInterface({ input: child.stdout })
  const waiting = []
  lines.on('line', (l) => waiting.shift()?.(JSON.parse(l)))
  return {
    ask(req) {
      return new Promise((resolve) => {
        waiting.push(resolve)
        child.stdin.write(JSON.stringify(req) + '\n')
      })
    },
    close() {
      child.stdin.end()
    },
  }
}

const fileTokens = new Map()
async function wholeFile(root, p) {
  const abs = path.isAbsolute(p) ? p : path.join(root, p)
  if (!fileTokens.has(abs)) {
    let n = 0
    try {
      n = await countTokens(readFileSync(abs, 'utf8'))
    } catch {
      n = 0
    }
    fileTokens.set(abs, n)
  }
  return fileTokens.get(abs)
}

const rel = (root, p) => (path.isAbsolute(p) ? path.relative(root, p) : p).split(path.sep).join('/')

async function engineTokens(q, results) {
  let total = 0
  for (const r of results) {
    total += await countTokens(`${r.path}:${r.startLine}-${r.endLine}\n${r.content ?? ''}\n`)
    if (q.isGold(rel(q.root, r.path), r.startLine, r.endLine)) return total
  }
  return Infinity
}

async function grepTokens(q, results) {
  let total = 0
  const seen = new Set()
  for (const r of results) {
    const p = rel(q.root, r.path)
    if (seen.has(p)) continue
    seen.add(p)
    total += await wholeFile(q.root, p)
    if (q.isGold(p)) return total
  }
  return Infinity
}

function summary(values) {
  const v = [...values].sort((a, b) => a - b)
  const at = (p) => v[Math.min(v.length - 1, Math.max(0, Math.ceil((p / 100) * v.length) - 1))]
  const share = (t) => v.filter((x) => x <= t).length / v.length
  return {
    n: v.length,
    median: at(50),
    p90: at(90),
    within2k: share(2000),
    within8k: share(8000),
    reached: share(Infinity - 1),
  }
}

const fmt = (x) => (x === Infinity ? 'not reached' : String(Math.round(x)))
const pct = (x) => `${(100 * x).toFixed(1)}%`

async function main() {
  const qs = queries()
  const repoRoot = path.join(here, '..')
  const ours = engine(process.execPath, [path.join(repoRoot, 'bin', 'context-engine.js'), 'serve', '--stdio'], repoRoot)
  const grep = engine('python3', [path.join(BENCH, 'engines', 'grep_rank.py')], repoRoot)
  const rows = []
  for (const q of qs) {
    const req = { id: q.id, root: q.root, prompt: q.prompt, limit: LIMIT }
    const [a, b] = await Promise.all([ours.ask(req), grep.ask(req)])
    rows.push({
      set: q.set,
      group: q.group,
      id: q.id,
      engine: await engineTokens(q, a.results ?? []),
      grep: await grepTokens(q, b.results ?? []),
    })
  }
  ours.close()
  grep.close()

  const groups = new Map()
  for (const r of rows) {
    for (const key of [r.set, `${r.set}/${r.group}`, 'all']) {
      if (!groups.has(key)) groups.set(key, [])
      groups.get(key).push(r)
    }
  }
  const table = []
  const header =
    '| set | queries | engine median | engine p90 | engine <= 2k | engine <= 8k | grep whole files median | grep p90 | grep <= 2k | grep <= 8k |'
  table.push(header, '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
  const order = [...groups.keys()].sort((x, y) => {
    const rank = (k) => (k === 'all' ? 2 : k.includes('/') ? 1 : 0)
    return x.split('/')[0].localeCompare(y.split('/')[0]) || rank(x) - rank(y) || x.localeCompare(y)
  })
  const result = {}
  for (const key of order) {
    const g = groups.get(key)
    const e = summary(g.map((r) => r.engine))
    const s = summary(g.map((r) => r.grep))
    result[key] = { engine: e, grep: s }
    table.push(
      `| ${key} | ${e.n} | ${fmt(e.median)} | ${fmt(e.p90)} | ${pct(e.within2k)} | ${pct(e.within8k)} | ${fmt(s.median)} | ${fmt(s.p90)} | ${pct(s.within2k)} | ${pct(s.within8k)} |`,
    )
  }
  process.stdout.write(table.join('\n') + '\n')
  if (OUT) {
    const finite = (x) => (x === Infinity ? null : x)
    const json = { summary: result, queries: rows.map((r) => ({ ...r, engine: finite(r.engine), grep: finite(r.grep) })) }
    writeFileSync(OUT, JSON.stringify(json, (k, v) => (v === Infinity ? null : v), 1))
  }
}

if (!existsSync(path.join(here, '..', 'dist', 'index.js'))) {
  process.stderr.write('build the package first: npx napi build --platform --release && npm run build:ts\n')
  process.exit(2)
}
main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`)
  process.exit(1)
})
