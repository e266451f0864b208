// Remote file context benchmarks, run by hand: `npm run bench:remote` (after a release
// build). Results go to BENCHMARKS.md.
//
// 1. Overhead of `remoteFileContext` over a bare HTTP fetch of the same file from a loopback
//    server, p50/p95, side by side in one run with Node's `fetch` doing the same job (fetch the
//    file, cut the window, number the lines) and with `GiteaClient.getRawFile`.
// 2. Memory while serving lines 10-20 of a 200 MB file: RSS stays bounded by the window (and the
//    byte cap), not by the file. Node's `fetch(...).text()` of the same file is shown for scale.
//
// The loopback server runs in a child process (this file with `--server`), so its event loop and
// heap do not mix with the measured process.
import { fork, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

const BIG_TS = join(__dirname, '..', 'crates', 'core', 'tests', 'fixtures', 'remote', 'hound', 'repos', 'alpha', 'src', 'big.ts')
const HUGE_BYTES = 200 * 1024 * 1024
const HUGE_LINE = 'export const filler = "0123456789abcdefghij0123456789abcdefghij";\n'

// ------------------------------------------------------------------------------------------------
// Server (child process)

function runServer(): void {
  const small = readFileSync(BIG_TS)
  // A 1 MiB text file: big.ts repeated.
  const medium = Buffer.concat(Array.from({ length: Math.ceil((1 << 20) / small.length) }, () => small)).subarray(0, 1 << 20)
  let hugeSent = 0
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname
    if (path === '/api/v1/repos/acme/bench') {
      const body = '{"default_branch":"trunk","empty":false}'
      res.writeHead(200, { 'Content-Type': 'application/json;charset=utf-8', 'Content-Length': body.length })
      return res.end(body)
    }
    if (path === '/api/v1/repos/acme/bench/raw/big.ts' || path === '/api/v1/repos/acme/bench/raw/medium.ts') {
      const body = path.endsWith('big.ts') ? small : medium
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': body.length })
      return res.end(body)
    }
    if (path === '/api/v1/repos/acme/bench/raw/huge.ts') {
      const block = Buffer.from(HUGE_LINE.repeat(Math.floor(65536 / HUGE_LINE.length)))
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': HUGE_BYTES })
      let sent = 0
      let closed = false
      res.on('close', () => {
        closed = true
        hugeSent += sent
      })
      const pump = () => {
        while (!closed && sent < HUGE_BYTES) {
          const chunk = block.subarray(0, Math.min(block.length, HUGE_BYTES - sent))
          sent += chunk.length
          if (!res.write(chunk)) return void res.once('drain', pump)
        }
        if (!closed) res.end()
      }
      return pump()
    }
    if (path === '/stats') {
      const body = JSON.stringify({ hugeSent })
      hugeSent = 0
      res.writeHead(200, { 'Content-Type': 'application/json' })
      return res.end(body)
    }
    res.writeHead(404)
    res.end()
  })
  server.keepAliveTimeout = 60_000
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }))
}

// ------------------------------------------------------------------------------------------------
// Measurements

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

