// The MCP server (`context-engine mcp`) driven through the official SDK client over stdio:
// the tool list and schemas, every tool on a real temporary git repository, bad input as
// `isError` results with our error codes, escape attempts (dot-dot, absolute paths, symlinks,
// roots), client roots, two sessions at once, progress, shutdown on end of stdin, and the
// remote tools against local fake Gitea and Hound servers on 127.0.0.1.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, mkdirSync, writeFileSync, rmSync, symlinkSync, realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, dirname } from 'node:path'
import { pathToFileURL } from 'node:url'

import { Client } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'

import { countTokens } from '../lib/index.js'
import { type Result, BIN, ok, resultTokens, serverEnv, text, write } from './support/mcp'
import { jsonSchema } from '../lib/mcp/args'
import { toolsFor } from '../lib/mcp/tools'
import { startGitea, startHound, TOKEN, type Running } from './support/remote-servers'

const LOCAL_TOOLS = ['search_code', 'find_symbol', 'find_references', 'repo_map', 'file_context', 'expand_chunk', 'count_tokens', 'fit_to_budget', 'build_context']
/** A made-up GitHub token: file_context must redact it. */
const FAKE_TOKEN = 'ghp_R8sK2mQ9vX4tL7wN1pZ6cB3yH5jF0dG8eA2u'


function git(root: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=Test', '-c', 'init.defaultBranch=main', ...args], { cwd: root, stdio: 'ignore' })
}

const ROUTER = [
  '/** Routes requests to handlers. */',
  'export class Router {',
  '  private routes: Route[] = []',
  '',
  '  add(method: string, path: string, handler: Handler): void {',
  '    this.routes.push({ method, path, handler })',
  '  }',
  '',
  '  match(method: string, path: string): Handler | undefined {',
  '    return this.routes.find((r) => r.method === method && r.path === path)?.handler',
  '  }',
  '}',
  '',
].join('\n')

function makeRepo(): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'ce-mcp-')))
  write(root, 'src/router.ts', ROUTER)
  write(root, 'src/cookie.ts', 'export function parseCookie(header: string): Record<string, string> {\n  return Object.fromEntries(header.split(";").map((p) => p.trim().split("=")))\n}\n')
  write(root, 'config/keys.ts', `export const a = 1\nexport const githubToken = "${FAKE_TOKEN}"\nexport const b = 2\n`)
  write(root, 'TASKS.md', `# Task\n\nAdd a DELETE route to the Router.\nDeploy with ${FAKE_TOKEN}\n`)
  write(root, 'CLAUDE.md', 'Use two-space indentation.\n')
  git(root, 'init', '-q')
  git(root, 'add', '-A')
  git(root, 'commit', '-qm', 'initial router')
  git(root, 'checkout', '-qb', 'feature')
  write(root, 'src/router.ts', ROUTER.replace('  add(', '  remove(path: string): void {\n    this.routes = this.routes.filter((r) => r.path !== path)\n  }\n\n  add('))
  git(root, 'commit', '-qam', 'remove routes')
  return root
}

/** Where the servers of these tests save their indexes (never the user's cache folder). */
const CACHE_HOME = realpathSync(mkdtempSync(join(tmpdir(), 'ce-mcp-cache-')))

const baseEnv = (): Record<string, string> => serverEnv(CACHE_HOME)

interface Session {
  client: Client
  transport: StdioClientTransport
  stderr: () => string
}

async function connect(opts: { root?: string; cwd?: string; env?: Record<string, string>; roots?: string[] } = {}): Promise<Session> {
  const args = [BIN, 'mcp']
  if (opts.root) args.push('--root', opts.root)
  const transport = new StdioClientTransport({ command: process.execPath, args, cwd: opts.cwd, env: opts.env ?? baseEnv(), stderr: 'pipe' })
  let err = ''
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()))
  const client = new Client({ name: 'mcp-spec', version: '1.0.0' }, opts.roots ? { capabilities: { roots: { listChanged: true } } } : undefined)
  if (opts.roots) {
    const roots = opts.roots
    client.setRequestHandler('roots/list', async () => ({ roots: roots.map((r) => ({ uri: pathToFileURL(r).href, name: r })) }))
  }
  await client.connect(transport)
  return { client, transport, stderr: () => err }
}

function assertError(r: Result, code: string, pattern?: RegExp): void {
  assert.equal(r.isError, true, `expected an error result, got ${JSON.stringify(r).slice(0, 300)}`)
  const t = text(r)
  assert.ok(t.startsWith(`${code}: `), `expected "${code}: ..." got ${t}`)
  if (pattern) assert.match(t, pattern)
}

