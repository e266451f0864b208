// SymbolIndex and repoStats at the boundary: result shapes, wildcards, kinds, languages, the
// repos filter, limits and pages, determinism, bad input codes, a cache directory across
// restarts (and damaged), Solidity, aborts, and indexRoot/repoStats over a real git
// repository with an ignored file.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

import { SymbolIndex, repoStats } from '../lib/index.js'

const dirs: string[] = []
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))

function tempRepo(): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'ce-symbols-')))
  dirs.push(root)
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: root })
  return root
}

function write(root: string, rel: string, content: string): void {
  mkdirSync(dirname(join(root, rel)), { recursive: true })
  writeFileSync(join(root, rel), content)
}

const hasCode = (c: string) => (err: unknown) => {
  assert.ok(err instanceof Error)
  assert.equal((err as { code?: string }).code, c)
  return true
}

const FILES = [
  {
    path: 'src/config.ts',
    content:
      'export function parseConfig(text: string) {\n  return JSON.parse(text)\n}\n\nexport class ConfigParser {\n  parse(s: string) { return s }\n}\n\nexport interface Options { strict: boolean }\nexport type Id = string\nexport const MAX_DEPTH = 8\n',
  },
  { path: 'tool/parse.py', content: 'class Parser:\n    def parse(self, s):\n        return s\n\ndef parse_args(argv):\n    return argv\n' },
  { path: 'cmd/main.go', content: 'package main\n\nfunc ParseFlags() {}\n' },
  { path: 'lib/Parser.java', content: 'class Parser {\n  void parse() {}\n}\n' },
  { path: 'docs/README.md', content: '# parse\n' },
]

async function sample(options?: { urlTemplate?: string }): Promise<SymbolIndex> {
  const index = new SymbolIndex(options)
  assert.deepEqual(await index.indexFiles('acme/api', FILES), { files: 4, symbols: 12, parsed: 4 })
  assert.deepEqual(
    await index.indexFiles('acme/core', [{ path: 'lib.rs', content: 'pub mod parse;\n\npub trait Parse {\n    fn parse(&self);\n}\n' }]),
    { files: 1, symbols: 3, parsed: 1 },
  )
  return index
}

test('search answers in hound-mcp shape', async () => {
  const index = await sample({ urlTemplate: 'https://git.example.test/{repo}/src/{file}#L{line}-L{endLine}' })
  const r = await index.search({ name: 'parseConfig' })
  assert.deepEqual(r, {
    results: [
      {
        repo: 'acme/api',
        file: 'src/config.ts',
        line: 1,
        endLine: 3,
        column: 16,
        kind: 'function',
        name: 'parseConfig',
        signature: 'export function parseConfig(text: string)',
        language: 'typescript',
        url: 'https://git.example.test/acme/api/src/src/config.ts#L1-L3',
      },
    ],
    totalMatches: 1,
    reposSearched: 2,
    hasMore: false,
  })
  const m = (await index.search({ name: 'parse', language: 'ts' })).results[0]
  assert.equal(m.scope, 'ConfigParser')
  assert.equal(m.kind, 'method')
  // Without a template there is no url.
  const plain = await sample()
  const bare = (await plain.search({ name: 'parseConfig' })).results[0]
  assert.equal(bare.url, undefined)
  assert.equal(bare.scope, undefined)
})

test('wildcards match whole names, case-insensitively, exact names first', async () => {
  const index = await sample()
  const exact = await index.search({ name: 'PARSE' })
  assert.deepEqual(
    exact.results.map((s) => `${s.repo} ${s.file}:${s.line} ${s.kind} ${s.name}`),
    [
      'acme/api lib/Parser.java:2 method parse',
      'acme/api src/config.ts:6 method parse',
      'acme/api tool/parse.py:2 method parse',
      'acme/core lib.rs:1 module parse',
      'acme/core lib.rs:3 interface Parse',
      'acme/core lib.rs:4 method parse',
    ],
  )
  const prefix = await index.search({ name: 'parse*' })
  assert.deepEqual(prefix.results.slice(6).map((s) => s.name), ['parse_args', 'parseConfig', 'ParseFlags', 'Parser', 'Parser'])
  assert.equal(prefix.totalMatches, 11)
  const single = await index.search({ name: 'Pars?r' })
  assert.deepEqual(single.results.map((s) => s.file), ['lib/Parser.java', 'tool/parse.py'])
  const infix = await index.search({ name: '*config*' })
  assert.deepEqual(infix.results.map((s) => s.name), ['ConfigParser', 'parseConfig'])
  // Deterministic: the same query gives the same answer.
  assert.deepEqual(await index.search({ name: '*' }), await index.search({ name: '*' }))
})