function fmt(ms: number): string {
  return ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`
}

/** Node's fetch doing what remoteFileContext does: default branch, raw file, window, numbers. */
async function fetchContext(base: string, file: string, line: number, context: number): Promise<string> {
  const info = (await (await fetch(`${base}/api/v1/repos/acme/bench`)).json()) as { default_branch: string }
  const res = await fetch(`${base}/api/v1/repos/acme/bench/raw/${file}?ref=${encodeURIComponent(info.default_branch)}`)
  const lines = (await res.text()).split('\n')
  const start = Math.max(1, line - context)
  const end = Math.min(lines.length, line + context)
  const width = String(end).length
  let out = ''
  for (let n = start; n <= end; n++) out += `${n === line ? '>' : ' '}${String(n).padStart(width)} | ${lines[n - 1]}\n`
  return out
}

async function main(): Promise<void> {
  const { GiteaClient, remoteFileContext } = await import('../lib/index.js')
  const child: ChildProcess = fork(__filename, ['--server'], { execArgv: ['--import', 'tsx'] })
  const port = await new Promise<number>((resolve) => child.once('message', (m: { port: number }) => resolve(m.port)))
  const base = `http://127.0.0.1:${port}`
  const iterations = Number(process.env.BENCH_ITER ?? 400)
  console.log(`loopback server pid ${child.pid} on ${base}; ${iterations} iterations per case, interleaved\n`)

  try {
    for (const file of ['big.ts', 'medium.ts']) {
      const size = file === 'big.ts' ? readFileSync(BIG_TS).length : 1 << 20
      const client = new GiteaClient({ baseUrl: base })
      const cases: Record<string, () => Promise<unknown>> = {
        'fetch(): raw file, text()': async () => (await fetch(`${base}/api/v1/repos/acme/bench/raw/${file}`)).text(),
        'fetch(): same job as remoteFileContext': () => fetchContext(base, file, 150, 10),
        'GiteaClient.getRawFile': () => client.getRawFile('acme/bench', file),
        remoteFileContext: () => remoteFileContext({ repo: 'acme/bench', file, line: 150, context: 10 }, { baseUrl: base }),
      }
      // Same output from both implementations of the job.
      const mine = await remoteFileContext({ repo: 'acme/bench', file, line: 150, context: 10 }, { baseUrl: base })
      if (mine.content !== (await fetchContext(base, file, 150, 10))) throw new Error('remoteFileContext and the fetch version disagree')
      const times: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]))
      for (let i = 0; i < 30; i++) for (const f of Object.values(cases)) await f() // warm-up
      for (let i = 0; i < iterations; i++) {
        for (const [name, f] of Object.entries(cases)) {
          const t = performance.now()
          await f()
          times[name].push(performance.now() - t)
        }
      }
      const bare = [...times['fetch(): raw file, text()']].sort((a, b) => a - b)
      console.log(`### ${file} (${(size / 1024).toFixed(1)} KiB), lines 140-160`)
      console.log('| call | p50 | p95 | p50 over bare fetch | p95 over bare fetch |')
      console.log('|---|---|---|---|---|')
      for (const [name, list] of Object.entries(times)) {
        const s = [...list].sort((a, b) => a - b)
        console.log(`| ${name} | ${fmt(pct(s, 50))} | ${fmt(pct(s, 95))} | ${fmt(pct(s, 50) - pct(bare, 50))} | ${fmt(pct(s, 95) - pct(bare, 95))} |`)
      }
      console.log('')
    }

    // Memory: lines 10-20 of a 200 MB file.
    const gc = (globalThis as { gc?: () => void }).gc
    gc?.()
    const sample = async (job: () => Promise<unknown>, runs: number) => {
      gc?.()
      const before = process.memoryUsage().rss
      let peak = before
      const timer = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss)
      }, 2)
      const t = performance.now()
      for (let i = 0; i < runs; i++) await job()
      const ms = (performance.now() - t) / runs
      clearInterval(timer)
      peak = Math.max(peak, process.memoryUsage().rss)
      const stats = (await (await fetch(`${base}/stats`)).json()) as { hugeSent: number }
      return { before, peak, ms, sentPerRun: stats.hugeSent / runs }
    }
    await fetch(`${base}/stats`)
    const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`
    const ctx = await sample(async () => {
      const r = await remoteFileContext({ repo: 'acme/bench', file: 'huge.ts', line: 15, context: 5 }, { baseUrl: base })
      if (r.startLine !== 10 || r.endLine !== 20) throw new Error('wrong window')
    }, 20)
    const raw = await sample(async () => {
      await new GiteaClient({ baseUrl: base }).getRawFile('acme/bench', 'huge.ts').then(
        () => {
          throw new Error('a 200 MB file must exceed the default cap')
        },
        (e: { code?: string }) => {
          if (e.code !== 'invalid_request') throw e
        },
      )
    }, 20)
    const js = await sample(async () => {
      const text = await (await fetch(`${base}/api/v1/repos/acme/bench/raw/huge.ts`)).text()
      if (text.split('\n', 21).length !== 21) throw new Error('short')
    }, 3)
    console.log('### 200 MB file, lines 10-20')
    console.log('| call | runs | mean time | RSS before | RSS peak | peak - before | bytes the server sent per run |')
    console.log('|---|---|---|---|---|---|---|')
    for (const [name, m, runs] of [
      ['remoteFileContext (line 15, context 5)', ctx, 20],
      ['GiteaClient.getRawFile (rejected: over the 16 MiB cap)', raw, 20],
      ['fetch(): text() of the whole file, then split', js, 3],
    ] as const) {
      console.log(`| ${name} | ${runs} | ${fmt(m.ms)} | ${mb(m.before)} | ${mb(m.peak)} | ${mb(m.peak - m.before)} | ${mb(m.sentPerRun)} |`)
    }
  } finally {
    child.kill()
  }
}

if (process.argv.includes('--server')) runServer()
else
  main().catch((e) => {
    console.error(e)
    process.exit(1)
  })
