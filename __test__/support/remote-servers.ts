// Local HTTP servers for the remote tests, on 127.0.0.1 only:
// - a Hound that replays the recorded fixtures (crates/core/tests/fixtures/remote/hound) byte for byte, matched on
//   method, path and the set of parameters, and answers empty-query searches (the fallback's) from
//   the fixture repositories the way houndd does;
// - a Gitea that follows tests/fixtures/remote/gitea/NOTES.md: token auth, private repos as 404, the
//   repo / branches / tags API, /raw/* with Gitea's ref resolution (including its silent fallback
//   to the default branch for unknown refs), text/plain vs octet-stream, JSON 404 bodies;
// - a server whose routes misbehave on purpose (hang, slow, 500, truncated, huge, redirects).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'

export const FIXTURES = join(__dirname, '..', '..', 'crates', 'core', 'tests', 'fixtures', 'remote')
export const HOUND_DIR = join(FIXTURES, 'hound')

export interface Seen {
  method: string
  url: URL
  headers: IncomingMessage['headers']
}

export interface Running {
  url: string
  port: number
  seen: Seen[]
  close(): Promise<void>
}

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => void

export async function start(handler: Handler): Promise<Running> {
  const seen: Seen[] = []
  const sockets = new Set<Socket>()
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    seen.push({ method: req.method ?? '', url, headers: req.headers })
    handler(req, res, url)
  })
  server.on('connection', (s) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) })
  res.end(body)
}

// ------------------------------------------------------------------------------------------------
// Hound

interface Case {
  name: string
  method: string
  url: string
  status: number
  content_type: string
  file: string
  body?: string
}

export const houndIndex = JSON.parse(readFileSync(join(HOUND_DIR, 'index.json'), 'utf8')) as {
  repos: Record<string, { revision: string }>
  cases: Case[]
}

export function fixtureBody(name: string): Buffer {
  const c = houndIndex.cases.find((x) => x.name === name)
  if (!c) throw new Error(`no fixture ${name}`)
  return readFileSync(join(HOUND_DIR, c.file))
}

const BOOLS = new Set(['i', 'literal', 'stats'])

function paramKey(params: URLSearchParams): string {
  const pairs = [...params.entries()].map(([k, v]) =>
    BOOLS.has(k) ? [k, ['true', '1', 'fosho'].includes(v.toLowerCase()) ? 'true' : 'false'] : [k, v],
  )
  pairs.sort((a, b) => (a[0] + '\0' + a[1] < b[0] + '\0' + b[1] ? -1 : 1))
  return JSON.stringify(pairs)
}

function walk(root: string, dir = root): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) out.push(...walk(root, p))
    else out.push(relative(root, p).split('\\').join('/'))
  }
  return out.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
}

function goJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026') + '\n'
}

/** houndd's answer to an empty query with ctx=0: every line is a match, `limit` per repo. */
export function emptyQuery(params: URLSearchParams): string | undefined {
  if (params.get('q') !== '' || params.get('ctx') !== '0') return undefined
  const all = Object.keys(houndIndex.repos).sort()
  const reposParam = params.get('repos') ?? ''
  const repos = reposParam === '*' ? all : reposParam.split(',').filter((r) => all.includes(r))
  const files = params.get('files') ? new RegExp(params.get('files')!) : undefined
  const limit = Number(params.get('limit') ?? 5000)
  const results: Record<string, unknown> = {}
  for (const repo of repos) {
    const root = join(HOUND_DIR, 'repos', repo)
    const fileMatches = []
    let count = 0
    for (const rel of walk(root)) {
      if (files && !files.test(rel)) continue
      if (limit > 0 && count >= limit) break
      const bytes = readFileSync(join(root, rel))
      if (bytes.includes(0)) continue
      const text = bytes.toString('utf8')
      const lines = text.split('\n')
      if (text.endsWith('\n') || text === '') lines.pop()
      const matches = []
      for (let i = 0; i < lines.length; i++) {
        if (limit > 0 && count >= limit) break
        count++
        matches.push({ Line: lines[i], LineNumber: i + 1, Before: [], After: [] })
      }
      if (matches.length) fileMatches.push({ Filename: rel, Matches: matches, AutoGenerated: repo === 'alpha' && rel.startsWith('gen/') })
    }
    if (fileMatches.length) {
      results[repo] = { Matches: fileMatches, FilesWithMatch: fileMatches.length, Revision: houndIndex.repos[repo].revision }
    }
  }
  return goJson({ Results: results })
}

