// The MCP server's own costs, run by hand (`npm run bench:mcp`; results in BENCHMARKS.md):
//   spawn -> initialize: time from spawning `node bin/context-engine.js mcp --root DIR` to the
//     answer of a raw `initialize` request written at once (the host's view of startup), next
//     to the same spawn-to-first-byte of a bare `node -e` (the floor on this machine);
//   warm search_code: p50/p95 of `tools/call search_code` through the SDK's own client over
//     stdio, against a bare `ContextEngine.retrieve` in this process on the same repository,
//     same prompts and limit, both warm.
//
//   npm run bench:mcp -- [--root DIR] [--spawns 20] [--queries 100]
// The default root is this repository's crates/core (real Rust code).
import { spawn } from 'node:child_process'
import { join, resolve } from 'node:path'

import { Client } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'

import { ContextEngine } from '../lib/index.js'

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback
}

const ROOT = resolve(arg('root', join(__dirname, '..', 'crates', 'core')))
const SPAWNS = Number(arg('spawns', '20'))
const QUERIES = Number(arg('queries', '100'))
const BIN = join(__dirname, '..', 'bin', 'context-engine.js')

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]
}
const f = (x: number) => x.toFixed(2)

/** Milliseconds from spawn to the first stdout line containing `needle` (after writing `input`). */
function timeSpawn(args: string[], input: string | undefined, needle: string): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const t0 = process.hrtime.bigint()
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'ignore'] })
    let out = ''
    let done = false
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      if (!done && out.includes(needle)) {
        done = true
        const ms = Number(process.hrtime.bigint() - t0) / 1e6
        child.stdin.end()
        child.on('exit', () => resolvePromise(ms))
      }
    })
    child.on('error', reject)
    if (input !== undefined) child.stdin.write(input)
    else child.stdin.end()
  })
}

const INITIALIZE =
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }) + '\n'

const WORDS = 'index token chunk error path root file query score cache retrieve expand budget secret redact hound gitea ref line range walk ignore language symbol rank'.split(' ')
function prompts(n: number): string[] {
  const out: string[] = []
  for (let i = 0; i < n; i++) out.push(`${WORDS[i % WORDS.length]} ${WORDS[(i * 7 + 3) % WORDS.length]} ${WORDS[(i * 13 + 5) % WORDS.length]} handling`)
  return out
}

async function main(): Promise<void> {
  console.log(`root ${ROOT}; node ${process.version}; ${SPAWNS} spawns, ${QUERIES} queries`)

  // --- spawn -> initialize answer, interleaved with the bare-node floor
  const init: number[] = []
  const bare: number[] = []
  await timeSpawn([BIN, 'mcp', '--root', ROOT], INITIALIZE, '"id":1') // warm the OS file cache
  for (let i = 0; i < SPAWNS; i++) {
    bare.push(await timeSpawn(['-e', 'process.stdout.write("ready\\n")'], undefined, 'ready'))
    init.push(await timeSpawn([BIN, 'mcp', '--root', ROOT], INITIALIZE, '"id":1'))
  }
  console.log(`spawn -> initialize answer   p50 ${f(pct(init, 50))} ms  p90 ${f(pct(init, 90))} ms  min ${f(Math.min(...init))} ms`)
  console.log(`spawn -> bare node output    p50 ${f(pct(bare, 50))} ms  p90 ${f(pct(bare, 90))} ms  min ${f(Math.min(...bare))} ms`)

  // --- warm search_code vs bare retrieve, same prompts and limit
  const qs = prompts(QUERIES)
  const engine = new ContextEngine()
  const request = (prompt: string) => ({ prompt, spaceId: 'bench', sessionId: 'bench', rootPath: ROOT, providerId: 'mcp' as const, limit: 10 })
  await engine.retrieve(request('warm up'))
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--root', ROOT], stderr: 'ignore' })
  const client = new Client({ name: 'bench', version: '1' })
  await client.connect(transport)
  await client.callTool({ name: 'search_code', arguments: { query: 'warm up', limit: 10 } })
  for (const q of qs.slice(0, 10)) {
    await engine.retrieve(request(q))
    await client.callTool({ name: 'search_code', arguments: { query: q, limit: 10 } })
  }
  const direct: number[] = []
  const viaMcp: number[] = []
  let mismatches = 0
  for (const q of qs) {
    let t = process.hrtime.bigint()
    const a = await engine.retrieve(request(q))
    direct.push(Number(process.hrtime.bigint() - t) / 1e6)
    t = process.hrtime.bigint()
    const r = await client.callTool({ name: 'search_code', arguments: { query: q, limit: 10 } })
    viaMcp.push(Number(process.hrtime.bigint() - t) / 1e6)
    const b = (r.structuredContent as { results: Array<{ path: string; startLine: number }> }).results
    if (a.length !== b.length || a.some((s, i) => s.path !== b[i].path || s.startLine !== b[i].startLine)) mismatches++
  }
  await client.close()
  const p50d = pct(direct, 50)
  const p50m = pct(viaMcp, 50)
  console.log(`retrieve (in process)        p50 ${f(p50d)} ms  p95 ${f(pct(direct, 95))} ms`)
  console.log(`search_code over MCP stdio   p50 ${f(p50m)} ms  p95 ${f(pct(viaMcp, 95))} ms`)
  console.log(`MCP adds                     p50 ${f(p50m - p50d)} ms  p95 ${f(pct(viaMcp, 95) - pct(direct, 95))} ms`)
  console.log(`result mismatches            ${mismatches} of ${qs.length}`)
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
