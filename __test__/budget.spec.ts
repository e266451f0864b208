// Token budgeting at the boundary: defaults, shapes, key order, `_metadata`, clamps and the
// `invalid_request` for every kind of bad input.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

import {
  countTokens,
  countTokensSync,
  estimateTokens,
  fitToBudget,
  fitToBudgetSync,
  truncateFile,
  truncateFileDetailed,
  truncateFileSync,
  type TruncationMetadata,
} from '../lib/index.js'

const code = (err: unknown) => (err as { code?: string }).code
const isInvalid = (err: unknown) => {
  assert.ok(err instanceof Error)
  assert.equal(code(err), 'invalid_request')
  return true
}

const lines = (n: number, prefix = 'line') => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`).join('\n')
const ROOT = join(__dirname, '..')
const realSource = readFileSync(join(ROOT, 'src', 'budget.rs'), 'utf8')

test('estimateTokens is characters / 4 rounded up', () => {
  assert.equal(estimateTokens(''), 0)
  assert.equal(estimateTokens('a'), 1)
  assert.equal(estimateTokens('abcd'), 1)
  assert.equal(estimateTokens('abcde'), 2)
  // code points, not UTF-16 units: four emoji are four characters
  assert.equal(estimateTokens('😀😀😀😀'), 1)
  assert.equal(estimateTokens('x'.repeat(4001)), 1001)
})

test('countTokens gives exact BPE counts, o200k_base by default', async () => {
  assert.equal(await countTokens(''), 0)
  assert.equal(await countTokens('hello world'), 2)
  assert.equal(await countTokens('hello world', 'cl100k_base'), 2)
  assert.equal(await countTokens('hello world', 'o200k_base'), countTokensSync('hello world'))
  const n = await countTokens(realSource)
  assert.ok(n > 1000 && n < realSource.length, `plausible count ${n}`)
  assert.equal(countTokensSync(realSource), n)
  // the two encodings differ on real code
  assert.notEqual(await countTokens(realSource, 'cl100k_base'), n)
})

test('countTokens rejects bad input with invalid_request', async () => {
  await assert.rejects(countTokens(undefined as unknown as string), isInvalid)
  await assert.rejects(countTokens('x', 'p50k_base' as never), isInvalid)
  await assert.rejects(countTokens('x', 5 as never), isInvalid)
  assert.throws(() => countTokensSync({} as never), isInvalid)
  assert.throws(() => estimateTokens(7 as never), isInvalid)
})

test('a text over 8 Mi characters is refused from its length; one just under it is counted', async () => {
  const tooLarge = (e: Error & { code?: string; reason?: string }) => e.code === 'invalid_request' && e.reason === 'too_large'
  const huge = 'a'.repeat(100 * 1024 * 1024)
  await assert.rejects(countTokens(huge), tooLarge)
  assert.throws(() => estimateTokens(huge), tooLarge)
  await assert.rejects(countTokens('a'.repeat(8 * 1024 * 1024 + 1)), tooLarge)
  const big = 'a'.repeat(8 * 1024 * 1024)
  assert.equal(estimateTokens(big), 2 * 1024 * 1024)
  assert.ok((await countTokens(big)) > 0)
})

test('long texts (copied as UTF-16, decoded on the worker) read exactly like short ones', async () => {
  // Over 1 Mi characters, with accents, CJK, emoji (surrogate pairs) and a lone surrogate.
  const unit = 'línea 函数 😀 \uD800 end\n'
  const long = unit.repeat(Math.ceil((1.5 * 1024 * 1024) / unit.length))
  const short = unit.repeat(8)
  assert.ok(long.length > 1024 * 1024)
  // Code points, as for short texts: a surrogate pair is one, a lone surrogate one.
  assert.equal(estimateTokens(long), Math.ceil([...long].length / 4))
  assert.equal(estimateTokens(short), Math.ceil([...short].length / 4))
  // The decoded text is the same, character for character (a lone surrogate becomes U+FFFD
  // both ways).
  const head = await truncateFile(long, 8)
  const shortHead = await truncateFile(short, 8)
  assert.equal(head.split('\n').slice(0, 7).join('\n'), shortHead.split('\n').slice(0, 7).join('\n'))
  assert.ok(head.includes('\uFFFD') && !head.includes('\uD800'))
  // Exact counts add up: n copies of a line-ending unit count n times one copy's tokens, so the
  // long text was decoded whole and right.
  const copies = long.length / unit.length
  assert.equal(await countTokens(long), copies * countTokensSync(unit))
  assert.equal(await countTokens(long, 'cl100k_base'), copies * countTokensSync(unit, 'cl100k_base'))
})

test('truncateFile leaves short content alone and keeps windows around lines', async () => {
  const text = lines(100)
  assert.equal(await truncateFile(text, 200, []), text)
  assert.equal(truncateFileSync(text, 100), text)

  const out = await truncateFile(text, 30, [50], { contextLines: 2 })
  const kept = out.split('\n')
  assert.deepEqual(kept, ['...', 'line 48', 'line 49', 'line 50', 'line 51', 'line 52', '...'])

  // overlapping windows merge into one, markers only where lines were removed
  const merged = (await truncateFile(text, 40, [10, 13], { contextLines: 2 })).split('\n')
  assert.deepEqual(merged, ['...', ...[8, 9, 10, 11, 12, 13, 14, 15].map((n) => `line ${n}`), '...'])
})

test('truncateFile default window is at least 10 lines each side', async () => {
  const out = (await truncateFile(lines(500), 100, [250])).split('\n')
  for (let n = 240; n <= 260; n++) assert.ok(out.includes(`line ${n}`), `line ${n} kept`)
  assert.ok(out.includes('...'))
})

test('truncateFile cuts lines over 2000 characters', async () => {
  const long = 'y'.repeat(5000)
  const out = await truncateFile(`${long}\nshort`, 10, [])
  const first = out.split('\n')[0]
  assert.ok(first.endsWith('...'))
  assert.ok(first.length <= 2003)
})

test('truncateFile validates its arguments', async () => {
  for (const maxLines of [-1, NaN, Infinity, 1.5, '10', null]) {
    await assert.rejects(truncateFile('a', maxLines as never, []), isInvalid)
  }
  for (const around of [[0], [-3], [1.5], ['x'], 'nope', {}]) {
    await assert.rejects(truncateFile('a\nb', 1, around as never), isInvalid)
  }
  await assert.rejects(truncateFile('a', 1, [], { contextLines: -2 }), isInvalid)
  await assert.rejects(truncateFile('a', 1, [], 'x' as never), isInvalid)
  assert.throws(() => truncateFileSync(5 as never, 1), isInvalid)
})

test('fitToBudget returns sections unchanged, without _metadata, when they fit', async () => {
  const sections = { tasks: 'do the thing', conventions: 'be nice' }
  const out = await fitToBudget(sections)
  assert.deepEqual(out, sections)
  assert.equal(out._metadata, undefined)
  assert.deepEqual(fitToBudgetSync(sections, 100), sections)
})

test('fitToBudget truncates proportionally, keeps key order, reports _metadata', async () => {
  const sections = { small: lines(50, 's'), big: lines(4000, 'big'), medium: lines(1000, 'm') }
  const budget = 2000
  const out = await fitToBudget(sections, budget)
  assert.deepEqual(Object.keys(out), ['small', 'big', 'medium', '_metadata'])
  const meta = out._metadata as TruncationMetadata
  assert.equal(meta.truncated, true)
  assert.equal(meta.original_lines, 5050)
  assert.ok(meta.kept_lines > 0 && meta.kept_lines < 5050)
  assert.ok(meta.sections_affected.includes('big'))
  assert.equal(meta.budget, budget)
  let total = 0
  for (const key of ['small', 'big', 'medium'] as const) total += await countTokens(out[key])
  assert.ok(total <= budget * 1.05, `total ${total} within 5% of ${budget}`)
  assert.equal(meta.tokens_after, total)
  // the big section keeps more than the small one lost
  assert.ok(out.big.split('\n').length > out.small.split('\n').length)
})

test('fitToBudget with estimate counts characters / 4', async () => {
  const sections = { a: lines(3000), b: lines(3000, 'other') }
  const out = await fitToBudget(sections, 1000, { estimate: true })
  const total = estimateTokens(out.a) + estimateTokens(out.b)
  assert.ok(total <= 1050, `estimate total ${total}`)
})

test('fitToBudget is deterministic', async () => {
  const sections = { a: realSource, b: lines(2000), c: 'tiny' }
  const first = JSON.stringify(await fitToBudget(sections, 3000))
  for (let i = 0; i < 5; i++) assert.equal(JSON.stringify(await fitToBudget(sections, 3000)), first)
  assert.equal(JSON.stringify(fitToBudgetSync(sections, 3000)), first)
})

test('fitToBudget validates its arguments', async () => {
  for (const sections of [null, 'text', 42, ['a'], { a: 1 }, { a: null }, { _metadata: 'x' }]) {
    await assert.rejects(fitToBudget(sections as never), isInvalid)
  }
  for (const budget of [-1, NaN, Infinity, 2.5, '100', 2e9]) {
    await assert.rejects(fitToBudget({ a: 'x' }, budget as never), isInvalid)
  }
  await assert.rejects(fitToBudget({ a: 'x' }, 10, { encoding: 'gpt2' as never }), isInvalid)
  await assert.rejects(fitToBudget({ a: 'x' }, 10, { minLines: -1 }), isInvalid)
  await assert.rejects(fitToBudget({ a: 'x' }, 10, { estimate: 'yes' as never }), isInvalid)
  assert.throws(() => fitToBudgetSync(7 as never), isInvalid)
})

test('fitToBudget with budget 0 empties every section and says so', async () => {
  const out = await fitToBudget({ a: lines(10), b: lines(5) }, 0)
  assert.equal(out.a, '')
  assert.equal(out.b, '')
  assert.equal(out._metadata?.truncated, true)
})

test('truncateFileDetailed reports what happened, including severe truncation', async () => {
  const text = lines(100)
  const same = await truncateFileDetailed(text, 200)
  assert.deepEqual(same, { content: text, truncated: false, severe: false, originalLines: 100, keptLines: 100 })

  const windowed = await truncateFileDetailed(text, 30, [50], { contextLines: 2 })
  assert.equal(windowed.content, await truncateFile(text, 30, [50], { contextLines: 2 }))
  assert.equal(windowed.truncated, true)
  assert.equal(windowed.severe, false)
  assert.equal(windowed.keptLines, 5)

  // every requested line is outside the file: nothing meaningful survives
  const severe = await truncateFileDetailed(text, 10, [500, 900])
  assert.equal(severe.severe, true)
  assert.equal(severe.truncated, true)
  const kept = severe.content.split('\n')
  assert.equal(kept[0], 'line 1')
  assert.equal(kept[kept.length - 1], 'line 100')
  assert.ok(kept.includes('...'))
})
