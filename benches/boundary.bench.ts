// The N-API boundary's own cost: calls per second of tiny calls (where the argument reader is
// most of the work) and the JS-thread time of one call on the worst inputs (how long the call
// holds the event loop before it returns; async exports do their work elsewhere).
//
//   npm run bench:boundary                      # the addon index.js loads
//   CE_ADDON=/path/to/other.node npm run bench:boundary   # another build, e.g. before a change
//
// Build with `npx napi build --platform --release` first; debug builds are far slower.
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

const addonPath = process.env.CE_ADDON ? resolve(process.env.CE_ADDON) : '../index.js'
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const ce: any = require(addonPath)

function rate(label: string, n: number, f: () => unknown): void {
  for (let i = 0; i < Math.min(n, 10_000); i++) f()
  const runs: number[] = []
  for (let r = 0; r < 5; r++) {
    const t0 = process.hrtime.bigint()
    for (let i = 0; i < n; i++) f()
    const s = Number(process.hrtime.bigint() - t0) / 1e9
    runs.push(n / s)
  }
  runs.sort((a, b) => a - b)
  console.log(`${label.padEnd(58)} ${Math.round(runs[2]).toLocaleString('en-US').padStart(12)} calls/s (median of 5 x ${n})`)
}

async function asyncRate(label: string, n: number, f: () => Promise<unknown>): Promise<void> {
  const runs: number[] = []
  for (let r = 0; r < 5; r++) {
    const t0 = process.hrtime.bigint()
    for (let i = 0; i < n; i += 100) await Promise.all(Array.from({ length: 100 }, f))
    runs.push(n / (Number(process.hrtime.bigint() - t0) / 1e9))
  }
  runs.sort((a, b) => a - b)
  console.log(`${label.padEnd(58)} ${Math.round(runs[2]).toLocaleString('en-US').padStart(12)} calls/s (median of 5 x ${n})`)
}

/** Milliseconds the call holds the JS thread (until it returns), the worst of 3. */
async function blocking(label: string, f: () => unknown): Promise<void> {
  let worst = 0
  let kind = 'sync'
  for (let r = 0; r < 3; r++) {
    const t0 = process.hrtime.bigint()
    let result: unknown
    try {
      result = f()
    } catch (err) {
      result = undefined
      kind = `throws ${(err as { code?: string }).code ?? String(err).slice(0, 40)}`
    }
    const ms = Number(process.hrtime.bigint() - t0) / 1e6
    worst = Math.max(worst, ms)
    if (result instanceof Promise) {
      kind = 'async'
      await result.catch((err: { code?: string }) => {
        kind = `async, rejects ${err.code ?? ''}`
      })
    }
  }
  console.log(`${label.padEnd(58)} ${worst.toFixed(2).padStart(9)} ms on the JS thread (${kind})`)
}

const MB = 1024 * 1024
const big = 'const value = compute(items) // some code\n'.repeat(Math.ceil((20 * MB) / 42)).slice(0, 20 * MB)
const validation = 'FAILED tests/test_app.py::test_case_number - AssertionError: boom\n'.repeat(Math.ceil((8 * MB) / 66))
const root = realpathSync(mkdtempSync(join(tmpdir(), 'ce-bench-boundary-')))
writeFileSync(join(root, 'a.ts'), 'export const a = 1\n')

async function main(): Promise<void> {
  console.log(`addon: ${addonPath}; node ${process.version}; ${new Date().toISOString()}`)
  console.log('-- tiny calls (argument reader overhead) --')
  rate("estimateTokens('hello world')", 1_000_000, () => ce.estimateTokens('hello world'))
  rate("countTokensSync('hello world')", 300_000, () => ce.countTokensSync('hello world'))
  rate("countTokensSync('hello world', 'cl100k_base')", 300_000, () => ce.countTokensSync('hello world', 'cl100k_base'))
  rate("truncateFileSync('a\\nb', 10, [1], { contextLines: 2 })", 300_000, () => ce.truncateFileSync('a\nb', 10, [1], { contextLines: 2 }))
  rate("fitToBudgetSync({ a, b }, 1000, { estimate: true })", 200_000, () => ce.fitToBudgetSync({ a: 'x', b: 'y' }, 1000, { estimate: true }))
  rate("composeContext([{ kind, label, content }])", 200_000, () => ce.composeContext([{ kind: 'file', label: 'a', content: 'b' }]))
  await asyncRate("await countTokens('hello world')", 50_000, () => ce.countTokens('hello world'))
  const ac = new AbortController()
  await asyncRate("await countTokens('hello world') with no options", 50_000, () => ce.countTokens('hello world'))
  await asyncRate('await dirContext(root, { signal }) (abort listener)', 5_000, () => ce.dirContext(root, { signal: ac.signal }))
  await asyncRate('await dirContext(root) (no signal)', 5_000, () => ce.dirContext(root))

  console.log('-- worst inputs: time the call holds the JS thread --')
  await blocking('estimateTokens(20 MB)', () => ce.estimateTokens(big))
  await blocking('countTokens(20 MB)', () => ce.countTokens(big))
  await blocking('truncateFile(20 MB, 100)', () => ce.truncateFile(big, 100))
  await blocking('fitToBudget({ a: 20 MB }, 1000)', () => ce.fitToBudget({ a: big }, 1000, { estimate: true }))
  await blocking('parseValidationOutput(8 MiB of pytest FAILED lines)', () => ce.parseValidationOutput(validation))
  await blocking('composeContext([20 MB source])', () => ce.composeContext([{ kind: 'file', label: 'a', content: big }], { maxChars: 5000 }))
  await blocking('expandChunk(root, chunk with 20 MB content, 2)', () => ce.expandChunk(root, { content: big, filePath: 'a.ts', startLine: 1, endLine: 1 }, 2))
  await blocking('retrieve({ prompt: 256 KiB })', () => ce.retrieve({ prompt: big.slice(0, 256 * 1024), spaceId: 's', sessionId: 's', rootPath: root, providerId: 'mcp' }))
  await blocking('retrieve({ prompt: 20 MB }) (rejected)', () => ce.retrieve({ prompt: big, spaceId: 's', sessionId: 's', rootPath: root, providerId: 'mcp' }))
  await blocking('fitToBudget(64 MiB + 1 string) (rejected)', () => ce.fitToBudget({ a: 'x'.repeat(64 * MB + 1) }))
  rmSync(root, { recursive: true, force: true })
}

void main()
