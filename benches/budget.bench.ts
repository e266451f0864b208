// Token budgeting benchmark (run by hand, never in CI; numbers go into BENCHMARKS.md).
//
//   npm run build && npm run bench
//
// 1. countTokens throughput (MB/s) on real source code of several languages, side by side in
//    one run with js-tiktoken (pure JS) and tiktoken (WASM) on the same text and encoding.
// 2. estimateTokens (characters / 4) error against the exact o200k_base count, per language.
// 3. fitToBudget latency for 1 MB and 10 MB of sections.
//
// Corpora are real files already on the machine (each directory list can be overridden with
// BENCH_<LANG>_DIRS=dir1:dir2); files are taken in sorted path order up to BENCH_MB per language.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { homedir, cpus } from 'node:os'
import { extname, join } from 'node:path'

import { getEncoding } from 'js-tiktoken'
import { get_encoding } from 'tiktoken'

import { countTokens, countTokensSync, estimateTokens, fitToBudget, fitToBudgetSync } from '../lib/index.js'

const ROOT = join(__dirname, '..')
const CARGO = join(homedir(), '.cargo/registry/src')
const cargoCrate = (prefix: string) => {
  try {
    const index = readdirSync(CARGO).map((d) => join(CARGO, d))
    for (const dir of index) {
      const hit = readdirSync(dir).filter((c) => c.startsWith(prefix)).sort().pop()
      if (hit) return join(dir, hit, 'src')
    }
  } catch {}
  return ''
}
const PY = '/root/.pyenv/versions/3.11.7/lib/python3.11'

const LANGS: Record<string, { exts: string[]; dirs: string[] }> = {
  typescript: { exts: ['.ts'], dirs: [join(ROOT, 'node_modules/@napi-rs/cli/src'), join(ROOT, '__test__'), join(ROOT, 'scripts')] },
  rust: { exts: ['.rs'], dirs: [cargoCrate('tokio-1'), cargoCrate('regex-automata'), join(ROOT, 'src'), join(ROOT, 'crates', 'core', 'src')] },
  python: { exts: ['.py'], dirs: [join(PY, 'asyncio'), join(PY, 'email'), join(PY, 'json'), join(PY, 'http')] },
  go: { exts: ['.go'], dirs: [join(ROOT, '.bench-data/go')] },
  json: { exts: ['.json'], dirs: [join(ROOT, 'node_modules')] },
  yaml: { exts: ['.yaml', '.yml'], dirs: ['/usr/lib/google-cloud-sdk/lib/googlecloudsdk/schemas/compute/v1', '/usr/lib/google-cloud-sdk/lib/googlecloudsdk/schemas'] },
}
const CAP = Number(process.env.BENCH_MB ?? '1') * 1024 * 1024

function walk(dir: string, exts: string[], out: string[]): void {
  let entries: string[]
  try {
    entries = readdirSync(dir).sort()
  } catch {
    return
  }
  for (const name of entries) {
    const full = join(dir, name)
    let st
    try {
      st = statSync(full)
    } catch {
      continue
    }
    if (st.isDirectory()) walk(full, exts, out)
    else if (st.isFile() && exts.includes(extname(name)) && !name.endsWith('.d.ts') && st.size < 512 * 1024) out.push(full)
  }
}

function corpus(lang: string): string[] {
  const spec = LANGS[lang]
  const dirs = process.env[`BENCH_${lang.toUpperCase()}_DIRS`]?.split(':') ?? spec.dirs
  const files: string[] = []
  for (const d of dirs.filter(Boolean)) walk(d, spec.exts, files)
  const texts: string[] = []
  let total = 0
  for (const f of [...new Set(files)]) {
    if (total >= CAP) break
    const t = readFileSync(f, 'utf8')
    if (t.includes('\0')) continue
    texts.push(t)
    total += Buffer.byteLength(t)
  }
  return texts
}

function time<T>(fn: () => T): [T, number] {
  const t0 = process.hrtime.bigint()
  const r = fn()
  return [r, Number(process.hrtime.bigint() - t0) / 1e6]
}
async function timeAsync<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = process.hrtime.bigint()
  const r = await fn()
  return [r, Number(process.hrtime.bigint() - t0) / 1e6]
}
function best<T>(runs: number, fn: () => [T, number]): [T, number] {
  let out = fn()
  for (let i = 1; i < runs; i++) {
    const r = fn()
    if (r[1] < out[1]) out = r
  }
  return out
}
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]
}

