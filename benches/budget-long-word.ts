// fitToBudget on one very long pre-tokenizer piece (BENCHMARKS.md, "The price: one very long
// pre-tokenizer piece"): a 1 MB word with no break, plus a short section, at budgets 1,000 and
// 32,000, each in a new Node process (the token tables' first use included, as a user's first
// call). Reference in the same run: js-tiktoken counting the first 2,000 characters of the
// same word, o200k_base (its merge is quadratic in a piece's length: the whole megabyte takes it
// longer than anyone waits).
//
//   node --import tsx benches/budget-long-word.ts [--addon PATH/index.js] [--runs 3]
import { spawnSync } from 'node:child_process'
import { join, resolve } from 'node:path'
import { getEncoding } from 'js-tiktoken'

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback
}

const WORD = 'abcdefghij'.repeat(100000)

const CHILD = `
const [addon, budget] = process.argv.slice(1)
const { fitToBudget } = require(addon)
const sections = { a: 'abcdefghij'.repeat(100000) + '\\nnext\\n', b: 'line\\n'.repeat(100) }
;(async () => {
  const t = performance.now()
  const out = await fitToBudget(sections, Number(budget))
  const ms = performance.now() - t
  console.log(JSON.stringify({ ms, rss: process.memoryUsage().rss, kept: { a: out.a.length, b: out.b.length }, truncated: !!(out._metadata && out._metadata.truncated) }))
})().catch((e) => { console.error(e.message); process.exit(1) })
`

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]

function main(): void {
  const addon = resolve(arg('addon', join(__dirname, '..', 'index.js')))
  const runs = Number(arg('runs', '3'))
  console.log(`addon ${addon}\nnode ${process.version}, ${new Date().toISOString()}`)
  const enc = getEncoding('o200k_base')
  let t = performance.now()
  const prefix = WORD.slice(0, 2000)
  const reference = enc.encode(prefix).length
  console.log(`js-tiktoken        the word's first ${prefix.length} characters: ${reference} tokens in ${(performance.now() - t).toFixed(0)} ms (o200k_base)`)
  console.log('\n| budget | run | fitToBudget | RSS after | kept characters (a / b) | truncated |')
  console.log('| ---: | ---: | ---: | ---: | --- | ---: |')
  for (const budget of [1000, 32000]) {
    const times: number[] = []
    for (let r = 1; r <= runs; r++) {
      t = performance.now()
      const c = spawnSync(process.execPath, ['-e', CHILD, addon, String(budget)], { encoding: 'utf8' })
      if (c.status !== 0) throw new Error(`budget ${budget}, run ${r} failed: ${c.stderr}`)
      const row = JSON.parse(c.stdout.trim().split('\n').pop()!)
      times.push(row.ms)
      console.log(`| ${budget} | ${r} | ${row.ms.toFixed(0)} ms | ${(row.rss / 1e6).toFixed(0)} MB | ${row.kept.a} / ${row.kept.b} | ${row.truncated} |`)
    }
    console.log(`| ${budget} | median | ${median(times).toFixed(0)} ms | | | |`)
  }
}

main()
