// The JS thread's time of the largest-text calls, two package entries side by side in one
// process, calls alternating between them: the fastest and the median of 15 each. On a shared
// machine the fastest call is what the code costs; medians move with the other jobs.
//
//   node --import tsx benches/boundary-pairs.bench.ts BEFORE/lib/index.ts AFTER/lib/index.ts
//
// Each argument is a package entry (a checkout's lib/index.ts with its release addon beside
// it, as `npm run build` leaves it).
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

const [beforePath, afterPath] = process.argv.slice(2).map((p) => resolve(p))
if (!beforePath || !afterPath) throw new Error('usage: boundary-pairs.bench.ts BEFORE_ENTRY AFTER_ENTRY')
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const entries: Array<[string, any]> = [
  ['before', require(beforePath)],
  ['after', require(afterPath)],
]

const MAX = 8 * 1024 * 1024 - 64
const chars = (unit: string, n: number) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n)
const ascii = chars('const value = compute(items) // some code\n', MAX)
const twoByte = '😀' + chars('const value = compute(items) // some code\n', MAX - 2)
for (const s of [ascii, twoByte]) void Buffer.byteLength(s)
const root = realpathSync(mkdtempSync(join(tmpdir(), 'ce-bench-pairs-')))
writeFileSync(join(root, 'a.ts'), 'export const a = 1\n')

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const calls: Array<[string, (ce: any) => unknown]> = [
  ['estimateTokens(8 Mi ASCII) (sync)', (ce) => ce.estimateTokens(ascii)],
  ['countTokens(8 Mi ASCII)', (ce) => ce.countTokens(ascii)],
  ['countTokens(8 Mi two-byte)', (ce) => ce.countTokens(twoByte)],
  ['composeContext([8 Mi ASCII])', (ce) => ce.composeContext([{ kind: 'file', label: 'a', content: ascii }], { maxChars: 5000 })],
  ['expandChunk(chunk of 8 Mi ASCII)', (ce) => ce.expandChunk(root, { content: ascii, filePath: 'a.ts', startLine: 1, endLine: 1 }, 2)],
  ['fitToBudget({ a: 8 Mi ASCII })', (ce) => ce.fitToBudget({ a: ascii }, 1000, { estimate: true })],
  ['truncateFile(8 Mi ASCII, 100)', (ce) => ce.truncateFile(ascii, 100)],
  ['redactSecrets(8 Mi two-byte)', (ce) => ce.redactSecrets(twoByte)],
  ['retrieve({ prompt: 256 KiB })', (ce) => ce.retrieve({ prompt: ascii.slice(0, 256 * 1024), spaceId: 's', sessionId: 's', rootPath: root, providerId: 'mcp' })],
]

/** Milliseconds `f` holds the JS thread (until it returns); a promise is awaited after. */
async function time(f: () => unknown): Promise<number> {
  const t0 = process.hrtime.bigint()
  const result = f()
  const ms = Number(process.hrtime.bigint() - t0) / 1e6
  if (result instanceof Promise) await result.catch(() => {})
  return ms
}

async function main(): Promise<void> {
  console.log(`before: ${beforePath}\nafter: ${afterPath}\nnode ${process.version}; ${new Date().toISOString()}`)
  for (const [label, call] of calls) {
    const times: Record<string, number[]> = { before: [], after: [] }
    for (let i = 0; i < 15; i++) for (const [name, ce] of entries) times[name].push(await time(() => call(ce)))
    const show = (t: number[]) => {
      t.sort((a, b) => a - b)
      return `fastest ${t[0].toFixed(2)} ms, median ${t[7].toFixed(2)} ms`
    }
    console.log(`${label.padEnd(36)} before: ${show(times.before)} | after: ${show(times.after)}`)
  }
  rmSync(root, { recursive: true, force: true })
}

void main()
