// Token budgets of tool results: exact o200k_base counts by the addon's own tokenizer.
import { countTokens } from '../index.js'

/** Lines longer than this are cut in results (minified or generated files). */
export const MAX_LINE_CHARS = 1000

export const tokens = (text: string): Promise<number> => countTokens(text, 'o200k_base')

/** `line` cut at MAX_LINE_CHARS characters, saying how long it was. */
export function clipLine(line: string): string {
  if (line.length <= MAX_LINE_CHARS) return line
  return `${line.slice(0, MAX_LINE_CHARS)} [... line cut at ${MAX_LINE_CHARS} characters]`
}

/**
 * The largest `k` (0 to `n`) for which `render(k)` costs at most `budget` tokens, given that
 * the cost grows with `k`. A first guess from the length of the text, then a binary search
 * with exact counts (about a dozen counts for thousands of lines).
 */
export async function largestFitting(
  n: number,
  budget: number,
  render: (k: number) => string,
): Promise<{ k: number; tokens: number }> {
  const full = await tokens(render(n))
  if (full <= budget) return { k: n, tokens: full }
  let lo = 0
  let hi = n // render(hi) does not fit; render(lo) is assumed to
  let loTokens = await tokens(render(0))
  if (loTokens > budget) return { k: 0, tokens: loTokens }
  // Guess from characters: about 3 characters a token in code, then narrow.
  const ratio = render(n).length / full
  let guess = Math.min(n - 1, Math.max(1, binaryGuess(n, budget * ratio, render)))
  while (hi - lo > 1) {
    const mid = guess > lo && guess < hi ? guess : Math.floor((lo + hi) / 2)
    guess = -1
    const t = await tokens(render(mid))
    if (t <= budget) {
      lo = mid
      loTokens = t
    } else hi = mid
  }
  return { k: lo, tokens: loTokens }
}

/** The `k` whose rendering is about `chars` long (a starting point for the exact search). */
function binaryGuess(n: number, chars: number, render: (k: number) => string): number {
  let lo = 0
  let hi = n
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2)
    if (render(mid).length <= chars) lo = mid
    else hi = mid
  }
  return lo
}

/** Numbered lines, `first` being the number of the first. */
export function numbered(lines: string[], first: number): string {
  const width = String(first + lines.length - 1).length
  return lines.map((l, i) => `${String(first + i).padStart(width)} | ${clipLine(l)}`).join('\n')
}

export function splitLines(content: string): string[] {
  const lines = content.split('\n')
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop()
  return lines
}

export function fence(text: string, language?: string): string {
  const ticks = text.includes('```') ? '````' : '```'
  return `${ticks}${language ?? ''}\n${text}${text.endsWith('\n') ? '' : '\n'}${ticks}`
}
