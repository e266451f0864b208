// The README's main job, for now: count the tokens of this repository's source files and fit
// them into a budget, printing a table. Later issues turn this into retrieval.
//
//   npm run main -- [--root DIR] [--budget TOKENS] [--encoding o200k_base|cl100k_base]
import { execFileSync } from 'node:child_process'
import { readFileSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'

import { countTokens, estimateTokens, fitToBudget, type TokenEncoding } from '../index.js'

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback
}

async function main(): Promise<void> {
  const root = resolve(arg('root', join(__dirname, '..')))
  const budget = Number(arg('budget', '32000'))
  const encoding = arg('encoding', 'o200k_base') as TokenEncoding

  const listed = execFileSync('git', ['-C', root, 'ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  })
  const sections: Record<string, string> = {}
  for (const path of listed.split('\0').filter(Boolean).sort()) {
    const full = join(root, path)
    let stat
    try {
      stat = statSync(full)
    } catch {
      continue
    }
    if (!stat.isFile() || stat.size > 1024 * 1024 || path.endsWith('package-lock.json')) continue
    const text = readFileSync(full, 'utf8')
    if (text.includes('\0')) continue
    sections[path] = text
  }

  const started = performance.now()
  const fitted = await fitToBudget(sections, budget, { encoding })
  const fitMs = performance.now() - started

  const rows: [string, number, number, number, number][] = []
  for (const [path, text] of Object.entries(sections)) {
    const kept = fitted[path] ?? ''
    rows.push([path, text.split('\n').length, estimateTokens(text), await countTokens(text, encoding), await countTokens(kept, encoding)])
  }
  rows.sort((a, b) => b[3] - a[3] || a[0].localeCompare(b[0]))

  const width = Math.min(60, Math.max(...rows.map((r) => r[0].length), 4))
  const pad = (s: string | number, n: number, left = false) => (left ? String(s).padEnd(n) : String(s).padStart(n))
  console.log(`${pad('file', width, true)} ${pad('lines', 7)} ${pad('estimate', 9)} ${pad(encoding, 11)} ${pad('kept', 8)}`)
  console.log('-'.repeat(width + 39))
  let totals = [0, 0, 0, 0]
  for (const [path, nLines, est, exact, kept] of rows) {
    const name = path.length > width ? `…${path.slice(path.length - width + 1)}` : path
    console.log(`${pad(name, width, true)} ${pad(nLines, 7)} ${pad(est, 9)} ${pad(exact, 11)} ${pad(kept, 8)}`)
    totals = [totals[0] + nLines, totals[1] + est, totals[2] + exact, totals[3] + kept]
  }
  console.log('-'.repeat(width + 39))
  console.log(`${pad(`${rows.length} files`, width, true)} ${pad(totals[0], 7)} ${pad(totals[1], 9)} ${pad(totals[2], 11)} ${pad(totals[3], 8)}`)
  const meta = fitted._metadata
  console.log(
    meta
      ? `\nfitted to ${budget} tokens in ${fitMs.toFixed(1)} ms: ${meta.tokens_after} tokens kept of ${meta.tokens_before}, ` +
          `${meta.kept_lines}/${meta.original_lines} lines, ${meta.sections_affected.length} files shortened${meta.severe ? ' (severe)' : ''}`
      : `\nall ${totals[2]} tokens fit in ${budget}; nothing shortened (${fitMs.toFixed(1)} ms)`,
  )
}

main().catch((err) => {
  console.error(`error (${err.code ?? 'unknown'}): ${err.message}`)
  process.exit(1)
})
