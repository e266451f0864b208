// What loading the addon and its token tables costs a process (run by hand, never in CI;
// numbers go into BENCHMARKS.md, "Token budgeting").
//
//   npx napi build --platform --release && npm run bench:tokens-load
//   BENCH_ADDONS=/tmp/old.node:/tmp/new.node npm run bench:tokens-load   # compare builds
//
// Every measurement runs in a fresh `node` process (the tables are built once per process),
// BENCH_RUNS times (default 5), and the median is printed:
// - require: time to `require` the `.node` file;
// - first count: the first `countTokensSync` of each encoding (builds that encoding's tables),
//   o200k_base first, then cl100k_base;
// - warm: per call, `countTokensSync` on a 20 KB Rust file after the first count;
// - RSS: resident memory after the first count of each encoding.
// - long pieces: `countTokens` of one 4 MiB pre-tokenizer piece (a run of one letter, a run of
//   spaces before a letter), time and peak RSS (`maxRSS`), the worst case of byte-pair merging.
// The reference, measured the same way in the same run, is the `tiktoken` package (WASM)
// already in devDependencies: require, `get_encoding`, first and warm `encode(...).length`.
import { execFileSync } from 'node:child_process'
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'

const ROOT = join(__dirname, '..')
const RUNS = Number(process.env.BENCH_RUNS ?? 5)
const ADDONS = (process.env.BENCH_ADDONS ?? join(ROOT, 'context-engine.linux-x64-gnu.node')).split(':')
const SAMPLE = join(ROOT, 'crates/core/src/budget/fit.rs')

// Runs inside the child: prints one JSON line.
const addonChild = `
const ms = (a, b) => Number(b - a) / 1e6
const text = require('fs').readFileSync(process.argv[2], 'utf8')
const t0 = process.hrtime.bigint()
const addon = require(process.argv[1])
const t1 = process.hrtime.bigint()
addon.countTokensSync('hello world', 'o200k_base')
const t2 = process.hrtime.bigint()
const rssO200k = process.memoryUsage().rss
addon.countTokensSync('hello world', 'cl100k_base')
const t3 = process.hrtime.bigint()
const rssBoth = process.memoryUsage().rss
let n = 0
const w0 = process.hrtime.bigint()
for (let i = 0; i < 50; i++) n += addon.countTokensSync(text, 'o200k_base')
const w1 = process.hrtime.bigint()
console.log(JSON.stringify({ require: ms(t0, t1), firstO200k: ms(t1, t2), firstCl100k: ms(t2, t3),
  warm: ms(w0, w1) / 50, tokens: n / 50, rssO200k, rssBoth }))
`

const tiktokenChild = `
const ms = (a, b) => Number(b - a) / 1e6
const text = require('fs').readFileSync(process.argv[1], 'utf8')
const t0 = process.hrtime.bigint()
const { get_encoding } = require('tiktoken')
const t1 = process.hrtime.bigint()
const o = get_encoding('o200k_base'); o.encode_ordinary('hello world')
const t2 = process.hrtime.bigint()
const rssO200k = process.memoryUsage().rss
const c = get_encoding('cl100k_base'); c.encode_ordinary('hello world')
const t3 = process.hrtime.bigint()
const rssBoth = process.memoryUsage().rss
let n = 0
const w0 = process.hrtime.bigint()
for (let i = 0; i < 50; i++) n += o.encode_ordinary(text).length
const w1 = process.hrtime.bigint()
console.log(JSON.stringify({ require: ms(t0, t1), firstO200k: ms(t1, t2), firstCl100k: ms(t2, t3),
  warm: ms(w0, w1) / 50, tokens: n / 50, rssO200k, rssBoth }))
`

// One fresh process per long piece: time and peak RSS of counting it.
const longChild = `
const addon = require(process.argv[1])
const text = process.argv[2] === 'letters' ? 'a'.repeat(4 << 20) : ' '.repeat(4 << 20) + 'x'
addon.countTokensSync('warm', 'o200k_base')
const t0 = process.hrtime.bigint()
addon.countTokens(text, 'o200k_base').then((n) => {
  const t1 = process.hrtime.bigint()
  console.log(JSON.stringify({ ms: Number(t1 - t0) / 1e6, tokens: n, maxRssMb: process.resourceUsage().maxRSS / 1024 }))
})
`

type Row = Record<'require' | 'firstO200k' | 'firstCl100k' | 'warm' | 'tokens' | 'rssO200k' | 'rssBoth', number>

function runs(args: string[]): Row {
  const rows: Row[] = []
  for (let i = 0; i < RUNS; i++) {
    const out = execFileSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' })
    rows.push(JSON.parse(out.trim().split('\n').pop()!))
  }
  const median = (k: keyof Row) => rows.map((r) => r[k]).sort((a, b) => a - b)[Math.floor(rows.length / 2)]
  return Object.fromEntries(Object.keys(rows[0]).map((k) => [k, median(k as keyof Row)])) as Row
}

const mb = (b: number) => (b / 1e6).toFixed(1)
const line = (name: string, size: string, r: Row) =>
  `| ${name} | ${size} | ${r.require.toFixed(1)} | ${r.firstO200k.toFixed(1)} | ${r.firstCl100k.toFixed(1)} | ` +
  `${r.warm.toFixed(2)} | ${mb(r.rssO200k)} / ${mb(r.rssBoth)} |`

const sampleBytes = readFileSync(SAMPLE).length
console.log(`node ${process.version}, ${RUNS} fresh processes each, medians; warm = ${sampleBytes} B file`)
console.log('| build | file size | require (ms) | first o200k count (ms) | then first cl100k count (ms) | warm count of the file (ms) | RSS after o200k / both (MB) |')
console.log('| --- | --- | --- | --- | --- | --- | --- |')
for (const addon of ADDONS) {
  const r = runs(['-e', addonChild, addon, SAMPLE])
  console.log(line(addon, `${statSync(addon).size.toLocaleString('en-US')} B`, r), `(${r.tokens} tokens)`)
}
const t = runs(['-e', tiktokenChild, SAMPLE])
console.log(line('tiktoken (WASM), reference', '', t), `(${t.tokens} tokens)`)

console.log('\nlong pieces, o200k_base, countTokens of one 4 MiB piece (one process each)')
console.log('| build | piece | time (ms) | tokens | peak RSS (MB) |')
console.log('| --- | --- | --- | --- | --- |')
for (const addon of ADDONS) {
  for (const kind of ['letters', 'spaces']) {
    const out = execFileSync(process.execPath, ['-e', longChild, addon, kind], { cwd: ROOT, encoding: 'utf8' })
    const r = JSON.parse(out.trim().split('\n').pop()!)
    console.log(`| ${addon} | ${kind} | ${r.ms.toFixed(0)} | ${r.tokens} | ${r.maxRssMb.toFixed(0)} |`)
  }
}
