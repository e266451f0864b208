// Remote file context at the boundary: GiteaClient, HoundClient and remoteFileContext against
// local Node servers on 127.0.0.1 (see support/remote-servers.ts): shapes, defaults, every
// err.code, the Hound quirks on the recorded fixtures, the fallback, and the faults.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

import { GiteaClient, HoundClient, remoteFileContext, type FileContextResult } from '../lib/index.js'
import {
  SECRET_FILE,
  SHA,
  TOKEN,
  alphaFile,
  fixtureBody,
  houndIndex,
  start,
  startFaulty,
  startGitea,
  startHound,
  type Running,
} from './support/remote-servers.js'
import { tempDir } from './support/files'

const code = (err: unknown) => (err as { code?: string }).code
const ALPHA_REV = houndIndex.repos.alpha.revision

async function rejectsWith(p: Promise<unknown>, expected: string, check?: (e: Error) => void): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof Error)
    assert.equal(code(err), expected, `expected ${expected}, got ${code(err)}: ${(err as Error).message}`)
    assert.ok(!(err as Error).message.includes(TOKEN), 'token in message')
    check?.(err as Error)
    return true
  })
}

let gitea: Running
let hound: Running
let closedUrl: string

before(async () => {
  gitea = await startGitea()
  hound = await startHound()
  const tmp = await start(() => {})
  closedUrl = tmp.url
  await tmp.close()
})

after(async () => {
  await gitea.close()
  await hound.close()
})

const config = (extra: Record<string, unknown> = {}) => ({ baseUrl: gitea.url, token: TOKEN, timeout: 5000, ...extra })

// --------------------------------------------------------------------------------------------
// GiteaClient

test('GiteaClient reads settings from the config and the environment', () => {
  const c = new GiteaClient({ baseUrl: 'http://127.0.0.1:9/gitea', token: 'abc' })
  assert.equal(c.baseUrl, 'http://127.0.0.1:9/gitea/')
  assert.equal(c.hasToken, true)
  assert.ok(!JSON.stringify(c).includes('abc'))
  const saved = { url: process.env.GITEA_URL, token: process.env.GITEA_TOKEN, timeout: process.env.GITEA_TIMEOUT, home: process.env.HOME }
  try {
    process.env.GITEA_URL = 'http://127.0.0.1:7'
    process.env.GITEA_TOKEN = 'from-env'
    process.env.HOME = '/nonexistent-home'
    const e = new GiteaClient()
    assert.equal(e.baseUrl, 'http://127.0.0.1:7/')
    assert.equal(e.hasToken, true)
    delete process.env.GITEA_TOKEN
    assert.equal(new GiteaClient().hasToken, false)
    delete process.env.GITEA_URL
    assert.equal(new GiteaClient().baseUrl, 'https://git.integrolabs.net/')
    process.env.GITEA_TIMEOUT = 'soon'
    assert.throws(() => new GiteaClient(), (err: unknown) => code(err) === 'invalid_request' && /GITEA_TIMEOUT/.test((err as Error).message))
    assert.doesNotThrow(() => new GiteaClient({ timeout: 100 }))
  } finally {
    for (const [k, v] of [['GITEA_URL', saved.url], ['GITEA_TOKEN', saved.token], ['GITEA_TIMEOUT', saved.timeout], ['HOME', saved.home]] as const) {
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
    }
  }
})

/** Runs `fn` with environment variables set (undefined deletes), restoring them afterwards. */
async function withEnv(vars: Record<string, string | undefined>, fn: () => Promise<void> | void): Promise<void> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]))
  const apply = (v: Record<string, string | undefined>) => {
    for (const [k, x] of Object.entries(v)) {
      if (x === undefined) delete process.env[k]
      else process.env[k] = x
    }
  }
  apply(vars)
  try {
    await fn()
  } finally {
    apply(saved)
  }
}