let repo: string
let outside: string
let s: Session

before(async () => {
  repo = makeRepo()
  outside = realpathSync(mkdtempSync(join(tmpdir(), 'ce-mcp-outside-')))
  write(outside, 'secret.txt', 'outside the root\n')
  write(outside, 'src/other.ts', 'export const other = 1\n')
  symlinkSync(join(outside, 'secret.txt'), join(repo, 'link-out.txt'))
  symlinkSync(outside, join(repo, 'dir-out'))
  s = await connect({ root: repo })
})

after(async () => {
  await s?.client.close()
  rmSync(repo, { recursive: true, force: true })
  rmSync(outside, { recursive: true, force: true })
  rmSync(CACHE_HOME, { recursive: true, force: true })
})

test('tools/list: the local tools with precise JSON schemas (from zod) and output schemas', async () => {
  const { tools } = await s.client.listTools()
  assert.deepEqual(tools.map((t) => t.name), LOCAL_TOOLS)
  for (const t of tools) {
    assert.ok(t.description && t.description.length > 80, `${t.name} has a description for a model`)
    assert.equal(t.inputSchema.type, 'object')
    assert.equal((t.inputSchema as any).additionalProperties, false, `${t.name} rejects unknown arguments`)
    assert.equal(t.outputSchema?.type, 'object', `${t.name} has an output schema`)
  }
  const search = tools.find((t) => t.name === 'search_code')!
  assert.deepEqual(search.inputSchema.required, ['query'])
  assert.deepEqual((search.inputSchema.properties as any).limit, { type: 'integer', minimum: 1, maximum: 100, default: 10, description: 'Snippets wanted (1-100). Default 10.' })
  // Every tool that returns code takes a token budget, 8000 by default and at most 25000.
  for (const name of ['search_code', 'find_symbol', 'find_references', 'file_context', 'expand_chunk']) {
    const m = (tools.find((t) => t.name === name)!.inputSchema.properties as any).maxTokens
    assert.deepEqual([m.type, m.default, m.maximum], ['integer', 8000, 25000], name)
  }
  const build = tools.find((t) => t.name === 'build_context')!
  assert.deepEqual((build.inputSchema.properties as any).kind.enum, ['implementation', 'review', 'fix', 'issue'])
  assert.deepEqual(tools.find((t) => t.name === 'expand_chunk')!.inputSchema.required, ['path', 'startLine', 'endLine'])
})

test('search_code: ranked snippets of the repository, text and structured', async () => {
  const r = await s.client.callTool({ name: 'search_code', arguments: { query: 'where are routes matched by method and path', limit: 3 } })
  const out = ok(r)
  assert.ok(out.results.length >= 1 && out.results.length <= 3)
  const top = out.results[0]
  assert.equal(top.path, 'src/router.ts')
  assert.ok(text(r).includes('match(method: string, path: string)'))
  // The code is in the text only: the structured result carries the places.
  assert.equal(top.content, undefined)
  assert.ok(!JSON.stringify(r.structuredContent).includes('match(method'))
  assert.ok(top.score > 0 && top.startLine >= 1 && top.endLine >= top.startLine)
  assert.ok(text(r).startsWith(`src/router.ts:${top.startLine}-${top.endLine}  score `))
  // Fresh: a file written now is found by the next call.
  write(repo, 'src/zebra.ts', 'export function zebraStripes(count: number) {\n  return count * 2\n}\n')
  const again = ok(await s.client.callTool({ name: 'search_code', arguments: { query: 'zebraStripes' } }))
  assert.equal(again.results[0].path, 'src/zebra.ts')
  const none = await s.client.callTool({ name: 'search_code', arguments: { query: 'qqqxyznothinghere' } })
  assert.deepEqual(ok(none).results, [])
  assert.equal(text(none), 'No matching code.')
})