export function startHound(opts: { notReady?: boolean } = {}): Promise<Running> {
  const byKey = new Map<string, Case>()
  for (const c of houndIndex.cases) {
    if (c.body !== undefined) continue
    const u = new URL(c.url, 'http://x')
    byKey.set(`${c.method} ${u.pathname} ${paramKey(u.searchParams)}`, c)
  }
  return start((req, res, url) => {
    if (opts.notReady && url.pathname !== '/healthz') return send(res, 503, 'text/plain; charset=utf-8', 'Hound is not ready.\n')
    const c = byKey.get(`${req.method} ${url.pathname} ${paramKey(url.searchParams)}`)
    if (c) {
      const body = readFileSync(join(HOUND_DIR, c.file))
      res.writeHead(c.status, { 'Content-Type': c.content_type, 'Access-Control-Allow-Origin': '*', 'Content-Length': body.length })
      return res.end(body)
    }
    if (url.pathname === '/api/v1/search') {
      const body = emptyQuery(url.searchParams)
      if (body !== undefined) return send(res, 200, 'application/json;charset=utf-8', body)
    }
    send(res, 404, 'text/plain; charset=utf-8', '404 page not found\n')
  })
}

// ------------------------------------------------------------------------------------------------
// Gitea

export const TOKEN = 'gtea-0123456789abcdef-s3cret'
export const SHA = 'a'.repeat(40)
/** A file with a GitHub token in it (a made-up value). */
export const SECRET_FILE = 'const a = 1;\nconst token = "ghp_R8sK2mQ9vX4tL7wN1pZ6cB3yH5jF0dG8eA2u";\nconst b = 2;\n'

type Tree = Map<string, Buffer>
interface Repo {
  defaultBranch: string
  private: boolean
  branches: Map<string, Tree>
  tags: Map<string, Tree>
  commits: Map<string, Tree>
}

export function alphaFile(rel: string): Buffer {
  return readFileSync(join(HOUND_DIR, 'repos', 'alpha', rel))
}

function alphaTree(): Tree {
  return new Map(walk(join(HOUND_DIR, 'repos', 'alpha')).map((rel) => [rel, alphaFile(rel)]))
}

function repos(): Map<string, Repo> {
  const trunk = alphaTree()
  trunk.set('config/app.ts', Buffer.from(SECRET_FILE))
  const feature = new Map(trunk)
  feature.set('src/server.ts', Buffer.from('// feature branch\nline two\n'))
  const tag = new Map(trunk)
  tag.set('src/server.ts', Buffer.from('// tag v1.0\n'))
  const commit = new Map(trunk)
  commit.set('src/server.ts', Buffer.from('// at commit aaaa\n'))
  return new Map([
    ['acme/alpha', { defaultBranch: 'trunk', private: false, branches: new Map([['trunk', trunk], ['feature/x', feature]]), tags: new Map([['v1.0', tag]]), commits: new Map([[SHA, commit]]) }],
    ['acme/secret', { defaultBranch: 'main', private: true, branches: new Map([['main', trunk]]), tags: new Map(), commits: new Map() }],
  ])
}

const notFound = (res: ServerResponse) => send(res, 404, 'application/json;charset=utf-8', '{"message":"not found","url":"http://127.0.0.1/api/swagger"}')

/** Gitea's prefix walk: undefined = no ref recognised, null = full SHA that is not a commit. */
function resolve(repo: Repo, joined: string): [Tree, string] | null | undefined {
  const seg = joined.split('/')
  if (seg[0] === 'HEAD') return [repo.branches.get(repo.defaultBranch)!, seg.slice(1).join('/')]
  for (const map of [repo.branches, repo.tags]) {
    for (let i = 1; i < seg.length; i++) {
      const tree = map.get(seg.slice(0, i).join('/'))
      if (tree) return [tree, seg.slice(i).join('/')]
    }
  }
  if (/^[0-9a-f]{40}$/.test(seg[0])) {
    const tree = repo.commits.get(seg[0])
    return tree ? [tree, seg.slice(1).join('/')] : null
  }
  return undefined
}