test('the token file ~/.config/gitea/token is read when GITEA_TOKEN is unset', async () => {
  const home = tempDir('ce-home-')
  try {
    mkdirSync(join(home, '.config', 'gitea'), { recursive: true })
    writeFileSync(join(home, '.config', 'gitea', 'token'), `${TOKEN}\n`)
    await withEnv({ HOME: home, GITEA_TOKEN: undefined, GITEA_URL: gitea.url }, async () => {
      const c = new GiteaClient()
      assert.equal(c.hasToken, true)
      // acme/secret is private: only the token from the file makes it readable.
      assert.ok((await c.getRawFile('acme/secret', 'src/big.ts')).startsWith('export const needle_001'))
      assert.equal(gitea.seen.at(-1)!.headers.authorization, `token ${TOKEN}`)
    })
  } finally {
    rmSync(home, { recursive: true, force: true })
  }
})

test('remoteFileContext takes GITEA_URL and HOUND_URL from the environment', async () => {
  await withEnv({ GITEA_URL: closedUrl, GITEA_TOKEN: undefined, HOME: '/nonexistent-home', HOUND_URL: hound.url }, async () => {
    const r = await remoteFileContext({ repo: 'acme/alpha', file: 'src/big.ts', line: 200, context: 0 })
    assert.equal(r.source, 'hound')
    assert.deepEqual(r.lines, ['export const needle_200 = "needle 200"; // needle twice'])
    assert.equal(r.url, `${closedUrl}/acme/alpha/src/commit/${ALPHA_REV}/src/big.ts#L200-L200`)
  })
})

test('GiteaClient refuses bad settings with invalid_request', () => {
  const bad: unknown[] = [
    42,
    [],
    { baseUrl: 42 },
    { baseUrl: 'ftp://x' },
    { baseUrl: 'http://user:pw@host' },
    { token: '' },
    { token: 'has space' },
    { token: 7 },
    { timeout: -1 },
    { timeout: 0 },
    { timeout: Number.NaN },
    { timeout: 1.5 },
    { timeout: '100' },
    { maxBytes: 0 },
    { maxBytes: 2 ** 40 },
  ]
  for (const c of bad) {
    assert.throws(() => new GiteaClient(c as never), (err: unknown) => {
      assert.equal(code(err), 'invalid_request', JSON.stringify(c))
      assert.ok(!(err as Error).message.includes('pw'))
      return true
    })
  }
})

test('getRawFile returns the file on the default branch, and on branches, tags and commits', async () => {
  const c = new GiteaClient(config())
  assert.equal(await c.getRawFile('acme/alpha', 'src/big.ts'), alphaFile('src/big.ts').toString('utf8'))
  const req = gitea.seen.at(-1)!
  assert.equal(req.url.pathname, '/api/v1/repos/acme/alpha/raw/src/big.ts')
  assert.equal(req.headers.authorization, `token ${TOKEN}`)
  assert.equal(await c.getRawFile('acme/alpha', 'src/server.ts', 'feature/x'), '// feature branch\nline two\n')
  assert.equal(await c.getRawFile('acme/alpha', 'src/server.ts', 'v1.0'), '// tag v1.0\n')
  assert.equal(await c.getRawFile('acme/alpha', 'src/server.ts', SHA), '// at commit aaaa\n')
})

test('an unknown ref or short SHA is refused (Gitea would serve the default branch)', async () => {
  const c = new GiteaClient(config())
  for (const ref of ['no-such-branch', 'aaaaaaa']) {
    const before = gitea.seen.length
    await rejectsWith(c.getRawFile('acme/alpha', 'src/server.ts', ref), 'invalid_request', (e) => assert.match(e.message, /default branch/))
    assert.ok(gitea.seen.slice(before).every((s) => !s.url.pathname.includes('/raw/')))
  }
  await rejectsWith(c.getRawFile('acme/alpha', 'src/server.ts', 'b'.repeat(40)), 'invalid_request', (e) => assert.match(e.message, /^not found/))
})

