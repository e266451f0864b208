// An agent session through the official MCP SDK client, as a host would run it: developer
// questions (natural language, identifiers, pasted errors, stack traces) over real
// repositories, each asked with search_code and followed up with file_context and expand_chunk
// on the top hit (and find_symbol for identifiers), plus one repo_map per repository.
//
// Measures the top-3 hit rate (a result among the first three is an expected file), the size of
// every result in o200k tokens (text and structured content: p50 and max), and the time from
// starting a server to its first search answer: cold (empty cache folder) and in a second
// session (a new server process on the same cache folder). With --before COMMIT, the MCP server
// of that commit (JavaScript, no budgets, no cache) runs the same session as the reference.
//
//   node --import tsx benches/mcp-agent.bench.ts --work /tmp/mcp-agent \
//     --repo flask=/data/flask --repo gin=/data/gin ... [--questions FILE] [--before COMMIT]
//
// Data stays outside the repository; run by hand, never in CI.
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

import { Client } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'

import { countTokens } from '../lib/index.js'

interface Question {
  repo: string
  kind: string
  query: string
  expect: string[]
}

const ROOT = resolve(__dirname, '..')
const args = process.argv.slice(2)
const repos = new Map<string, string>()
let questionsFile = join(__dirname, 'mcp-agent.questions.json')
let before: string | undefined
let work = ''
for (let i = 0; i < args.length; i++) {
  const a = args[i]
  if (a === '--repo') {
    const [name, dir] = args[++i].split('=')
    repos.set(name, resolve(dir))
  } else if (a === '--questions') questionsFile = args[++i]
  else if (a === '--before') before = args[++i]
  else if (a === '--work') work = resolve(args[++i])
  else throw new Error(`unknown argument ${a}`)
}
if (!work || repos.size === 0) throw new Error('usage: --work DIR --repo name=DIR [--repo ...] [--questions FILE] [--before COMMIT]')
const questions = (JSON.parse(readFileSync(questionsFile, 'utf8')) as Question[]).filter((q) => repos.has(q.repo))

type Result = Awaited<ReturnType<Client['callTool']>>

/** The previous server, checked out of git beside the current native addon. */
function prepareBefore(commit: string): string {
  const dir = join(work, 'before')
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(join(dir, 'mcp'), { recursive: true })
  mkdirSync(join(dir, 'bin'))
  for (const f of ['mcp/server.js', 'mcp/tools.js', 'mcp/schema.js', 'bin/context-engine.js', 'index.js', 'package.json']) {
    writeFileSync(join(dir, f), execFileSync('git', ['-C', ROOT, 'show', `${commit}:${f}`]))
  }
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  for (const f of ['context-engine.linux-x64-gnu.node', 'context-engine.linux-arm64-gnu.node', 'context-engine.darwin-arm64.node', 'context-engine.darwin-x64.node']) {
    try {
      symlinkSync(join(ROOT, f), join(dir, f))
    } catch {}
  }
  return join(dir, 'bin', 'context-engine.js')
}

