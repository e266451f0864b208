// GitHub beside Gitea at the N-API boundary (`remoteFileContext(..., { provider: 'github' })`,
// `GitHubClient`), and Hound results linked to the code host, against local servers on
// 127.0.0.1: a GitHub answering as its REST documentation describes (base64 JSON contents, the
// raw media type above 1 MB, 404 for unknown refs, rate-limit headers) and the recorded Hound.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { IncomingMessage, ServerResponse } from 'node:http'

import { GitHubClient, HoundClient, remoteFileContext } from '../lib/index.js'
import { houndIndex, start, startHound, type Running } from './support/remote-servers'

const TOKEN = 'ghp_local-test-token-0123456789abcdef'
const CODES = new Set(['invalid_request', 'unauthorized', 'unavailable', 'timeout', 'internal'])

const app = Array.from({ length: 30 }, (_, i) => `app line ${i + 1}\n`).join('')
const big = Array.from({ length: 70_000 }, (_, i) => `big line ${String(i + 1).padStart(8, '0')}\n`).join('')
const trees: Record<string, Record<string, string>> = {
  trunk: { 'src/app.ts': app, 'data/big.txt': big },
  'release/2': { 'src/app.ts': 'release two\n' },
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), ...headers })
  res.end(text)
}

function github(req: IncomingMessage, res: ServerResponse, url: URL): void {
  const auth = req.headers.authorization
  if (auth !== undefined && auth !== `token ${TOKEN}`) return json(res, 401, { message: 'Bad credentials' })
  const m = /^\/api\/v3\/repos\/([^/]+)\/([^/]+)(?:\/(.*))?$/.exec(url.pathname)
  if (!m) return json(res, 404, { message: 'Not Found' })
  const [, owner, repo, rest] = m
  if (repo === 'limited') {
    return json(res, 403, { message: 'API rate limit exceeded' }, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1700000000' })
  }
  if (owner !== 'acme' || repo !== 'alpha') return json(res, 404, { message: 'Not Found' })
  if (rest === undefined) return json(res, 200, { full_name: 'acme/alpha', default_branch: 'trunk' })
  const branch = /^branches\/(.+)$/.exec(rest)
  if (branch) return trees[decodeURIComponent(branch[1])] ? json(res, 200, { name: branch[1] }) : json(res, 404, { message: 'Branch not found' })
  const contents = /^contents\/(.+)$/.exec(rest)
  if (!contents) return json(res, 404, { message: 'Not Found' })
  const ref = url.searchParams.get('ref') ?? 'trunk'
  const tree = trees[ref]
  if (!tree) return json(res, 404, { message: `No commit found for the ref ${ref}` })
  const file = decodeURIComponent(contents[1])
  const body = tree[file]
  if (body === undefined) return json(res, 404, { message: 'Not Found' })
  if ((req.headers.accept ?? '').includes('application/vnd.github.raw')) {
    res.writeHead(200, { 'Content-Type': 'application/vnd.github.raw+json', 'Content-Length': Buffer.byteLength(body) })
    return void res.end(body)
  }
  const size = Buffer.byteLength(body)
  const large = size > 1024 * 1024
  const content = large ? '' : Buffer.from(body).toString('base64').replace(/(.{60})/g, '$1\n')
  json(res, 200, { type: 'file', path: file, size, encoding: large ? 'none' : 'base64', content })
}

async function withServer(fn: (gh: Running) => Promise<void>): Promise<void> {
  const gh = await start(github)
  try {
    await fn(gh)
  } finally {
    await gh.close()
  }
}

async function rejectsWith(p: Promise<unknown>, code: string, match?: RegExp): Promise<void> {
  await assert.rejects(p, (err: Error & { code?: string }) => {
    assert.equal(err.code, code, err.message)
    assert.ok(CODES.has(err.code!))
    assert.ok(!err.message.includes(TOKEN))
    if (match) assert.match(err.message, match)
    return true
  })
}

test("remoteFileContext with provider 'github': base64 contents, default branch, GitHub link", async () => {
  await withServer(async (gh) => {
    const config = { provider: 'github' as const, baseUrl: `${gh.url}/api/v3`, token: TOKEN }
    const r = await remoteFileContext({ repo: 'acme/alpha', file: 'src/app.ts', line: 10, context: 1 }, config)
    assert.equal(r.source, 'github')
    assert.deepEqual(r.lines, ['app line 9', 'app line 10', 'app line 11'])
    assert.equal(r.ref, 'trunk')
    assert.equal(r.refKind, 'branch')
    assert.equal(r.totalLines, 30)
    assert.equal(r.url, `${gh.url}/acme/alpha/blob/trunk/src/app.ts#L9-L11`)
    const branch = await remoteFileContext({ repo: 'acme/alpha', file: 'src/app.ts', line: 1, context: 0, ref: 'release/2' }, config)
    assert.deepEqual(branch.lines, ['release two'])
    assert.equal(branch.url, `${gh.url}/acme/alpha/blob/release/2/src/app.ts#L1-L1`)
    for (const s of gh.seen) assert.equal(s.headers.authorization, `token ${TOKEN}`)

    // Over 1 MB: the raw media type, streamed.
    const far = await remoteFileContext({ repo: 'acme/alpha', file: 'data/big.txt', line: 50_000, context: 0 }, config)
    assert.deepEqual(far.lines, ['big line 00050000'])
    assert.ok(gh.seen.some((s) => s.headers.accept === 'application/vnd.github.raw+json'))

    await rejectsWith(remoteFileContext({ repo: 'acme/alpha', file: 'nope.ts', line: 1 }, config), 'invalid_request', /^not found/)
    await rejectsWith(
      remoteFileContext({ repo: 'acme/limited', file: 'a.ts', line: 1 }, config),
      'unavailable',
      /rate limit exceeded \(HTTP 403\); it resets at 2023-11-14T22:13:20Z/,
    )
    await rejectsWith(remoteFileContext({ repo: 'acme/alpha', file: 'a.ts', line: 1 }, { ...config, token: 'ghp_wrong' }), 'unauthorized')
    await rejectsWith(remoteFileContext({ repo: 'acme/alpha', file: 'a.ts', line: 1 }, { ...config, provider: 'gitlab' as 'github' }), 'invalid_request', /provider/)
  })
})

test('GitHubClient is shaped like GiteaClient', async () => {
  await withServer(async (gh) => {
    const client = new GitHubClient({ baseUrl: `${gh.url}/api/v3`, token: TOKEN })
    assert.equal(client.baseUrl, `${gh.url}/api/v3/`)
    assert.equal(client.webUrl, `${gh.url}/`)
    assert.equal(client.hasToken, true)
    assert.ok(!JSON.stringify(client).includes(TOKEN))
    assert.equal(await client.getRawFile('acme/alpha', 'src/app.ts'), app)
    assert.equal((await client.getRawFile('acme/alpha', 'data/big.txt')).length, big.length)
    await rejectsWith(client.getRawFile('acme/alpha', 'src/app.ts', 'no-such-ref'), 'invalid_request', /^not found: ref/)
    await rejectsWith(client.getRawFile('not a repo', 'x'), 'invalid_request')
    // Cancellable like GiteaClient.getRawFile: an aborted signal rejects as Node's APIs do.
    const aborted = AbortSignal.abort()
    await assert.rejects(client.getRawFile('acme/alpha', 'src/app.ts', null, { signal: aborted }), (e: Error & { code?: string }) => e.name === 'AbortError' && e.code === 'ABORT_ERR')
    await rejectsWith(client.getRawFile('acme/alpha', 'src/app.ts', null, { signal: 'no' } as never), 'invalid_request')
    assert.equal(new GitHubClient({ baseUrl: 'https://api.github.com' }).webUrl, 'https://github.com/')
    assert.equal(new GitHubClient({ baseUrl: 'https://ghe.example.test/api/v3' }).webUrl, 'https://ghe.example.test/')
    assert.throws(() => new GitHubClient({ baseUrl: 'ftp://x' }), (e: Error & { code?: string }) => e.code === 'invalid_request')
  })
})

test('Hound results link to the code host at the indexed revision; repository keys map both ways', async () => {
  const hound = await startHound()
  try {
    const client = new HoundClient({ baseUrl: hound.url })
    const r = await client.search('fetchUser', { context: 2 })
    const alphaRev = houndIndex.repos.alpha.revision
    const handler = r.results.alpha.matches[0]
    assert.equal(handler.url, `https://git.example.test/acme/alpha/blob/${alphaRev}/pkg/handler.go`)
    assert.equal(handler.matches[0].url, `https://git.example.test/acme/alpha/blob/${alphaRev}/pkg/handler.go#L7`)
    for (const [key, repo] of Object.entries(r.results)) {
      for (const file of repo.matches) {
        assert.ok(file.url?.includes(repo.revision), String(file.url))
        assert.ok(!file.url?.includes('/main/'))
        if (key === 'beta') assert.ok(file.url!.startsWith('https://git.example.test/acme/beta/src/commit/'))
        for (const m of file.matches) assert.ok(m.url?.endsWith(`#L${m.lineNumber}`))
      }
    }
    assert.equal(await client.repoKey('acme/alpha'), 'alpha')
    assert.equal(await client.repoKey('acme/unknown'), null)
    assert.equal(await client.repoName('beta'), 'acme/beta')
    assert.equal(await client.repoName('nope'), null)
    await rejectsWith(client.repoKey('no-slash'), 'invalid_request')
  } finally {
    await hound.close()
  }
})