test('getRawFile: 404, private repositories, bad tokens, binaries', async () => {
  const anon = new GiteaClient({ baseUrl: gitea.url })
  await rejectsWith(anon.getRawFile('acme/alpha', 'nope.ts'), 'invalid_request', (e) => assert.match(e.message, /^not found/))
  await rejectsWith(anon.getRawFile('acme/secret', 'src/big.ts'), 'invalid_request', (e) => assert.match(e.message, /private/))
  assert.ok((await new GiteaClient(config()).getRawFile('acme/secret', 'src/big.ts')).startsWith('export const needle_001'))
  await rejectsWith(new GiteaClient({ baseUrl: gitea.url, token: 'wrong-token' }).getRawFile('acme/alpha', 'src/big.ts'), 'unauthorized', (e) =>
    assert.ok(!e.message.includes('wrong-token')),
  )
  await rejectsWith(anon.getRawFile('acme/alpha', 'src/image.bin'), 'invalid_request', (e) => assert.match(e.message, /binary/))
})

test('getRawFile validates its arguments and rejects (never throws)', async () => {
  const c = new GiteaClient(config())
  const calls: Array<() => Promise<unknown>> = [
    () => c.getRawFile(42 as never, 'a'),
    () => c.getRawFile('acme/alpha', null as never),
    () => c.getRawFile('alpha', 'a'),
    () => c.getRawFile('acme/alpha', '../etc/passwd'),
    () => c.getRawFile('acme/alpha', ''),
    () => c.getRawFile('acme/alpha', 'a', 'bad ref'),
    () => c.getRawFile('acme/alpha', 'a', 5 as never),
    () => c.getRawFile('acme/alpha', 'x'.repeat(70 * 1024 * 1024)),
  ]
  for (const call of calls) {
    let p: Promise<unknown> | undefined
    assert.doesNotThrow(() => { p = call() })
    await rejectsWith(p!, 'invalid_request')
  }
})

// --------------------------------------------------------------------------------------------
// remoteFileContext

test('remoteFileContext returns numbered lines and a link to the ref served', async () => {
  const r: FileContextResult = await remoteFileContext({ repo: 'acme/alpha', file: 'src/big.ts', line: 150, context: 2 }, config())
  assert.deepEqual(Object.keys(r).sort(), ['content', 'endLine', 'file', 'line', 'lines', 'redacted', 'redactions', 'ref', 'refKind', 'repo', 'source', 'startLine', 'url', 'warnings'])
  assert.equal(r.repo, 'acme/alpha')
  assert.equal(r.file, 'src/big.ts')
  assert.equal(r.startLine, 148)
  assert.equal(r.endLine, 152)
  assert.equal(r.source, 'gitea')
  assert.equal(r.ref, 'trunk')
  assert.equal(r.refKind, 'branch')
  assert.equal(r.url, `${gitea.url}/acme/alpha/src/branch/trunk/src/big.ts#L148-L152`)
  assert.equal(
    r.content,
    ' 148 | export const item_148 = "value 148";\n 149 | export const item_149 = "value 149";\n>150 | export const needle_150 = "needle 150"; // needle twice\n 151 | export const needle_151 = "needle 151"; // needle twice\n 152 | export const item_152 = "value 152";\n',
  )
  assert.deepEqual(r.lines, alphaFile('src/big.ts').toString().split('\n').slice(147, 152))
  assert.deepEqual(r.warnings, [])
  assert.equal(r.totalLines, undefined)

  const d = await remoteFileContext({ repo: 'acme/alpha', file: 'src/big.ts', line: 318 }, config())
  assert.equal(d.startLine, 308)
  assert.equal(d.endLine, 320)
  assert.equal(d.totalLines, 320)

  const tag = await remoteFileContext({ repo: 'acme/alpha', file: 'src/server.ts', line: 1, context: 0, ref: 'v1.0' }, config())
  assert.equal(tag.url, `${gitea.url}/acme/alpha/src/tag/v1.0/src/server.ts#L1-L1`)
  const commit = await remoteFileContext({ repo: 'acme/alpha', file: 'src/server.ts', line: 1, ref: SHA }, config())
  assert.equal(commit.refKind, 'commit')
  assert.equal(commit.url, `${gitea.url}/acme/alpha/src/commit/${SHA}/src/server.ts#L1-L1`)
  const branch = await remoteFileContext({ repo: 'acme/alpha', file: 'src/server.ts', line: 2, ref: 'feature/x' }, config())
  assert.deepEqual(branch.lines, ['// feature branch', 'line two'])
  assert.equal(branch.url, `${gitea.url}/acme/alpha/src/branch/feature/x/src/server.ts#L1-L2`)

  const crlf = await remoteFileContext({ repo: 'acme/alpha', file: 'scripts/crlf.py', line: 2, context: 0 }, config())
  assert.deepEqual(crlf.lines, ['    return "needle crlf"'])
})