test('kinds, languages, repos and limit filter', async () => {
  const index = await sample()
  const kinds = async (kind: 'function' | 'class' | 'method' | 'interface' | 'type' | 'constant' | 'module') =>
    (await index.search({ name: '*', kind })).results.map((s) => s.name)
  assert.deepEqual(await kinds('class'), ['ConfigParser', 'Parser', 'Parser'])
  assert.deepEqual(await kinds('interface'), ['Options', 'Parse'])
  assert.deepEqual(await kinds('type'), ['Id'])
  assert.deepEqual(await kinds('constant'), ['MAX_DEPTH'])
  assert.deepEqual(await kinds('module'), ['parse'])
  assert.deepEqual(await kinds('function'), ['parse_args', 'parseConfig', 'ParseFlags'])
  const go = await index.search({ name: '*', language: 'golang' })
  assert.deepEqual(go.results.map((s) => [s.name, s.language]), [['ParseFlags', 'go']])
  const core = await index.search({ name: '*', repos: 'CORE' })
  assert.equal(core.totalMatches, 3)
  assert.equal(core.reposSearched, 1)
  const both = await index.search({ name: '*', repos: ['api', 'core'] })
  assert.equal(both.reposSearched, 2)
  assert.equal(both.totalMatches, 15)
  const none = await index.search({ name: '*', repos: 'nothing' })
  assert.deepEqual(none, { results: [], totalMatches: 0, reposSearched: 0, hasMore: false })
  const limited = await index.search({ name: '*', limit: 3 })
  assert.equal(limited.results.length, 3)
  assert.equal(limited.totalMatches, 15)
  assert.equal((await index.search({ name: '*' })).results.length, 15)
})

test('re-indexing replaces a repository; removeRepo forgets it', async () => {
  const index = await sample()
  await index.indexFiles('acme/api', [{ path: 'x.rb', content: 'class Only\nend\n' }])
  assert.equal((await index.search({ name: 'parseConfig' })).totalMatches, 0)
  assert.equal((await index.search({ name: 'only' })).results[0].language, 'ruby')
  assert.deepEqual(index.repos(), [
    { repo: 'acme/api', symbols: 1 },
    { repo: 'acme/core', symbols: 3 },
  ])
  assert.equal(index.removeRepo('acme/api'), true)
  assert.equal(index.removeRepo('acme/api'), false)
})

test('updateFiles merges by path: a repository in batches, or changed files', async () => {
  const index = new SymbolIndex()
  const whole = new SymbolIndex()
  await whole.indexFiles('acme/api', FILES)
  // The same files in batches of one: the same symbols as one indexFiles call.
  await index.indexFiles('acme/api', [FILES[0]])
  for (const f of FILES.slice(1)) await index.updateFiles('acme/api', [f])
  const all = async (i: SymbolIndex) => (await i.search({ name: '*', limit: 1000 })).results
  assert.deepEqual(await all(index), await all(whole))
  assert.deepEqual(index.repos(), whole.repos())
  // A changed file replaces only its own symbols.
  assert.deepEqual(await index.updateFiles('acme/api', [{ path: 'x.rb', content: 'class Only\nend\n' }]), { files: 1, symbols: 1, parsed: 1 })
  assert.equal((await index.search({ name: 'only' })).totalMatches, 1)
  assert.equal((await index.search({ name: 'parseConfig' })).totalMatches, 1)
  // A call over the 8 Mi-character bound is refused from the lengths alone.
  const half = 'x'.repeat(4 * 1024 * 1024 + 1)
  await assert.rejects(
    index.updateFiles('acme/api', [{ path: 'a.ts', content: half }, { path: 'b.ts', content: half }]),
    (e: Error & { code?: string; reason?: string }) => e.code === 'invalid_request' && e.reason === 'too_large',
  )
  await assert.rejects(index.updateFiles('', []), (e: Error & { code?: string }) => e.code === 'invalid_request')
})