async function tokensOf(r: Result): Promise<number> {
  const text = (r.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('\n')
  return (await countTokens(text, 'o200k_base')) + (r.structuredContent ? await countTokens(JSON.stringify(r.structuredContent), 'o200k_base') : 0)
}

interface SessionStats {
  firstAnswerMs: number
  sizes: number[]
  hits: Map<string, [number, number]>
  overCap: number
}

async function session(bin: string, root: string, extra: string[], env: Record<string, string>, full: boolean, qs: Question[]): Promise<SessionStats> {
  const started = performance.now()
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', '--root', root, ...extra], env, stderr: 'ignore' })
  const client = new Client({ name: 'agent-bench', version: '1' })
  await client.connect(transport)
  const call = (name: string, a: Record<string, unknown>) => client.callTool({ name, arguments: a }, { timeout: 600_000 })
  const stats: SessionStats = { firstAnswerMs: 0, sizes: [], hits: new Map(), overCap: 0 }
  try {
    const first = await call('search_code', { query: qs[0].query })
    stats.firstAnswerMs = performance.now() - started
    if (!full) return stats
    const record = async (r: Result) => {
      const n = await tokensOf(r)
      stats.sizes.push(n)
      if (n > 25_000) stats.overCap++
    }
    await record(first)
    for (const q of qs) {
      const r = q === qs[0] ? first : await call('search_code', { query: q.query })
      if (q !== qs[0]) await record(r)
      // The places: structured results of this server, or the snippets' headers of the text.
      const sc = r.structuredContent as { results?: Array<{ path: string; startLine: number; endLine: number }> } | undefined
      const top = (sc?.results ?? []).slice(0, 3)
      const hit = top.some((t) => q.expect.includes(t.path)) ? 1 : 0
      if (!hit) process.stderr.write(`  miss (${q.repo}, ${q.kind}): ${JSON.stringify(q.query.slice(0, 60))} -> ${top.map((t) => t.path).join(', ')}\n`)
      const [h, n] = stats.hits.get(q.kind) ?? [0, 0]
      stats.hits.set(q.kind, [h + hit, n + 1])
      if (top[0]) {
        await record(await call('file_context', { path: top[0].path }))
        await record(await call('expand_chunk', { path: top[0].path, startLine: top[0].startLine, endLine: top[0].startLine, structure: true }))
      }
      if (q.kind === 'identifier' && (await client.listTools()).tools.some((t) => t.name === 'find_symbol')) await record(await call('find_symbol', { name: q.query }))
    }
    if ((await client.listTools()).tools.some((t) => t.name === 'repo_map')) await record(await call('repo_map', {}))
    return stats
  } finally {
    await client.close()
  }
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0
}

async function main(): Promise<void> {
  mkdirSync(work, { recursive: true })
  const baseEnv: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'CONTEXT_ENGINE_INDEX_CACHE_DIR') baseEnv[k] = v
  const servers: Array<{ name: string; bin: string; cached: boolean }> = [{ name: 'this server', bin: join(ROOT, 'bin', 'context-engine.js'), cached: true }]
  if (before) servers.unshift({ name: `before (${before.slice(0, 7)})`, bin: prepareBefore(before), cached: false })
  const rows: string[] = []
  const hitRows: string[] = []
  for (const server of servers) {
    const all: number[] = []
    const hits = new Map<string, [number, number]>()
    let over = 0
    for (const [name, dir] of repos) {
      const qs = questions.filter((q) => q.repo === name)
      if (!qs.length) continue
      const cache = join(work, `cache-${server.cached ? 'after' : 'before'}-${name}`)
      rmSync(cache, { recursive: true, force: true })
      // The previous server has no cache options: its cache folder is XDG's, which it ignores.
      const env = { ...baseEnv, XDG_CACHE_HOME: cache }
      const extra = server.cached ? ['--cache-dir', cache] : []
      const cold = await session(server.bin, dir, extra, env, true, qs)
      const warm = await session(server.bin, dir, extra, env, false, qs)
      all.push(...cold.sizes)
      over += cold.overCap
      for (const [k, [h, n]] of cold.hits) {
        const [a, b] = hits.get(k) ?? [0, 0]
        hits.set(k, [a + h, b + n])
      }
      const repoHits = [...cold.hits.values()].reduce((a, [h, n]) => [a[0] + h, a[1] + n], [0, 0])
      rows.push(
        `| ${server.name} | ${name} | ${repoHits[0]}/${repoHits[1]} | ${pct(cold.sizes, 50)} | ${Math.max(...cold.sizes)} | ${cold.overCap} | ${(cold.firstAnswerMs / 1000).toFixed(1)} s | ${(warm.firstAnswerMs / 1000).toFixed(1)} s |`,
      )
      process.stderr.write(`${rows[rows.length - 1]}\n`)
    }
    const total = [...hits.values()].reduce((a, [h, n]) => [a[0] + h, a[1] + n], [0, 0])
    hitRows.push(`| ${server.name} | ${[...hits.entries()].map(([k, [h, n]]) => `${k} ${h}/${n}`).join(', ')} | ${total[0]}/${total[1]} | ${pct(all, 50)} | ${pct(all, 90)} | ${Math.max(...all)} | ${over} of ${all.length} |`)
  }
  console.log('| server | repository | top-3 hits | p50 tokens | max tokens | calls over 25k | first answer, cold | first answer, 2nd session |')
  console.log('|---|---|---|---|---|---|---|---|')
  for (const r of rows) console.log(r)
  console.log()
  console.log('| server | top-3 hits by kind | top-3 in all | p50 tokens | p90 tokens | max tokens | calls over 25k |')
  console.log('|---|---|---|---|---|---|---|')
  for (const r of hitRows) console.log(r)
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