test('remoteFileContext redacts secrets; getRawFile returns the file as stored', async () => {
  const r = await remoteFileContext({ repo: 'acme/alpha', file: 'config/app.ts', line: 2, context: 1 }, config())
  assert.equal(r.redacted, 1)
  assert.deepEqual(r.lines, ['const a = 1;', 'const token = "[REDACTED:github_token]";', 'const b = 2;'])
  assert.ok(!r.content.includes('ghp_'))
  assert.equal(await new GiteaClient(config()).getRawFile('acme/alpha', 'config/app.ts'), SECRET_FILE)
})

test('remoteFileContext validates the request and rejects with invalid_request', async () => {
  const ok = { repo: 'acme/alpha', file: 'src/big.ts', line: 1 }
  const bad: unknown[] = [
    undefined,
    'acme/alpha',
    [],
    { ...ok, repo: undefined },
    { ...ok, repo: 5 },
    { ...ok, file: undefined },
    { ...ok, line: 0 },
    { ...ok, line: -3 },
    { ...ok, line: 1.5 },
    { ...ok, line: Number.NaN },
    { ...ok, line: '12' },
    { ...ok, line: Infinity },
    { ...ok, context: 1001 },
    { ...ok, context: -1 },
    { ...ok, ref: '' },
    { ...ok, ref: 'a..b' },
  ]
  for (const req of bad) {
    let p: Promise<unknown> | undefined
    assert.doesNotThrow(() => { p = remoteFileContext(req as never, config()) })
    await rejectsWith(p!, 'invalid_request')
  }
  await rejectsWith(remoteFileContext(ok, { ...config(), fallback: 'yes' } as never), 'invalid_request')
  await rejectsWith(remoteFileContext(ok, 7 as never), 'invalid_request')
  await rejectsWith(remoteFileContext({ ...ok, line: 321 }, config()), 'invalid_request', (e) => assert.equal(e.message, 'line 321 is past the end of the file (320 lines)'))
})