test('bad input rejects with invalid_request', async () => {
  const index = new SymbolIndex()
  const bad = [
    () => index.indexFiles('', []),
    () => index.indexFiles(42 as never, []),
    () => index.indexFiles('r', 'nope' as never),
    () => index.indexFiles('r', [{ path: 'a.ts' }] as never),
    () => index.indexFiles('r', [{ path: '', content: 'x' }]),
    () => index.indexFiles('r', [null] as never),
    () => index.indexRoot('r', 'relative/path'),
    () => index.indexRoot('r', '/definitely/not/here'),
    () => index.search(undefined as never),
    () => index.search({} as never),
    () => index.search({ name: '' }),
    () => index.search({ name: 'x'.repeat(513) }),
    () => index.search({ name: 'x', kind: 'widget' as never }),
    () => index.search({ name: 'x', language: 'cobol' }),
    () => index.search({ name: 'x', limit: 0 }),
    () => index.search({ name: 'x', limit: 1.5 }),
    () => index.search({ name: 'x', limit: 1001 }),
    () => index.search({ name: 'x', repos: 7 as never }),
    () => index.search({ name: 'x', offset: -1 }),
    () => index.search({ name: 'x', offset: 0.5 }),
    () => index.search({ name: 'x', offset: 10_000_001 }),
    () => index.indexFiles('r', [], { signal: 'no' } as never),
    () => repoStats({} as never),
    () => repoStats({ root: '/tmp', files: [] } as never),
    () => repoStats({ root: 'relative' }),
    () => repoStats({ files: 'x' } as never),
  ]
  for (const call of bad) await assert.rejects(call(), hasCode('invalid_request'))
  assert.throws(() => new SymbolIndex({ urlTemplate: 3 } as never), hasCode('invalid_request'))
  assert.throws(() => new SymbolIndex({ cacheDir: 'relative/dir' }), hasCode('invalid_request'))
  assert.throws(() => new SymbolIndex({ cacheDir: 7 } as never), hasCode('invalid_request'))
  for (const threads of [0, 1.5, 257, -1]) assert.throws(() => new SymbolIndex({ threads }), hasCode('invalid_request'))
  assert.throws(() => index.removeRepo(''), hasCode('invalid_request'))
})

test('indexRoot and repoStats walk a git repository like retrieval (ignored files left out)', async () => {
  const root = tempRepo()
  write(root, '.gitignore', 'generated/\nlocal.rs\n')
  write(root, 'generated/api.ts', 'export function generatedClient() {}\n')
  write(root, 'local.rs', 'fn local_only() {}\n')
  write(root, 'src/app.py', 'class App:\n    def run(self):\n        pass\n')
  write(root, 'src/util.kt', 'fun helper(): Int = 1\n')
  write(root, 'node_modules/dep/index.js', 'function dep() {}\n')
  write(root, 'notes.txt', 'one\ntwo\n')
  const index = new SymbolIndex()
  assert.deepEqual(await index.indexRoot('local/app', root), { files: 2, symbols: 3, parsed: 2 })
  // Nothing changed: every file is read, none parsed.
  assert.deepEqual(await index.indexRoot('local/app', root), { files: 2, symbols: 3, parsed: 0 })
  const all = await index.search({ name: '*' })
  assert.deepEqual(all.results.map((s) => `${s.file} ${s.name}`), ['src/app.py App', 'src/util.kt helper', 'src/app.py run'])
  const stats = await repoStats({ root })
  assert.deepEqual(stats, {
    files: 3,
    lines: 6,
    bytes: 73,
    languages: {
      kotlin: { files: 1, lines: 1, bytes: 22 },
      python: { files: 1, lines: 3, bytes: 43 },
    },
  })
})

test('repoStats counts files handed in', async () => {
  const s = await repoStats({ files: FILES })
  assert.equal(s.files, 5)
  assert.deepEqual(s.languages.go, { files: 1, lines: 3, bytes: 35 })
  assert.deepEqual(Object.keys(s.languages), ['go', 'java', 'python', 'typescript'])
  assert.equal(s.lines, FILES.reduce((n, f) => n + f.content.split('\n').length - 1, 0))
})

function tempDir(): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), 'ce-symbols-cache-')))
  dirs.push(d)
  return d
}

const everything = async (i: SymbolIndex) => (await i.search({ name: '*', limit: 1000 })).results

test('a cache directory keeps the index across restarts; only changed files are parsed again', async () => {
  const cacheDir = tempDir()
  const first = new SymbolIndex({ cacheDir })
  assert.deepEqual(await first.indexFiles('acme/api', FILES), { files: 4, symbols: 12, parsed: 4 })
  const want = await everything(first)
  // Written a second after the last change, or when flushed.
  await first.flush()
  // A new index on the same directory answers the same, before any file is handed in.
  const second = new SymbolIndex({ cacheDir })
  assert.deepEqual(await everything(second), want)
  assert.deepEqual(second.repos(), [{ repo: 'acme/api', symbols: 12 }])
  // The same files: nothing parsed. One changed file: that file alone.
  assert.deepEqual(await second.indexFiles('acme/api', FILES), { files: 4, symbols: 12, parsed: 0 })
  const changed = FILES.map((f) => (f.path === 'cmd/main.go' ? { ...f, content: f.content + '\nfunc Extra() {}\n' } : f))
  assert.deepEqual(await second.indexFiles('acme/api', changed), { files: 4, symbols: 13, parsed: 1 })
  await second.flush()
  const third = new SymbolIndex({ cacheDir, threads: 1 })
  assert.equal((await third.search({ name: 'extra' })).totalMatches, 1)
  assert.deepEqual(await everything(third), await everything(second))
})

