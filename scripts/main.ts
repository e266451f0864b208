// The README's main job: retrieval on this repository. Indexes the repository (the first call
// is cold), asks it the questions of `main-questions.txt` (what a newcomer would ask), prints
// the ranked snippets of the first question, the best answer and the time of each, then fits
// the first question's snippets into a token budget, as a prompt builder would.
//
//   npm run main -- [--root DIR] [--prompt "..."] [--limit N] [--budget TOKENS]
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

import { ContextEngine, fitToBudget, type ContextSnippet } from '../lib/index.js'

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback
}

/** The questions of `main-questions.txt`: one per line, `#` lines and blank lines skipped. */
function defaultQuestions(): string[] {
  return readFileSync(join(__dirname, 'main-questions.txt'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
}

function clip(text: string, width: number): string {
  return text.length > width ? `${text.slice(0, width - 1)}…` : text
}

async function main(): Promise<void> {
  const root = resolve(arg('root', join(__dirname, '..')))
  const limit = Number(arg('limit', '8'))
  const budget = Number(arg('budget', '4000'))
  const prompts = process.argv.includes('--prompt') ? [arg('prompt', '')] : defaultQuestions()
  const engine = new ContextEngine()

  const asked: { prompt: string; ms: number; best?: ContextSnippet }[] = []
  let first: ContextSnippet[] = []
  for (const [i, prompt] of prompts.entries()) {
    const started = performance.now()
    const snippets = await engine.retrieve({
      prompt,
      spaceId: 'main',
      sessionId: 'main',
      rootPath: root,
      providerId: 'mcp',
      limit,
    })
    asked.push({ prompt, ms: performance.now() - started, best: snippets[0] })
    if (i === 0) first = snippets
  }

  const status = engine.indexStatus(root)
  console.log(`root: ${root}`)
  console.log(`index: ${status.files} files, ${status.chunks} chunks, ${status.terms} terms, ~${(status.bytes / 1e6).toFixed(1)} MB\n`)
  console.log(`Q: ${prompts[0]}\n`)
  if (first.length === 0) console.log('   (no snippet matched)')
  for (const s of first) {
    console.log(`── ${s.source}  score ${s.score.toFixed(2)}`)
    const lines = s.content.split('\n')
    for (const line of lines.slice(0, 6)) console.log(`   ${line}`)
    if (lines.length > 6) console.log(`   … ${lines.length - 6} more lines`)
  }

  console.log(`\n   ms  ${'best answer'.padEnd(52)} question (the first call indexes: cold)`)
  for (const { prompt, ms, best } of asked) {
    const answer = best ? best.source : '(none)'
    console.log(`${ms.toFixed(1).padStart(5)}  ${clip(answer, 52).padEnd(52)} ${clip(prompt, 70)}`)
  }

  const sections: Record<string, string> = {}
  for (const s of first) sections[s.source] = s.content
  const fitted = await fitToBudget(sections, budget)
  const meta = fitted._metadata
  console.log(
    meta
      ? `\nthe first question's snippets fitted to ${budget} tokens: ${meta.tokens_after} of ${meta.tokens_before} kept`
      : `\nthe first question's snippets fit in ${budget} tokens unchanged`,
  )
}

main().catch((err) => {
  console.error(`error (${err.code ?? 'unknown'}): ${err.message}`)
  process.exit(1)
})