test('remoteFileContext falls back to Hound when Gitea is down, with the same lines', async () => {
  for (const [file, line, context] of [['src/big.ts', 150, 2], ['src/big.ts', 2, 10], ['scripts/crlf.py', 2, 3], ['src/unicode.ts', 2, 1]] as const) {
    const req = { repo: 'acme/alpha', file, line, context }
    const live = await remoteFileContext(req, config({ houndUrl: hound.url }))
    assert.equal(live.source, 'gitea')
    const fb = await remoteFileContext(req, config({ baseUrl: closedUrl, houndUrl: hound.url }))
    assert.equal(fb.source, 'hound')
    assert.deepEqual(fb.lines, live.lines)
    assert.equal(fb.content, live.content)
    assert.equal(fb.ref, ALPHA_REV)
    assert.equal(fb.refKind, 'commit')
    assert.equal(fb.url, `${closedUrl}/acme/alpha/src/commit/${ALPHA_REV}/${file}#L${fb.startLine}-L${fb.endLine}`)
    assert.match(fb.warnings[0], /^Gitea could not be reached.*Served from Hound's index of commit/)
  }
  const search = hound.seen.filter((s) => s.url.pathname === '/api/v1/search').at(-1)!
  assert.equal(search.url.searchParams.get('q'), '')
  assert.equal(search.url.searchParams.get('repos'), 'alpha')
  assert.equal(search.url.searchParams.get('files'), '^src/unicode\\.ts$')
  assert.equal(search.url.searchParams.get('limit'), '3')

  await rejectsWith(remoteFileContext({ repo: 'acme/alpha', file: 'src/big.ts', line: 1 }, config({ baseUrl: closedUrl, houndUrl: hound.url, fallback: false })), 'unavailable')
  await rejectsWith(remoteFileContext({ repo: 'acme/alpha', file: 'src/big.ts', line: 1 }, config({ baseUrl: closedUrl, houndUrl: closedUrl })), 'unavailable', (e) =>
    assert.match(e.message, /Hound fallback failed too/),
  )
  // A 404 is an answer, not an outage: no fallback.
  await rejectsWith(remoteFileContext({ repo: 'acme/alpha', file: 'nope.ts', line: 1 }, config({ houndUrl: hound.url })), 'invalid_request')
})

test('concurrent calls return their own windows', async () => {
  const text = alphaFile('src/big.ts').toString().split('\n')
  const lines = Array.from({ length: 40 }, (_, i) => 1 + ((i * 13) % 320))
  const results = await Promise.all(lines.map((line) => remoteFileContext({ repo: 'acme/alpha', file: 'src/big.ts', line, context: 1 }, config())))
  results.forEach((r, i) => {
    assert.ok(r.startLine <= lines[i] && lines[i] <= r.endLine)
    assert.deepEqual(r.lines, text.slice(r.startLine - 1, r.endLine))
  })
})

// --------------------------------------------------------------------------------------------
// Faults

test('faults map to the contract codes, within the deadline', async () => {
  const other = await start((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' })
    res.end('landed elsewhere\n')
  })
  const faulty = await startFaulty({ awayTo: other.url })
  try {
    const c = new GiteaClient({ baseUrl: faulty.url, token: TOKEN, timeout: 400 })
    const raw = (name: string) => c.getRawFile('acme/faulty', name)
    let t = performance.now()
    await rejectsWith(raw('hang.ts'), 'timeout', (e) => assert.equal(e.message, 'Gitea did not answer within 400 ms'))
    assert.ok(performance.now() - t < 1500, `took ${performance.now() - t} ms`)
    assert.equal(await raw('slow.ts'), 'slow\n')
    await rejectsWith(raw('500.ts'), 'unavailable')
    await rejectsWith(raw('403.ts'), 'unauthorized')
    await rejectsWith(raw('truncated.ts'), 'unavailable', (e) => assert.match(e.message, /closed the connection/))
    const big = new GiteaClient({ baseUrl: faulty.url, timeout: 10000 })
    await rejectsWith(big.getRawFile('acme/faulty', 'huge.ts'), 'invalid_request', (e) => assert.match(e.message, /maxBytes/))
    t = performance.now()
    const r = await remoteFileContext({ repo: 'acme/faulty', file: 'huge.ts', line: 15, context: 5 }, { baseUrl: faulty.url })
    assert.equal(r.startLine, 10)
    assert.equal(r.endLine, 20)
    assert.ok(r.lines.every((l) => l === 'export const filler = "0123456789abcdefghij";'))
    assert.ok(performance.now() - t < 3000)
    await rejectsWith(remoteFileContext({ repo: 'acme/badjson', file: 'a.ts', line: 1 }, { baseUrl: faulty.url }), 'unavailable')
    await rejectsWith(new GiteaClient({ baseUrl: closedUrl, token: TOKEN }).getRawFile('acme/alpha', 'a.ts'), 'unavailable')

    // A redirect to another port: followed, but without the token.
    assert.equal(await raw('away.ts'), 'landed elsewhere\n')
    assert.equal(other.seen.length, 1)
    assert.equal(other.seen[0].headers.authorization, undefined)
    assert.equal(faulty.seen.find((s) => s.url.pathname.endsWith('away.ts'))!.headers.authorization, `token ${TOKEN}`)
  } finally {
    await faulty.close()
    await other.close()
  }
})

// --------------------------------------------------------------------------------------------
// HoundClient

test('HoundClient search returns typed results from the recorded responses', async () => {
  const h = new HoundClient({ baseUrl: hound.url })
  assert.equal(h.baseUrl, `${hound.url}/`)
  const r = await h.search('fetchUser', { context: 2 })
  assert.deepEqual(Object.keys(r.results), ['alpha', 'beta'])
  assert.equal(r.stats, undefined)
  const alpha = r.results.alpha
  assert.equal(alpha.revision, ALPHA_REV)
  assert.equal(alpha.limitReached, false)
  const handler = alpha.matches[0]
  assert.equal(handler.filename, 'pkg/handler.go')
  assert.equal(handler.autoGenerated, false)
  assert.deepEqual(handler.matches[0], {
    line: '\tuser := fetchUser(r.URL.Query().Get("id"))',
    lineNumber: 7,
    before: ['// TODO: add auth', 'func GetUserHandler(w http.ResponseWriter, r *http.Request) {'],
    after: ['\tw.Write([]byte(user))', '}'],
    // Linked to the code host at the indexed revision (github.spec.ts tests the links).
    url: `https://git.example.test/acme/alpha/blob/${ALPHA_REV}/pkg/handler.go#L7`,
  })
  // The whole recorded body, mapped key by key.
  const raw = JSON.parse(fixtureBody('search_literal_ctx2').toString())
  for (const [name, repo] of Object.entries(raw.Results) as Array<[string, { Matches: Array<{ Filename: string; Matches: Array<{ Line: string; LineNumber: number; Before: string[]; After: string[] }> }> }]>) {
    assert.deepEqual(
      r.results[name].matches.map((f) => [f.filename, f.matches.map((m) => [m.line, m.lineNumber, m.before, m.after])]),
      repo.Matches.map((f) => [f.Filename, f.Matches.map((m) => [m.Line, m.LineNumber, m.Before, m.After])]),
    )
  }

  const ci = await h.search('fetchuser', { ignoreCase: true, context: 0 })
  assert.ok(ci.results.alpha.matches.some((f) => f.matches.some((m) => m.line === 'def FetchUser(user_id):')))
  const lit = await h.search('fetchUser(', { literal: true })
  assert.ok(lit.results.alpha.matches.length > 0)
  const files = await h.search('TODO', { files: '\\.ts$', context: 1 })
  assert.deepEqual(Object.values(files.results).flatMap((x) => x.matches.map((f) => f.filename)), ['src/server.ts', 'web/app.ts'])
  const excl = await h.search('TODO', { excludeFiles: '\\.(ts|go)$', context: 1 })
  assert.deepEqual(Object.values(excl.results).flatMap((x) => x.matches.map((f) => f.filename)), ['scripts/util.py', 'lib/parse.py'])
  const page = await h.search('TODO', { rng: { offset: 1, limit: 1 }, context: 0 })
  assert.equal(page.results.alpha.matches[0].filename, 'scripts/util.py')
  assert.equal(page.results.alpha.filesWithMatch, 3)
  const stats = await h.search('TODO', { repos: ['beta'], stats: true, context: 0 })
  assert.equal(stats.stats?.filesOpened, 3)
  assert.equal(typeof stats.stats?.durationMs, 'number')
  const edge = await h.search('needle', { repos: 'alpha', files: 'notrail|crlf|unicode|generated|hidden', context: 1 })
  const byName = Object.fromEntries(edge.results.alpha.matches.map((f) => [f.filename, f]))
  assert.equal(byName['scripts/crlf.py'].matches[0].line, '    return "needle crlf"\r')
  assert.equal(byName['gen/generated.ts'].autoGenerated, true)
  assert.deepEqual((await h.search('zzznomatchzzz')).results, {})
})

test('HoundClient handles the server quirks', async () => {
  const h = new HoundClient({ baseUrl: hound.url })
  // HTTP 200 + {"Error"}: invalid_request, reason kept, pattern not echoed.
  await rejectsWith(h.search('fetchUser('), 'invalid_request', (e) => {
    assert.equal(e.message, 'Hound rejected the search: error parsing regexp: missing closing )')
  })
  await rejectsWith(h.search('TODO', { files: '(' }), 'invalid_request')
  // ctx above Hound's cap of 20 is refused, not silently clamped.
  const seen = hound.seen.length
  await rejectsWith(h.search('needle_150', { repos: ['alpha'], context: 99 }), 'invalid_request', (e) => assert.match(e.message, /20/))
  assert.equal(hound.seen.length, seen)
  // limit is per repository, and reaching it is reported.
  const lim = await h.search('needle|TODO', { limit: 2, context: 0 })
  for (const repo of Object.values(lim.results)) {
    assert.equal(repo.matches.reduce((n, f) => n + f.matches.length, 0), 2)
    assert.equal(repo.limitReached, true)
  }
  // Names are trimmed (Hound would drop " beta"); the default is every repository, not none.
  await h.search('TODO', { repos: ['alpha', ' beta'], context: 0 }).catch(() => undefined)
  assert.equal(hound.seen.at(-1)!.url.searchParams.get('repos'), 'alpha,beta')
  await h.search('zzznomatchzzz')
  assert.equal(hound.seen.at(-1)!.url.searchParams.get('repos'), '*')
  await rejectsWith(h.search('x', { repos: [] }), 'invalid_request')
  for (const opts of [{ limit: -1 }, { limit: 1.5 }, { context: Number.NaN }, { ignoreCase: 'yes' }, { repos: 5 }, { rng: { offset: -1 } }, 3]) {
    await rejectsWith(h.search('x', opts as never), 'invalid_request')
  }
  await rejectsWith(h.search(5 as never), 'invalid_request')

  const notReady = await startHound({ notReady: true })
  try {
    await rejectsWith(new HoundClient({ baseUrl: notReady.url }).search('x'), 'unavailable', (e) => assert.match(e.message, /503/))
  } finally {
    await notReady.close()
  }
  await rejectsWith(new HoundClient({ baseUrl: closedUrl }).search('x'), 'unavailable')
})

test('HoundClient repos and excludes', async () => {
  const h = new HoundClient({ baseUrl: hound.url })
  const repos = await h.repos()
  assert.deepEqual(Object.keys(repos), ['alpha', 'beta'])
  assert.equal(repos.alpha.url, 'https://git.example.test/acme/alpha')
  assert.equal(repos.alpha.displayName, '')
  assert.equal(repos.alpha.vcsConfigSet, false)
  assert.equal(repos.alpha.enablePollUpdates, undefined)
  assert.deepEqual(repos.alpha.urlPattern, { baseUrl: '{url}/blob/{rev}/{path}{anchor}', anchor: '#L{line}' })
  assert.equal(repos.beta.displayName, 'Beta Service')
  assert.equal(repos.beta.vcsConfigSet, true)
  assert.equal(repos.beta.enablePollUpdates, false)
  assert.equal(repos.beta.msBetweenPoll, 30000)
  assert.deepEqual(await h.excludes('alpha'), [{ filename: 'src/image.bin', reason: 'Not a text file.' }])
  await rejectsWith(h.excludes(3 as never), 'invalid_request')
})