test('a damaged or foreign cache file is ignored and rebuilt', async () => {
  const cacheDir = tempDir()
  const writer = new SymbolIndex({ cacheDir })
  await writer.indexFiles('acme/api', FILES)
  await writer.flush()
  const [name] = readdirSync(cacheDir).filter((n) => n.endsWith('.cesym'))
  const path = join(cacheDir, name)
  const good = readFileSync(path)
  const damaged = Buffer.from(good)
  damaged[damaged.length >> 1] ^= 0xff
  const foreign = Buffer.from(good)
  foreign.write('CEIDX', 0) // another kind of cache file under this name
  for (const bytes of [damaged, foreign, good.subarray(0, 20), Buffer.alloc(0)]) {
    writeFileSync(path, bytes)
    const index = new SymbolIndex({ cacheDir })
    assert.deepEqual(index.repos(), [])
    assert.equal((await index.search({ name: 'parseConfig' })).totalMatches, 0)
    assert.deepEqual(await index.indexFiles('acme/api', FILES), { files: 4, symbols: 12, parsed: 4 })
    await index.flush()
    assert.equal((await new SymbolIndex({ cacheDir }).search({ name: 'parseConfig' })).totalMatches, 1)
  }
})

test('search pages in hound-mcp shape: offset, hasMore, nextOffset', async () => {
  const index = await sample()
  const all = await everything(index)
  assert.equal(all.length, 15)
  const pages: typeof all = []
  let offset: number | undefined = 0
  while (offset !== undefined) {
    const page = await index.search({ name: '*', limit: 4, offset })
    assert.equal(page.totalMatches, 15)
    assert.equal(page.reposSearched, 2)
    assert.equal(page.hasMore, offset + 4 < 15)
    assert.equal(page.nextOffset, page.hasMore ? offset + 4 : undefined)
    pages.push(...page.results)
    offset = page.nextOffset
  }
  assert.deepEqual(pages, all)
  const past = await index.search({ name: '*', offset: 99 })
  assert.deepEqual(past, { results: [], totalMatches: 15, reposSearched: 2, hasMore: false })
})

test('Solidity: contracts, interfaces, libraries, functions, modifiers, events, structs', async () => {
  const index = new SymbolIndex()
  const sol = [
    'pragma solidity ^0.8.20;',
    '',
    'interface IVault {',
    '    function deposit(uint256 amount) external;',
    '}',
    '',
    'library Shares {',
    '    function toShares(uint256 a) internal pure returns (uint256) { return a; }',
    '}',
    '',
    'contract Vault is IVault {',
    '    event Deposited(address from, uint256 amount);',
    '    struct Position { uint256 shares; }',
    '    uint256 public constant FEE_BPS = 30;',
    '    modifier nonZero(uint256 a) { require(a > 0); _; }',
    '    function deposit(uint256 amount) external nonZero(amount) {}',
    '}',
    '',
  ].join('\n')
  assert.deepEqual(await index.indexFiles('acme/vault', [{ path: 'src/Vault.sol', content: sol }]), { files: 1, symbols: 10, parsed: 1 })
  const r = await index.search({ name: '*', language: 'solidity', limit: 100 })
  assert.deepEqual(
    r.results.map((s) => `${s.line} ${s.kind} ${s.name}${s.scope ? ` in ${s.scope}` : ''}`).sort((a, b) => parseInt(a) - parseInt(b)),
    [
      '3 interface IVault',
      '4 method deposit in IVault',
      '7 module Shares',
      '8 function toShares in Shares',
      '11 class Vault',
      '12 type Deposited in Vault',
      '13 class Position in Vault',
      '14 constant FEE_BPS in Vault',
      '15 method nonZero in Vault',
      '16 method deposit in Vault',
    ],
  )
  const deposit = (await index.search({ name: 'deposit', kind: 'method', language: 'sol' })).results
  assert.deepEqual(deposit.map((s) => [s.line, s.signature]), [
    [4, 'function deposit(uint256 amount) external;'],
    [16, 'function deposit(uint256 amount) external nonZero(amount) {}'],
  ])
})

test('an aborted signal rejects indexing and leaves the index as it was', async () => {
  const index = await sample()
  const before = await everything(index)
  const ac = new AbortController()
  ac.abort()
  await assert.rejects(index.indexFiles('acme/api', [FILES[0]], { signal: ac.signal }), (e: Error & { code?: string }) => e.name === 'AbortError')
  await assert.rejects(index.updateFiles('acme/api', [FILES[0]], { signal: ac.signal }), (e: Error) => e.name === 'AbortError')
  await assert.rejects(index.indexRoot('acme/api', tmpdir(), { signal: ac.signal }), (e: Error) => e.name === 'AbortError')
  assert.deepEqual(await everything(index), before)
})