async function main(): Promise<void> {
  console.log(`machine: ${cpus()[0]?.model ?? '?'} x${cpus().length}, node ${process.version}, date ${new Date().toISOString().slice(0, 10)}`)
  const jsEnc = getEncoding('o200k_base')
  const wasmEnc = get_encoding('o200k_base')

  console.log('\n## countTokens throughput, o200k_base (MB/s, best of 3, whole corpus per call set)')
  console.log('| language | files | MB | tokens | countTokensSync | countTokens (async) | js-tiktoken | tiktoken (WASM) | speed-up vs js-tiktoken | vs WASM |')
  console.log('|---|---|---|---|---|---|---|---|---|---|')
  const estimateRows: string[] = []
  for (const lang of Object.keys(LANGS)) {
    // countTokensSync takes at most 256 Ki characters: larger files (a big JSON fixture) are
    // left out of every column alike.
    const texts = corpus(lang).filter((t) => t.length <= 256 * 1024)
    if (texts.length === 0) {
      console.log(`| ${lang} | 0 | (no corpus found) |`)
      continue
    }
    const bytes = texts.reduce((a, t) => a + Buffer.byteLength(t), 0)
    const mb = bytes / (1024 * 1024)
    const [ours, oursMs] = best(3, () => time(() => texts.reduce((a, t) => a + countTokensSync(t), 0)))
    let asyncMs = Infinity
    for (let i = 0; i < 3; i++) {
      const [, ms] = await timeAsync(async () => {
        let n = 0
        for (const t of texts) n += await countTokens(t)
        return n
      })
      asyncMs = Math.min(asyncMs, ms)
    }
    const [js, jsMs] = best(3, () => time(() => texts.reduce((a, t) => a + jsEnc.encode(t).length, 0)))
    const [wasm, wasmMs] = best(3, () => time(() => texts.reduce((a, t) => a + wasmEnc.encode_ordinary(t).length, 0)))
    if (js !== ours || wasm !== ours) console.log(`!! count mismatch on ${lang}: ours ${ours}, js-tiktoken ${js}, tiktoken ${wasm}`)
    const rate = (ms: number) => (mb / (ms / 1000)).toFixed(1)
    console.log(
      `| ${lang} | ${texts.length} | ${mb.toFixed(2)} | ${ours} | ${rate(oursMs)} | ${rate(asyncMs)} | ${rate(jsMs)} | ${rate(wasmMs)} | ${(jsMs / oursMs).toFixed(1)}x | ${(wasmMs / oursMs).toFixed(1)}x |`,
    )

    // estimate error per file (relative to the exact count) and pooled
    const errs: number[] = []
    let estTotal = 0
    for (const t of texts) {
      const exact = countTokensSync(t)
      const est = estimateTokens(t)
      estTotal += est
      if (exact >= 20) errs.push((est - exact) / exact)
    }
    const abs = errs.map(Math.abs)
    const within = abs.filter((e) => e <= 0.2).length / Math.max(1, abs.length)
    estimateRows.push(
      `| ${lang} | ${errs.length} | ${(((estTotal - ours) / ours) * 100).toFixed(1)}% | ${(pct(abs, 50) * 100).toFixed(1)}% | ${(pct(abs, 90) * 100).toFixed(1)}% | ${(within * 100).toFixed(0)}% |`,
    )
  }
  wasmEnc.free()

  console.log('\n## estimateTokens (chars / 4) against the exact o200k_base count')
  console.log('| language | files (>= 20 tokens) | pooled error | median abs error per file | p90 abs error | files within 20% |')
  console.log('|---|---|---|---|---|---|')
  for (const row of estimateRows) console.log(row)

  console.log('\n## fitToBudget latency (exact o200k_base count, budget 32000; best of 5)')
  console.log('| input | sections | fitToBudget (async) ms | fitToBudgetSync ms | estimate mode ms | tokens before -> after |')
  console.log('|---|---|---|---|---|---|')
  const pool = [...corpus('rust'), ...corpus('typescript'), ...corpus('python'), ...corpus('go')]
  for (const targetMb of [1, 10]) {
    const sections: Record<string, string> = {}
    let size = 0
    let i = 0
    while (size < targetMb * 1024 * 1024) {
      const t = pool[i % pool.length]
      sections[`file_${i}`] = t
      size += Buffer.byteLength(t)
      i++
    }
    let asyncMs = Infinity
    let meta
    for (let r = 0; r < 5; r++) {
      const [out, ms] = await timeAsync(() => fitToBudget(sections, 32000))
      meta = out._metadata
      asyncMs = Math.min(asyncMs, ms)
    }
    const [, syncMs] = best(5, () => time(() => fitToBudgetSync(sections, 32000)))
    const [, estMs] = best(5, () => time(() => fitToBudgetSync(sections, 32000, { estimate: true })))
    console.log(
      `| ${(size / 1024 / 1024).toFixed(1)} MB | ${i} | ${asyncMs.toFixed(1)} | ${syncMs.toFixed(1)} | ${estMs.toFixed(1)} | ${meta?.tokens_before} -> ${meta?.tokens_after} |`,
    )
  }
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