export function startGitea(): Promise<Running> {
  const all = repos()
  return start((req, res, url) => {
    const auth = req.headers.authorization
    let authed = false
    if (auth !== undefined) {
      const parts = auth.trim().split(/\s+/)
      if (parts.length === 2 && /^(token|bearer)$/i.test(parts[0]) && parts[1] === TOKEN) authed = true
      else return send(res, 401, 'application/json;charset=utf-8', '{"message":"invalid username, password or token","url":"http://127.0.0.1/api/swagger"}')
    }
    const seg = url.pathname.split('/').map(decodeURIComponent)
    if (seg[1] !== 'api' || seg[2] !== 'v1' || seg[3] !== 'repos' || seg.length < 6) return notFound(res)
    const key = `${seg[4]}/${seg[5]}`
    const repo = all.get(key)
    if (!repo || (repo.private && !authed)) return notFound(res)
    const rest = seg.slice(6)
    if (rest.length === 0) {
      return send(res, 200, 'application/json;charset=utf-8', JSON.stringify({ full_name: key, default_branch: repo.defaultBranch, empty: false, private: repo.private }))
    }
    if (rest[0] === 'branches' || rest[0] === 'tags') {
      const name = rest.slice(1).join('/')
      const map = rest[0] === 'branches' ? repo.branches : repo.tags
      return map.has(name) ? send(res, 200, 'application/json;charset=utf-8', JSON.stringify({ name })) : notFound(res)
    }
    if (rest[0] === 'raw') {
      const wildcard = rest.slice(1).join('/')
      const ref = url.searchParams.get('ref')?.trim()
      const joined = ref ? `${ref}/${wildcard}` : wildcard
      const found = resolve(repo, joined)
      if (found === null) return send(res, 404, 'application/json;charset=utf-8', '{"message":"unable to find a git ref"}')
      // Gitea's FIXME: an unknown ref silently serves the default branch.
      const [tree, file] = found ?? [repo.branches.get(repo.defaultBranch)!, wildcard]
      const bytes = tree.get(file)
      if (!bytes) return notFound(res)
      const type = bytes.subarray(0, 1024).includes(0) ? 'application/octet-stream' : 'text/plain; charset=utf-8'
      res.writeHead(200, {
        'Content-Type': type,
        'Content-Length': bytes.length,
        'X-Content-Type-Options': 'nosniff',
        'Content-Disposition': `inline; filename="${file.split('/').pop()}"`,
        'Access-Control-Expose-Headers': 'Content-Disposition',
        ETag: '"0123456789abcdef0123456789abcdef01234567"',
        'X-Gitea-Object-Type': 'file',
      })
      return res.end(bytes)
    }
    notFound(res)
  })
}

// ------------------------------------------------------------------------------------------------
// Faults

/** Routes under /api/v1/repos/acme/faulty/raw/<name>: hang, slow, 500, 403, truncated, huge, away, invalid-json (repo info). */
export function startFaulty(opts: { awayTo?: string; hugeBytes?: number } = {}): Promise<Running> {
  return start((req, res, url) => {
    const name = url.pathname.split('/').pop()
    if (url.pathname === '/api/v1/repos/acme/faulty') return send(res, 200, 'application/json', '{"default_branch":"main"}')
    if (url.pathname === '/api/v1/repos/acme/badjson') return send(res, 200, 'application/json', '{"default_branch": tr')
    switch (name) {
      case 'hang.ts':
        return // never answers
      case 'slow.ts':
        setTimeout(() => send(res, 200, 'text/plain; charset=utf-8', 'slow\n'), 150)
        return
      case '500.ts':
        return send(res, 500, 'application/json', '{"message":"boom"}')
      case '403.ts':
        return send(res, 403, 'application/json', '{"message":"forbidden"}')
      case 'truncated.ts':
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': 10000 })
        res.write('a\nb\n')
        setTimeout(() => res.socket?.destroy(), 20)
        return
      case 'huge.ts': {
        const total = opts.hugeBytes ?? 100 * 1024 * 1024
        const line = 'export const filler = "0123456789abcdefghij";\n'
        const block = Buffer.from(line.repeat(Math.floor(65536 / line.length)))
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': total })
        let sent = 0
        const pump = () => {
          while (sent < total) {
            const chunk = block.subarray(0, Math.min(block.length, total - sent))
            sent += chunk.length
            if (!res.write(chunk)) return void res.once('drain', pump)
          }
          res.end()
        }
        res.on('close', () => { sent = total })
        return pump()
      }
      case 'away.ts':
        res.writeHead(302, { Location: `${opts.awayTo}/landing.ts`, 'Content-Length': 0 })
        return res.end()
      default:
        void req
        return send(res, 404, 'application/json', '{"message":"not found"}')
    }
  })
}