test('expand_chunk: lines around a snippet, or its enclosing block', async () => {
  const lines = ok(await s.client.callTool({ name: 'expand_chunk', arguments: { path: 'src/router.ts', startLine: 10, endLine: 10, contextLines: 2 } }))
  assert.equal(lines.startLine, 8)
  assert.equal(lines.mode, 'lines')
  // Line 14 (on the feature branch) is the body of `match`.
  const structure = await s.client.callTool({ name: 'expand_chunk', arguments: { path: 'src/router.ts', startLine: 14, endLine: 14, structure: true } })
  const st = ok(structure)
  assert.equal(st.mode, 'structure')
  assert.equal(st.blockKind, 'method')
  assert.deepEqual([st.startLine, st.endLine], [13, 15])
  assert.match(text(structure), /\n13 \|   match\(method: string, path: string\)/)
  assert.match(text(structure), /^src\/router\.ts:13-15 \(method\)\n13 \|   match\(/)
  assertError(await s.client.callTool({ name: 'expand_chunk', arguments: { path: 'src/router.ts', startLine: 500, endLine: 501 } }), 'invalid_request', /outside the file/)
  assertError(await s.client.callTool({ name: 'expand_chunk', arguments: { path: 'src/router.ts', startLine: 5, endLine: 4 } }), 'invalid_request', /startLine must be <= endLine/)
})

test('file_context: numbered lines, ranges, secrets redacted', async () => {
  const r = await s.client.callTool({ name: 'file_context', arguments: { path: 'config/keys.ts' } })
  const out = ok(r)
  assert.equal(out.startLine, 1)
  assert.equal(out.endLine, 3)
  assert.equal(out.moreAfter, false)
  assert.ok(!text(r).includes(FAKE_TOKEN), 'the token is redacted')
  assert.match(text(r), /\[REDACTED/)
  assert.match(text(r), /^config\/keys\.ts:1-3\n1 \| export const a = 1\n/)
  const rangeResult = await s.client.callTool({ name: 'file_context', arguments: { path: 'src/router.ts', startLine: 2, endLine: 3 } })
  const range = ok(rangeResult)
  assert.deepEqual([range.startLine, range.endLine, range.moreAfter, range.nextStartLine], [2, 3, true, 4])
  assert.ok(text(rangeResult).startsWith(`src/router.ts:2-3\n2 | ${ROUTER.split('\n')[1]}\n3 | ${ROUTER.split('\n')[2]}\n`))
  const abs = ok(await s.client.callTool({ name: 'file_context', arguments: { path: join(repo, 'src/cookie.ts'), endLine: 1 } }))
  assert.equal(abs.path, 'src/cookie.ts')
  assertError(await s.client.callTool({ name: 'file_context', arguments: { path: 'src/missing.ts' } }), 'invalid_request', /not found/)
})

test('count_tokens and fit_to_budget: exact counts and budgets', async () => {
  const sample = 'function add(a, b) { return a + b }\n'.repeat(20)
  const c = ok(await s.client.callTool({ name: 'count_tokens', arguments: { text: sample } }))
  assert.deepEqual(c, { tokens: await countTokens(sample), encoding: 'o200k_base' })
  const cl = ok(await s.client.callTool({ name: 'count_tokens', arguments: { text: sample, encoding: 'cl100k_base' } }))
  assert.equal(cl.tokens, await countTokens(sample, 'cl100k_base'))
  const sections = { diff: 'line of the diff\n'.repeat(400), notes: 'a note\n'.repeat(50) }
  const fit = ok(await s.client.callTool({ name: 'fit_to_budget', arguments: { sections, budget: 300 } }))
  assert.equal(fit.truncated, true)
  assert.deepEqual(Object.keys(fit.sections), ['diff', 'notes'])
  assert.ok((await countTokens(fit.sections.diff + fit.sections.notes)) <= 300)
  assert.equal(fit.metadata.budget, 300)
  const same = ok(await s.client.callTool({ name: 'fit_to_budget', arguments: { sections: { a: 'short' }, budget: 100 } }))
  assert.deepEqual(same, { sections: { a: 'short' }, truncated: false })
  // A message over the SDK's default 10 MB read buffer is still read: 8 Mi characters (the
  // most a text may hold), 13 MiB of UTF-8.
  const big = 'ünïcödé '.repeat(1024 * 1024)
  assert.equal(ok(await s.client.callTool({ name: 'count_tokens', arguments: { text: big } })).tokens, await countTokens(big))
})

test('build_context: implementation, review, fix and issue contexts', async () => {
  const implResult = await s.client.callTool({ name: 'build_context', arguments: { kind: 'implementation', taskFile: 'TASKS.md' } })
  const impl = ok(implResult)
  assert.equal(impl.kind, 'implementation')
  assert.deepEqual(impl.sections, ['tasks', 'conventions', 'branch', 'recent_commits'])
  assert.match(text(implResult), /## tasks\n# Task\n\nAdd a DELETE route/)
  assert.match(text(implResult), /Deploy with \[REDACTED:[a-z_]+\]/, 'secrets in builder sections are redacted')
  assert.ok(!JSON.stringify(implResult).includes(FAKE_TOKEN))
  assert.match(text(implResult), /## conventions\nUse two-space/)
  assert.match(text(implResult), /## branch\nfeature\n/)
  assert.match(text(implResult), /## recent_commits\n[0-9a-f]{10} \S+ Test: remove routes/)

  const review = await s.client.callTool({ name: 'build_context', arguments: { kind: 'review', baseBranch: 'main' } })
  const rv = ok(review)
  assert.match(text(review), /^## diff\n/)
  assert.match(text(review), /\+  remove\(path: string\): void/)
  assert.match(text(review), /## changed_files\n### src\/router\.ts\n/)
  assert.match(text(review), /"filesChanged": 1/)
  assert.equal(rv.truncated, false)

  const tsc = 'src/router.ts(6,5): error TS2322: Type \'string\' is not assignable to type \'number\'.\n'
  const fix = await s.client.callTool({ name: 'build_context', arguments: { kind: 'fix', validationOutput: tsc } })
  ok(fix)
  assert.match(text(fix), /## errors\n[^#]*TS2322/)
  assert.match(text(fix), /### src\/router\.ts\n[^#]*this\.routes\.push/)

  const issue = await s.client.callTool({
    name: 'build_context',
    arguments: { kind: 'issue', issue: { number: 7, title: 'Cookie parsing drops values', body: 'See src/cookie.ts:2', labels: ['bug'] } },
  })
  ok(issue)
  assert.match(text(issue), /## issue\n#7: Cookie parsing drops values\n/)
  assert.match(text(issue), /## related_files\n### src\/cookie\.ts\n/)
})

test('bad arguments: isError results starting with invalid_request, never protocol errors', async () => {
  const cases: Array<[string, Record<string, unknown> | undefined, RegExp]> = [
    ['search_code', {}, /query is required/],
    ['search_code', undefined, /query is required/],
    ['search_code', { query: 42 }, /query must be a string/],
    ['search_code', { query: '' }, /query must not be empty/],
    ['search_code', { query: 'x', limit: 0 }, /limit must be >= 1/],
    ['search_code', { query: 'x', limit: 101 }, /limit must be <= 100/],
    ['search_code', { query: 'x', limit: 2.5 }, /limit must be a whole number/],
    ['search_code', { query: 'x', colour: 'red' }, /unknown argument colour/],
    ['expand_chunk', { path: 'src/router.ts', startLine: 1 }, /endLine is required/],
    ['expand_chunk', { path: 'src/router.ts', startLine: '1', endLine: 2 }, /startLine must be a whole number/],
    ['file_context', { path: ['a'] }, /path must be a string/],
    ['count_tokens', { text: 'x', encoding: 'p50k' }, /encoding must be one of "o200k_base", "cl100k_base"/],
    ['fit_to_budget', { sections: { a: 1 }, budget: 10 }, /sections\["a"\] must be a string/],
    ['fit_to_budget', { sections: {}, budget: 10 }, /sections must have at least 1 entry/],
    ['fit_to_budget', { sections: { a: 'x' }, budget: -1 }, /budget must be >= 1/],
    ['build_context', { kind: 'deploy' }, /kind must be one of/],
    ['build_context', { kind: 'implementation' }, /taskFile is required for kind 'implementation'/],
    ['build_context', { kind: 'review', taskFile: 'TASKS.md' }, /taskFile applies only to kind 'implementation'/],
    ['build_context', { kind: 'issue', issue: { number: 1 } }, /issue.title is required/],
    ['build_context', { kind: 'review', baseBranch: '--output=/tmp/x' }, /./],
    ['no_such_tool', {}, /unknown tool; the tools are: search_code, find_symbol, find_references, repo_map, file_context, expand_chunk, count_tokens, fit_to_budget, build_context$/],
  ]
  for (const [name, args, pattern] of cases) {
    const r = await s.client.callTool({ name, arguments: args })
    assertError(r, 'invalid_request', pattern)
    assert.ok(!text(r).includes('/tmp/x'), 'the value is not echoed')
  }
  // The server is still answering.
  assert.ok(ok(await s.client.callTool({ name: 'count_tokens', arguments: { text: 'still alive' } })).tokens > 0)
})

test('escape attempts: dot-dot, absolute paths, symlinks and roots outside are refused', async () => {
  const attempts: Array<[string, Record<string, unknown>]> = [
    ['file_context', { path: '../../etc/passwd' }],
    ['file_context', { path: '/etc/passwd' }],
    ['file_context', { path: join(outside, 'secret.txt') }],
    ['file_context', { path: 'link-out.txt' }],
    ['file_context', { path: 'dir-out/secret.txt' }],
    ['file_context', { path: 'src/../../' + outside.split('/').pop() + '/secret.txt' }],
    ['expand_chunk', { path: '../../etc/passwd', startLine: 1, endLine: 1 }],
    ['expand_chunk', { path: 'link-out.txt', startLine: 1, endLine: 1 }],
    ['search_code', { query: 'other', root: outside }],
    ['search_code', { query: 'other', root: '/' }],
    ['search_code', { query: 'other', root: 'dir-out' }],
    ['search_code', { query: 'other', root: '..' }],
    ['build_context', { kind: 'review', root: '/etc' }],
    ['build_context', { kind: 'implementation', taskFile: '../../etc/passwd' }],
    ['build_context', { kind: 'implementation', taskFile: 'link-out.txt' }],
  ]
  for (const [name, args] of attempts) {
    const r = await s.client.callTool({ name, arguments: args })
    assertError(r, 'invalid_request', /outside|not found|not an existing directory/)
    assert.ok(!text(r).includes('outside the root\n'), 'nothing of the outside file is returned')
    assert.ok(!text(r).includes(outside), 'the outside path is not echoed')
  }
  // A root inside the allowed root is fine.
  const inner = ok(await s.client.callTool({ name: 'search_code', arguments: { query: 'parseCookie', root: 'src' } }))
  assert.equal(inner.results[0].path, 'cookie.ts')
})

test('client roots replace the working directory; --root stays allowed', async () => {
  const other = realpathSync(mkdtempSync(join(tmpdir(), 'ce-mcp-cwd-')))
  write(other, 'cwd.ts', 'export const inWorkingDirectory = true\n')
  const c = await connect({ cwd: other, roots: [outside] })
  try {
    // The default root is the client's first root.
    const found = ok(await c.client.callTool({ name: 'search_code', arguments: { query: 'other' } }))
    assert.equal(found.results[0].path, 'src/other.ts')
    assert.equal(text(await c.client.callTool({ name: 'file_context', arguments: { path: 'secret.txt' } })), 'secret.txt:1-1\n1 | outside the root')
    // The working directory is not a root once the client named its own.
    assertError(await c.client.callTool({ name: 'search_code', arguments: { query: 'x', root: other } }), 'invalid_request', /outside the roots/)
    assertError(await c.client.callTool({ name: 'search_code', arguments: { query: 'x', root: repo } }), 'invalid_request', /outside the roots/)
  } finally {
    await c.client.close()
  }
  // Without client roots the working directory is the root.
  const d = await connect({ cwd: other })
  try {
    assert.equal(ok(await d.client.callTool({ name: 'search_code', arguments: { query: 'inWorkingDirectory' } })).results[0].path, 'cwd.ts')
    assertError(await d.client.callTool({ name: 'search_code', arguments: { query: 'x', root: repo } }), 'invalid_request', /outside the roots/)
  } finally {
    await d.client.close()
  }
  // --root plus client roots: both allowed, --root is the default.
  const e = await connect({ root: repo, roots: [outside] })
  try {
    assert.equal(ok(await e.client.callTool({ name: 'search_code', arguments: { query: 'parseCookie' } })).results[0].path, 'src/cookie.ts')
    assert.equal(ok(await e.client.callTool({ name: 'search_code', arguments: { query: 'other', root: outside } })).results[0].path, 'src/other.ts')
    assertError(await e.client.callTool({ name: 'search_code', arguments: { query: 'x', root: other } }), 'invalid_request', /outside the roots/)
  } finally {
    await e.client.close()
    rmSync(other, { recursive: true, force: true })
  }
})

test('search_code without root searches every client root: one merged answer, each hit with its root, within the budget', async () => {
  const web = realpathSync(mkdtempSync(join(tmpdir(), 'ce-mcp-web-')))
  const billing = realpathSync(mkdtempSync(join(tmpdir(), 'ce-mcp-billing-')))
  write(web, 'src/checkout.ts', 'import { chargeInvoice } from "billing"\nexport function checkoutPage() {\n  return chargeInvoice(cart.total)\n}\n')
  write(web, 'src/router.ts', ROUTER)
  write(billing, 'src/invoice.ts', 'export function chargeInvoice(total: number) {\n  // charge the invoice total to the card\n  return stripe.charge(total)\n}\n')
  for (const r of [web, billing]) git(r, 'init', '-q')
  const c = await connect({ cwd: web, roots: [web, billing] })
  try {
    const progress: Array<{ progress: number; total?: number }> = []
    const r = await c.client.callTool(
      { name: 'search_code', arguments: { query: 'charge the invoice total at checkout', limit: 5 } },
      { onprogress: (p) => progress.push(p) },
    )
    // The roots' indexing is reported as one count, which only grows.
    for (let i = 1; i < progress.length; i++) assert.ok(progress[i].progress > progress[i - 1].progress, 'progress increases')
    const out = ok(r)
    assert.deepEqual(
      out.results
        .slice(0, 2)
        .map((x: { root: string; path: string }) => `${x.root}|${x.path}`)
        .sort(),
      [`${billing}|src/invoice.ts`, `${web}|src/checkout.ts`].sort(),
    )
    const t = text(r)
    const webLabel = web.split('/').pop()
    const billingLabel = billing.split('/').pop()
    const first = out.results[0].root === web ? `[${webLabel}] src/checkout.ts:1-` : `[${billingLabel}] src/invoice.ts:1-`
    assert.ok(t.startsWith(`Searched 2 roots: [${webLabel}] = ${web}; [${billingLabel}] = ${billing}\n\n${first}`), t.slice(0, 300))
    assert.ok(t.includes(`[${webLabel}] src/checkout.ts:`) && t.includes(`[${billingLabel}] src/invoice.ts:`))
    // A result's root is what the other tools take.
    const hit = out.results.find((x: { path: string }) => x.path === 'src/invoice.ts')
    const read = await c.client.callTool({ name: 'file_context', arguments: { path: hit.path, root: hit.root } })
    assert.ok(text(read).includes('stripe.charge'))
    // Within the budget: a small maxTokens stops the merged list and says how to continue.
    const tight = await c.client.callTool({ name: 'search_code', arguments: { query: 'charge invoice checkout router match', limit: 20, maxTokens: 300 } })
    assert.ok((await resultTokens(tight)) <= 300, `${await resultTokens(tight)} tokens`)
    assert.equal(ok(tight).truncated, true)
    // With a root argument, one root and no labels.
    const one = await c.client.callTool({ name: 'search_code', arguments: { query: 'chargeInvoice', root: billing } })
    assert.equal(ok(one).results[0].root, undefined)
    assert.ok(text(one).startsWith('src/invoice.ts:'))
  } finally {
    await c.client.close()
    rmSync(web, { recursive: true, force: true })
    rmSync(billing, { recursive: true, force: true })
  }
})

test('every client root is indexed in the background before any call, the default root first', async () => {
  const one = realpathSync(mkdtempSync(join(tmpdir(), 'ce-mcp-prep-a-')))
  const two = realpathSync(mkdtempSync(join(tmpdir(), 'ce-mcp-prep-b-')))
  write(one, 'src/a.ts', 'export function alpha() {\n  return 1\n}\n')
  write(two, 'src/b.ts', 'export function beta() {\n  return 2\n}\n')
  for (const r of [one, two]) git(r, 'init', '-q')
  const c = await connect({ cwd: one, roots: [one, two] })
  try {
    await waitFor(() => c.stderr().includes(`index of ${one} ready`) && c.stderr().includes(`index of ${two} ready`))
    const log = c.stderr()
    assert.ok(log.indexOf(`index of ${one} ready`) < log.indexOf(`index of ${two} ready`), log)
  } finally {
    await c.client.close()
    rmSync(one, { recursive: true, force: true })
    rmSync(two, { recursive: true, force: true })
  }
})

test('two sessions at once answer independently', async () => {
  const [a, b] = await Promise.all([connect({ root: repo }), connect({ root: outside })])
  try {
    const [ra, rb] = await Promise.all([
      a.client.callTool({ name: 'search_code', arguments: { query: 'parseCookie' } }),
      b.client.callTool({ name: 'search_code', arguments: { query: 'other' } }),
    ])
    assert.equal(ok(ra).results[0].path, 'src/cookie.ts')
    assert.equal(ok(rb).results[0].path, 'src/other.ts')
    assertError(await b.client.callTool({ name: 'file_context', arguments: { path: join(repo, 'TASKS.md') } }), 'invalid_request', /outside the root/)
  } finally {
    await Promise.all([a.client.close(), b.client.close()])
  }
})

test('a first indexing reports progress to a client that asks for it; cancelling a call leaves the server serving', async () => {
  const big = realpathSync(mkdtempSync(join(tmpdir(), 'ce-mcp-big-')))
  for (let i = 0; i < 4000; i++) {
    write(big, `pkg${i % 40}/mod${i}.ts`, `export function handler${i}(input: number): number {\n  return input * ${i} + ${i % 7}\n}\n// ${'filler text '.repeat(40)}\n`)
  }
  write(big, 'target/needle.ts', 'nothing here\n')
  write(big, 'src/needle.ts', 'export function findTheNeedleInTheHaystack() {}\n')
  // The server prepares the client's roots in the background one after another, the first
  // (small) one first: the first search of the second root waits for its indexing and must
  // report its progress, to the end, whether the call or the background started the build.
  const c = await connect({ cwd: outside, roots: [outside, big] })
  try {
    const progress: Array<{ progress: number; total?: number; message?: string }> = []
    const r = await c.client.callTool({ name: 'search_code', arguments: { query: 'findTheNeedleInTheHaystack', root: big } }, { onprogress: (p) => progress.push(p) })
    assert.equal(ok(r).results[0].path, 'src/needle.ts')
    assert.ok(progress.length >= 1, 'at least one progress notification while indexing')
    for (let i = 1; i < progress.length; i++) assert.ok(progress[i].progress > progress[i - 1].progress, 'progress increases')
    for (const p of progress) if (p.total !== undefined) assert.ok(p.progress <= p.total)
    // A host can show a percentage and a message.
    const last = progress[progress.length - 1]
    assert.ok(last.total !== undefined && last.total >= 4000, `total files: ${JSON.stringify(last)}`)
    assert.equal(last.progress, last.total, 'the last notification says the indexing is done')
    assert.match(last.message ?? '', /^indexed the repository: \d+ files, \d+\.\d s$/)
    for (const p of progress.slice(0, -1)) assert.match(p.message ?? '', /^indexing the repository: \d+ of \d+ files read \(\d+%\), \d+\.\d s$/)
    // Warm: no progress.
    const warm: unknown[] = []
    ok(await c.client.callTool({ name: 'search_code', arguments: { query: 'handler17', root: big } }, { onprogress: (p) => warm.push(p) }))
    assert.deepEqual(warm, [])
    // A cancelled call is abandoned by the client; the server keeps serving.
    const ac = new AbortController()
    const cancelled = c.client.callTool({ name: 'search_code', arguments: { query: 'handler42 handler43', root: big } }, { signal: ac.signal })
    ac.abort()
    await assert.rejects(cancelled)
    assert.equal(ok(await c.client.callTool({ name: 'search_code', arguments: { query: 'other' } })).results[0].path, 'src/other.ts')
  } finally {
    await c.client.close()
    rmSync(big, { recursive: true, force: true })
  }
})

test('a client pinned to the 2026-07-28 revision is served too', async () => {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--root', repo], env: baseEnv(), stderr: 'ignore' })
  const client = new Client({ name: 'modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
  await client.connect(transport)
  try {
    assert.deepEqual((await client.listTools()).tools.map((t) => t.name), LOCAL_TOOLS)
    assert.equal(ok(await client.callTool({ name: 'search_code', arguments: { query: 'parseCookie', limit: 1 } })).results[0].path, 'src/cookie.ts')
    assertError(await client.callTool({ name: 'search_code', arguments: { query: 'x', limit: 0 } }), 'invalid_request', /limit must be >= 1/)
  } finally {
    await client.close()
  }
})

test('stdout carries only protocol messages, and end of stdin ends the process promptly', async () => {
  const child = spawn(process.execPath, [BIN, 'mcp', '--root', repo], { stdio: ['pipe', 'pipe', 'pipe'] })
  let out = ''
  child.stdout.on('data', (d: Buffer) => (out += d.toString()))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const send = (m: unknown) => child.stdin.write(JSON.stringify(m) + '\n')
  child.stdin.write('{this is not json\n')
  send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })
  await waitFor(() => out.includes('"id":1'))
  send({ jsonrpc: '2.0', method: 'notifications/initialized' })
  // A request that breaks the protocol (arguments not an object) is a JSON-RPC error from the SDK,
  // and the server keeps serving.
  send({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'search_code', arguments: ['Router'] } })
  send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search_code', arguments: { query: 'Router' } } })
  await waitFor(() => out.includes('"id":2'))
  const answers = out.split('\n').filter(Boolean).map((l) => JSON.parse(l))
  assert.equal(answers.find((m) => m.id === 9).error.code, -32602)
  assert.equal(answers.find((m) => m.id === 2).result.structuredContent.results[0].path, 'src/router.ts')
  const started = Date.now()
  child.stdin.end()
  const code = await Promise.race([exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 5000))])
  if (code === 'hung') child.kill('SIGKILL')
  assert.equal(code, 0, 'exits with 0 after end of stdin')
  assert.ok(Date.now() - started < 3000, 'promptly')
  for (const line of out.split('\n').filter(Boolean)) assert.equal(JSON.parse(line).jsonrpc, '2.0')
})

test('mcp with a --root that is not a directory fails before serving', () => {
  assert.throws(() => execFileSync(process.execPath, [BIN, 'mcp', '--root', join(repo, 'TASKS.md')], { stdio: 'pipe', input: '' }), (e: any) => {
    assert.equal(e.status, 2)
    assert.equal(e.stdout.toString(), '')
    assert.match(e.stderr.toString(), /--root must be an existing directory/)
    return true
  })
})

async function waitFor(cond: () => boolean, ms = 20000): Promise<void> {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((r) => setTimeout(r, 10))
  }
}

test('remote tools: hidden without configuration, listed and working with GITEA_URL and HOUND_URL', async () => {
  let gitea: Running | undefined
  let hound: Running | undefined
  try {
    gitea = await startGitea()
    hound = await startHound()
    const env = { ...baseEnv(), GITEA_URL: gitea.url, GITEA_TOKEN: TOKEN, HOUND_URL: hound.url }
    const c = await connect({ root: repo, env })
    try {
      const { tools } = await c.client.listTools()
      assert.deepEqual(tools.map((t) => t.name), [...LOCAL_TOOLS, 'remote_file_context', 'hound_search'])
      const remote = tools.find((t) => t.name === 'remote_file_context')!
      assert.deepEqual((remote.inputSchema.properties as any).provider.enum, ['gitea'])
      const r = await c.client.callTool({ name: 'remote_file_context', arguments: { repo: 'acme/alpha', file: 'config/app.ts', line: 2, context: 1 } })
      const out = ok(r)
      assert.deepEqual([out.startLine, out.endLine, out.ref, out.source], [1, 3, 'trunk', 'gitea'])
      assert.ok(!text(r).includes('ghp_'), 'the token in the remote file is redacted')
      assert.match(text(r), /\n1 \| /)
      assert.ok(out.url.startsWith(gitea.url))
      assertError(await c.client.callTool({ name: 'remote_file_context', arguments: { repo: 'acme/alpha', file: 'nope.ts', line: 1 } }), 'invalid_request')
      assertError(await c.client.callTool({ name: 'remote_file_context', arguments: { repo: 'acme/alpha', file: 'x', line: 0 } }), 'invalid_request', /line must be >= 1/)
      const h = await c.client.callTool({ name: 'hound_search', arguments: { query: 'fetchUser', context: 2 } })
      const hs = ok(h)
      assert.ok(hs.matches.length > 0)
      const matchLines = text(h).split('\n').filter((l) => /^[^:]+:[^:]+:\d+: /.test(l))
      assert.equal(matchLines.length, hs.matches.length)
      assert.ok(matchLines.every((l) => l.includes('fetchUser')))
      assert.match(text(h), /^(alpha|beta):[^:]+:\d+[:-] /)
      assertError(await c.client.callTool({ name: 'hound_search', arguments: { query: 'x', context: 21 } }), 'invalid_request', /context must be <= 20/)
    } finally {
      await c.client.close()
    }
    // GITHUB_TOKEN alone lists remote_file_context with the GitHub provider.
    const g = await connect({ root: repo, env: { ...baseEnv(), GITHUB_TOKEN: 'ghp_not_a_real_token_000000000000000000' } })
    try {
      const tools = (await g.client.listTools()).tools
      assert.ok(!tools.some((t) => t.name === 'hound_search'))
      const remote = tools.find((t) => t.name === 'remote_file_context')!
      assert.deepEqual((remote.inputSchema.properties as any).provider.enum, ['github'])
      assert.match(remote.description!, /code host \(github\)/)
    } finally {
      await g.client.close()
    }
  } finally {
    await gitea?.close()
    await hound?.close()
  }
})

test('remote providers: Gitea with GITEA_URL, GitHub with GITHUB_TOKEN or GH_TOKEN, in that order', () => {
  const providers = (env: Record<string, string>): string[] | undefined => {
    const t = toolsFor(env).find((x) => x.name === 'remote_file_context')
    return t ? (jsonSchema(t.input).properties as any).provider.enum : undefined
  }
  assert.deepEqual(providers({ GITHUB_TOKEN: 'x' }), ['github'])
  assert.deepEqual(providers({ GH_TOKEN: 'x' }), ['github'])
  assert.deepEqual(providers({ GITHUB_TOKEN: 'x', GITEA_URL: 'http://127.0.0.1:1' }), ['gitea', 'github'])
  assert.deepEqual(providers({ GITEA_URL: 'http://127.0.0.1:1' }), ['gitea'])
  assert.equal(providers({ GITEA_URL: '  ', GITHUB_TOKEN: '' }), undefined)
  assert.deepEqual(
    toolsFor({ HOUND_URL: 'http://127.0.0.1:1' }).map((t) => t.name),
    [...LOCAL_TOOLS, 'hound_search'],
  )
})
