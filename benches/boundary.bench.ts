// The N-API boundary's own cost: calls per second of tiny calls (where the argument reader is
// most of the work) and the JS-thread time of one call on the worst inputs (how long the call
// holds the event loop before it returns; async exports do their work elsewhere).
//
//   npm run bench:boundary                      # the package entry (lib/index.ts over the addon)
//   CE_ADDON=/path/to/other.node npm run bench:boundary   # another build or entry, e.g. before a change
//
// With an entry (a `lib/index.ts`), the async rows are also run on the binding it wraps (the
// `index.js` beside its `lib/`), in the same process, to show what the entry itself costs.
//
// Build with `npm run build` first; debug builds are far slower.
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join, resolve } from 'node:path'
import { performance } from 'node:perf_hooks'

const addonPath = process.env.CE_ADDON ? resolve(process.env.CE_ADDON) : resolve(__dirname, '../lib/index.ts')
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const ce: any = require(addonPath)
/** The binding under the entry, when `addonPath` is an entry (`lib/index.*`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const raw: any = basename(dirname(addonPath)) === 'lib' ? require(join(dirname(addonPath), '..', 'index.js')) : undefined

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

/**
 * Calls per second, 100 in flight, and the JS thread's busy time per call (the event loop's
 * active time, which a loaded machine's scheduling of the worker threads does not move).
 */
async function asyncRate(label: string, n: number, f: () => Promise<unknown>): Promise<void> {
  const runs: number[] = []
  const busy: number[] = []
  for (let r = 0; r < 5; r++) {
    const e0 = performance.eventLoopUtilization()
    const t0 = process.hrtime.bigint()
    for (let i = 0; i < n; i += 100) await Promise.all(Array.from({ length: 100 }, f))
    runs.push(n / (Number(process.hrtime.bigint() - t0) / 1e9))
    busy.push((performance.eventLoopUtilization(e0).active * 1000) / n)
  }
  runs.sort((a, b) => a - b)
  busy.sort((a, b) => a - b)
  console.log(
    `${label.padEnd(58)} ${Math.round(runs[2]).toLocaleString('en-US').padStart(12)} calls/s (median of 5 x ${n}), JS thread ${busy[2].toFixed(1)} us/call`,
  )
}

/** Milliseconds the call holds the JS thread (until it returns), the worst of 3. */
/** Times `f` (the time it holds the JS thread) 7 times: the median and the worst. */
async function blocking(label: string, f: () => unknown): Promise<void> {
  const times: number[] = []
  let kind = 'sync'
  for (let r = 0; r < 7; r++) {
    const t0 = process.hrtime.bigint()
    let result: unknown
    try {
      result = f()
    } catch (err) {
      result = undefined
      kind = `throws ${(err as { code?: string }).code ?? String(err).slice(0, 40)}`
    }
    times.push(Number(process.hrtime.bigint() - t0) / 1e6)
    if (result instanceof Promise) {
      kind = 'async'
      await result.catch((err: { code?: string }) => {
        kind = `async, rejects ${err.code ?? ''}`
      })
    }
  }
  times.sort((a, b) => a - b)
  const median = times[3].toFixed(2).padStart(7)
  const worst = times[6].toFixed(2).padStart(7)
  console.log(`${label.padEnd(58)} median ${median} ms, worst ${worst} ms on the JS thread (${kind})`)
}

const MB = 1024 * 1024
/** `n` characters (UTF-16 units) of `unit` repeated. */
const chars = (unit: string, n: number) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n)
// The largest texts an export takes: 8 Mi characters (`length`), of each kind V8 stores and
// converts differently: ASCII, Latin-1 (one byte per character but not ASCII), two-byte
// (one emoji makes the whole string UTF-16) and CJK.
const MAX = 8 * MB - 64 // room for a label or a key in the same argument
const big = chars('const value = compute(items) // some code\n', MAX)
const latin1 = chars('const café = "naïve" + 1 // déjà vu\n', MAX)
const twoByte = '😀' + chars('const value = compute(items) // some code\n', MAX - 2)
const cjk = chars('函数调用参数返回值\n', MAX)
const validation = chars('FAILED tests/test_app.py::test_case_number - AssertionError: boom\n', MAX)
// Flatten the strings once (`repeat` builds ropes), as a text read from a file or a socket is.
for (const s of [big, latin1, twoByte, cjk, validation]) void Buffer.byteLength(s)
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
  if (raw) {
    // The same calls on the binding alone: what the entry adds (run after, and again before, the
    // entry's own rows to see the order's effect).
    await asyncRate('  binding alone: await dirContext(root)', 5_000, () => raw.dirContext(root))
    await asyncRate("  binding alone: await countTokens('hello world')", 50_000, () => raw.countTokens('hello world'))
    await asyncRate('await dirContext(root) (no signal), again', 5_000, () => ce.dirContext(root))
  }

  console.log('-- worst inputs: time the call holds the JS thread --')
  for (const [name, text] of [['ASCII', big], ['Latin-1', latin1], ['two-byte', twoByte], ['CJK', cjk]] as const) {
    // Reference: Node's own copy of the same text out of V8 (what any native API pays).
    await blocking(`  reference: Buffer.from(8 Mi chars ${name}, 'utf16le')`, () => Buffer.from(text, 'utf16le'))
    await blocking(`estimateTokens(8 Mi chars ${name})`, () => ce.estimateTokens(text))
    await blocking(`countTokens(8 Mi chars ${name})`, () => ce.countTokens(text))
    await blocking(`composeContext([8 Mi chars ${name}])`, () => ce.composeContext([{ kind: 'file', label: 'a', content: text }], { maxChars: 5000 }))
  }
  await blocking('truncateFile(8 Mi chars, 100)', () => ce.truncateFile(big, 100))
  await blocking('fitToBudget({ a: 8 Mi chars }, 1000)', () => ce.fitToBudget({ a: big }, 1000, { estimate: true }))
  await blocking('parseValidationOutput(8 Mi chars of pytest FAILED lines)', () => ce.parseValidationOutput(validation))
  await blocking('redactSecrets(8 Mi chars two-byte)', () => ce.redactSecrets(twoByte))
  await blocking('expandChunk(root, chunk with 8 Mi chars content, 2)', () => ce.expandChunk(root, { content: big, filePath: 'a.ts', startLine: 1, endLine: 1 }, 2))
  await blocking('retrieve({ prompt: 256 KiB })', () => ce.retrieve({ prompt: big.slice(0, 256 * 1024), spaceId: 's', sessionId: 's', rootPath: root, providerId: 'mcp' }))
  await blocking('retrieve({ prompt: 8 Mi chars }) (rejected)', () => ce.retrieve({ prompt: big, spaceId: 's', sessionId: 's', rootPath: root, providerId: 'mcp' }))
  const over = 'x'.repeat(64 * MB + 1)
  await blocking('countTokens(64 Mi chars + 1) (rejected)', () => ce.countTokens(over))
  await blocking('fitToBudget({ a: 64 Mi chars + 1 }) (rejected)', () => ce.fitToBudget({ a: over }))
  rmSync(root, { recursive: true, force: true })
}

void main()
