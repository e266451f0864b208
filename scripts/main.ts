// The README's main job: retrieval on this repository. Indexes the repository (cold), asks a
// few questions an agent would ask about it (warm), prints the ranked snippets of the first
// and a timing table for all, then fits the top snippets of the first question into a token
// budget, as a prompt builder would.
//
//   npm run main -- [--root DIR] [--prompt "..."] [--limit N] [--budget TOKENS]
import { join, resolve } from 'node:path'

import { ContextEngine, fitToBudget, type ContextSnippet } from '../lib/index.js'

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback
}

const DEFAULT_PROMPTS = [
  'How are symlink escapes prevented when a file under the root is read?',
  'Where does `fitToBudget` decide how many lines each section keeps?',
  'retrieve ranks chunks with BM25F over content, symbol and path fields',
  'Fix: a changed file is not reflected in the next retrieval call',
  'which error code does an async export reject with when a panic happens',
]

async function main(): Promise<void> {
  const root = resolve(arg('root', join(__dirname, '..')))
  const limit = Number(arg('limit', '8'))
  const budget = Number(arg('budget', '4000'))
  const prompts = process.argv.includes('--prompt') ? [arg('prompt', '')] : DEFAULT_PROMPTS
  const engine = new ContextEngine()

  const timings: [string, number, number][] = []
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
    timings.push([prompt, performance.now() - started, snippets.length])
    if (i === 0) first = snippets
  }

  const status = engine.indexStatus(root)
  console.log(`root: ${root}`)
  console.log(`index: ${status.files} files, ${status.chunks} chunks, ${status.terms} terms, ~${(status.bytes / 1e6).toFixed(1)} MB\n`)
  console.log(`Q: ${prompts[0]}\n`)
  for (const s of first) {
    console.log(`── ${s.source}  score ${s.score.toFixed(2)}  id ${s.id}`)
    const lines = s.content.split('\n')
    for (const line of lines.slice(0, 6)) console.log(`   ${line}`)
    if (lines.length > 6) console.log(`   … ${lines.length - 6} more lines`)
  }

  console.log('\n   ms  hits  prompt (first call indexes the repository: cold)')
  for (const [prompt, ms, n] of timings) {
    console.log(`${ms.toFixed(1).padStart(5)}  ${String(n).padStart(4)}  ${prompt.length > 70 ? `${prompt.slice(0, 69)}…` : prompt}`)
  }

  const sections: Record<string, string> = {}
  for (const s of first) sections[s.source] = s.content
  const fitted = await fitToBudget(sections, budget)
  const meta = fitted._metadata
  console.log(
    meta
      ? `\ntop snippets fitted to ${budget} tokens: ${meta.tokens_after} of ${meta.tokens_before} kept`
      : `\ntop snippets fit in ${budget} tokens unchanged`,
  )
}

main().catch((err) => {
  console.error(`error (${err.code ?? 'unknown'}): ${err.message}`)
  process.exit(1)
})
