// README's "For hound-mcp" and docs/hound-mcp.md, run: hound-mcp's five tools and its start-up
// served by the package's exports, against a local Hound (recorded responses) and Gitea
// (127.0.0.1), with a symbol cache directory across a restart.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'

import { HoundClient, SymbolIndex, remoteFileContext, repoStats } from '../lib/index.js'
import { HOUND_DIR, TOKEN, startGitea, startHound, type Running } from './support/remote-servers.js'

let gitea: Running
let hound: Running
const dirs: string[] = []

before(async () => {
  gitea = await startGitea()
  hound = await startHound()
})

after(async () => {
  await gitea.close()
  await hound.close()
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }))
})

/** The files of Hound's repository `alpha`, as hound-mcp fetches them: `{ path, content }`. */
function sourceFiles(): { path: string; content: string }[] {
  const root = join(HOUND_DIR, 'repos', 'alpha')
  const out: { path: string; content: string }[] = []
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name)
      if (statSync(p).isDirectory()) walk(p)
      else if (!name.endsWith('.bin')) out.push({ path: relative(root, p), content: readFileSync(p, 'utf8') })
    }
  }
  walk(root)
  return out
}

test("hound-mcp's five tools from the package's exports", async () => {
  const houndClient = new HoundClient({ baseUrl: hound.url })
  const cacheDir = realpathSync(mkdtempSync(join(tmpdir(), 'ce-hound-mcp-')))
  dirs.push(cacheDir)
  const symbols = new SymbolIndex({ cacheDir })

  // Start-up: every repository Hound lists, under its code host name.
  const keys = Object.keys(await houndClient.repos())
  assert.deepEqual(keys, ['alpha', 'beta'])
  const repo = (await houndClient.repoName('alpha')) ?? 'alpha'
  assert.equal(repo, 'acme/alpha')
  const indexed = await symbols.indexFiles(repo, sourceFiles())
  assert.ok(indexed.files >= 4 && indexed.parsed === indexed.files)
  await symbols.flush()

  // hound_search({ query, limit, offset }): Hound's answer flattened, then a page of it.
  const [limit, offset] = [1, 0]
  const r = await houndClient.search('fetchUser', { context: 2 })
  const hits = Object.entries(r.results).flatMap(([name, res]) =>
    res.matches.flatMap((f) => f.matches.map((m) => ({ repo: name, file: f.filename, line: m.lineNumber, text: m.line, url: m.url }))),
  )
  const page = hits.slice(offset, offset + limit)
  assert.ok(hits.length > limit)
  assert.deepEqual(page[0].file, 'pkg/handler.go')
  assert.equal(page[0].line, 7)
  assert.ok(page[0].url?.endsWith('#L7'))

  // hound_file_context({ repo, file, line, context })
  const ctx = await remoteFileContext({ repo, file: 'pkg/handler.go', line: 7, context: 1 }, { baseUrl: gitea.url, token: TOKEN })
  assert.equal(ctx.startLine, 6)
  assert.match(ctx.content, />\s*7 \|.*fetchUser/)

  // hound_repo_stats({ repo })
  const stats = await repoStats({ files: sourceFiles() })
  assert.ok(stats.languages.go.files === 1 && stats.languages.python.files === 3)

  // hound_search_symbol({ name, kind, language, repos, limit, offset })
  const found = await symbols.search({ name: '*', repos: 'alpha', limit: 2, offset: 0 })
  assert.equal(found.results.length, 2)
  assert.equal(found.hasMore, found.totalMatches > 2)
  const next = await symbols.search({ name: '*', repos: 'alpha', limit: 2, offset: found.nextOffset })
  assert.notDeepEqual(next.results, found.results)

  // A restart: the saved index answers at once, and the same files parse nothing.
  const restarted = new SymbolIndex({ cacheDir })
  assert.deepEqual(await restarted.search({ name: '*', limit: 1000 }), await symbols.search({ name: '*', limit: 1000 }))
  assert.equal((await restarted.indexFiles(repo, sourceFiles())).parsed, 0)
})
