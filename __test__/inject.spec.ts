// The context sources (docs/design/adr-005-context-injection.md) at the boundary: shapes, the
// caps (150 lines, 5000 characters as `text.length`), stable composition order, and the error
// codes, with a recording `gh` stand-in on PATH (GitHub itself is never contacted).
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdtempSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'

import { composeContext, composeContextSync, dirContext, diffContext, fileContext, prContext, type ContextSource } from '../lib/index.js'

const dirs: string[] = []
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))

function tempDir(): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), 'ce-inject-')))
  dirs.push(d)
  return d
}

function write(root: string, rel: string, content: string): void {
  mkdirSync(dirname(join(root, rel)), { recursive: true })
  writeFileSync(join(root, rel), content)
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' })
}

function initRepo(): string {
  const root = tempDir()
  git(root, 'init', '-q', '-b', 'main')
  git(root, 'config', 'user.name', 'T')
  git(root, 'config', 'user.email', 't@example.com')
  git(root, 'config', 'commit.gpgsign', 'false')
  return root
}

const code = (err: unknown) => (err as { code?: string }).code
const hasCode = (c: string) => (err: unknown) => {
  assert.ok(err instanceof Error)
  assert.equal(code(err), c)
  return true
}

test('dirContext lists the tree with key declarations', async () => {
  const root = tempDir()
  write(root, 'src/lib.rs', 'pub fn parse() {}\npub struct Scope;\n')
  write(root, 'web/app.ts', 'export class App {}\n')
  write(root, 'node_modules/x/index.js', 'function no() {}\n')
  write(root, '.hidden/secret.txt', 'x\n')
  symlinkSync('/etc', join(root, 'etc'))
  const src = await dirContext(root)
  assert.deepEqual(src, {
    kind: 'dir',
    label: `${basename(root)}/`,
    content: `${basename(root)}/\n  src/\n    lib.rs — function parse:1, struct Scope:2\n  web/\n    app.ts — class App:1\n`,
    truncated: false,
    redactions: [],
  })
})

test('dirContext caps at 5000 characters by default and honours maxFiles', async () => {
  const root = tempDir()
  for (let i = 0; i < 500; i++) write(root, `pkg/f${String(i).padStart(4, '0')}.py`, `def f${i}():\n    pass\n`)
  const src = await dirContext(root)
  assert.equal(src.truncated, true)
  assert.ok(src.content.length <= 5000)
  assert.ok(src.content.includes('[... truncated ...]'))
  const few = await dirContext(root, { maxFiles: 2, maxChars: 100000 })
  assert.equal(few.content.split('\n').filter((l) => l.includes('.py')).length, 2)
})

test('fileContext keeps 150 lines with a marker', async () => {
  const root = tempDir()
  write(root, 'big.txt', Array.from({ length: 400 }, (_, i) => `l${i + 1}`).join('\n') + '\n')
  const src = await fileContext(join(root, 'big.txt'))
  const lines = src.content.trimEnd().split('\n')
  assert.equal(lines.length, 151)
  assert.equal(lines[149], 'l150')
  assert.equal(lines[150], '[... truncated: 250 more lines of 400 ...]')
  assert.equal(src.truncated, true)
  assert.equal(src.label, 'big.txt')
  const rel = await fileContext('big.txt', { root, maxLines: 3 })
  assert.equal(rel.content, 'l1\nl2\nl3\n[... truncated: 397 more lines of 400 ...]\n')
  await assert.rejects(fileContext('../etc/passwd', { root }), hasCode('invalid_request'))
  await assert.rejects(fileContext(join(root, 'missing.txt')), hasCode('invalid_request'))
  await assert.rejects(fileContext('relative.txt'), hasCode('invalid_request'))
  await assert.rejects(fileContext('big.txt', { root, maxLines: 0 }), hasCode('invalid_request'))
  await assert.rejects(fileContext('big.txt', { root, maxLines: 1.5 }), hasCode('invalid_request'))
})

test('diffContext shows staged then unstaged changes', async () => {
  const root = initRepo()
  write(root, 'a.txt', 'a\n')
  write(root, 'b c.txt', 'b\n')
  git(root, 'add', '-A')
  git(root, 'commit', '-q', '-m', 'base')
  assert.equal((await diffContext(root)).content, 'No staged or unstaged changes.\n')
  write(root, 'a.txt', 'a2\n')
  git(root, 'add', 'a.txt')
  write(root, 'b c.txt', 'b2\n')
  const src = await diffContext(root)
  assert.equal(src.kind, 'diff')
  const s = src.content.indexOf('Staged changes:\n')
  const u = src.content.indexOf('Unstaged changes:\n')
  assert.ok(s === 0 && u > s)
  assert.ok(src.content.slice(s, u).includes('+a2'))
  assert.ok(src.content.slice(u).includes('+b2'))
  write(root, 'b c.txt', 'x\n'.repeat(50000))
  const capped = await diffContext(root, { maxChars: 800 })
  assert.ok(capped.truncated && capped.content.length <= 800)
  await assert.rejects(diffContext(tempDir()), hasCode('invalid_request'))
})

const VIEW_JSON = JSON.stringify({
  additions: 12,
  author: { id: 'MDQ6VXNlcjE=', is_bot: false, login: 'octocat', name: 'The Octocat' },
  baseRefName: 'main',
  body: 'Fixes the parser.',
  changedFiles: 2,
  deletions: 3,
  headRefName: 'fix-parser',
  isDraft: true,
  labels: [{ id: 'LA_1', name: 'bug', description: '', color: 'd73a4a' }],
  number: 42,
  state: 'OPEN',
  title: 'Fix the parser',
  url: 'https://github.com/octo/repo/pull/42',
})

/** A `gh` stand-in that records its arguments, then runs `body`. */
function fakeGh(body: string): string {
  const bin = tempDir()
  writeFileSync(join(bin, 'gh'), `#!/bin/sh\necho "$@" >> "${bin}/calls.log"\n${body}\n`)
  chmodSync(join(bin, 'gh'), 0o755)
  writeFileSync(join(bin, 'view.json'), VIEW_JSON)
  return bin
}

/** Runs prContext in a child process whose PATH starts with `bin`. */
function prInChild(bin: string, repo: string, pr: unknown): { ok?: ContextSource; code?: string; message?: string } {
  const script = `
    const { prContext } = require(${JSON.stringify(join(__dirname, '..', 'dist', 'index.js'))})
    prContext(${JSON.stringify(repo)}, ${JSON.stringify(pr)}).then(
      (ok) => process.stdout.write(JSON.stringify({ ok })),
      (e) => process.stdout.write(JSON.stringify({ code: e.code, message: e.message })))
  `
  const out = execFileSync(process.execPath, ['-e', script], {
    encoding: 'utf8',
    env: { PATH: `${bin}:/usr/bin:/bin` },
  })
  return JSON.parse(out)
}

test('prContext renders gh pr view / gh pr diff output', () => {
  const repo = initRepo()
  const bin = fakeGh(`case "$2" in view) cat "$(dirname "$0")/view.json";; diff) printf 'diff --git a/p b/p\\n+new\\n';; esac`)
  const res = prInChild(bin, repo, 42)
  assert.deepEqual(res.ok, {
    kind: 'pr',
    label: 'PR #42',
    content:
      'PR #42: Fix the parser\nState: OPEN (draft); main <- fix-parser\nAuthor: octocat\nLabels: bug\nURL: https://github.com/octo/repo/pull/42\nChanges: +12 -3 in 2 files\n\nFixes the parser.\n\nDiff:\ndiff --git a/p b/p\n+new\n',
    truncated: false,
    redactions: [],
  })
  const calls = readFileSync(join(bin, 'calls.log'), 'utf8').trim().split('\n')
  assert.equal(calls.length, 2)
  assert.match(calls[0], /^pr view 42 --json number,title,body,/)
  assert.equal(calls[1], 'pr diff 42 --color never')
})

test('prContext error codes: gh missing, failing, unauthenticated', async () => {
  const repo = initRepo()
  assert.equal(prInChild(tempDir(), repo, 1).code, 'unavailable')
  assert.equal(prInChild(fakeGh("echo 'HTTP 502' >&2; exit 1"), repo, 1).code, 'unavailable')
  assert.equal(prInChild(fakeGh("echo 'To get started with GitHub CLI, please run:  gh auth login' >&2; exit 4"), repo, 1).code, 'unauthorized')
  assert.equal(prInChild(fakeGh("echo 'no pull requests found for branch \"zzz\"' >&2; exit 1"), repo, 'zzz').code, 'invalid_request')
  for (const bad of [0, -1, 1.5, NaN, '', '--repo=x', 'a b', {}]) {
    await assert.rejects(prContext(repo, bad as never), hasCode('invalid_request'))
  }
})

test('composeContext: stable order by kind, 5000-character cap, visible marker', async () => {
  const s = (kind: ContextSource['kind'], label: string, content: string): Omit<ContextSource, 'redactions'> => ({ kind, label, content, truncated: false })
  const c = await composeContext([s('diff', 'wt', 'D\n'), s('file', 'b', 'B\n'), s('pr', 'PR #1', 'P\n'), s('dir', 'src/', 'T\n'), s('file', 'a', 'A\n')])
  assert.equal(c.text, '## dir: src/\nT\n\n## file: b\nB\n\n## file: a\nA\n\n## pr: PR #1\nP\n\n## diff: wt\nD\n')
  assert.equal(c.truncated, false)
  assert.deepEqual(c.omitted, [])
  const big = await composeContext([s('file', 'one', 'x'.repeat(4000)), s('file', 'two', '😀'.repeat(2000)), s('diff', 'three', 'z')])
  assert.ok(big.text.length <= 5000, String(big.text.length))
  assert.ok(big.text.endsWith('[... context truncated at 5000 characters; 1 more source(s) omitted ...]'))
  assert.deepEqual(big.omitted, ['three'])
  assert.equal(big.truncated, true)
  assert.ok((await composeContext([s('file', 'f', 'y'.repeat(100))], { maxChars: 60 })).text.length <= 60)
  await assert.rejects(composeContext('x' as never), hasCode('invalid_request'))
  await assert.rejects(composeContext([{ kind: 'web', label: 'x', content: '' }] as never), hasCode('invalid_request'))
  await assert.rejects(composeContext([s('file', 'a', 'b')], { maxChars: -1 }), hasCode('invalid_request'))
  // The synchronous twin gives the same result and throws instead of rejecting.
  assert.deepEqual(composeContextSync([s('file', 'one', 'x'.repeat(4000)), s('file', 'two', '😀'.repeat(2000)), s('diff', 'three', 'z')]), big)
  assert.throws(() => composeContextSync('x' as never), hasCode('invalid_request'))
  // Inputs: the twin takes 256 Ki characters in all, the async form 8 Mi; a label 4 KiB.
  const over = (n: number) => [s('file', 'a', 'x'.repeat(n / 2)), s('diff', 'b', 'y'.repeat(n / 2))]
  assert.throws(() => composeContextSync(over(256 * 1024 + 64)), (e: Error & { code?: string; reason?: string }) => e.code === 'invalid_request' && e.reason === 'too_large')
  assert.equal(composeContextSync(over(256 * 1024 - 64)).truncated, true)
  await assert.rejects(composeContext(over(8 * 1024 * 1024 + 64)), (e: Error & { code?: string; reason?: string }) => e.code === 'invalid_request' && e.reason === 'too_large')
  const huge = await composeContext(over(8 * 1024 * 1024 - 64))
  assert.ok(huge.text.length <= 5000 && huge.truncated)
  await assert.rejects(composeContext([s('file', 'l'.repeat(5000), 'x')]), hasCode('invalid_request'))
})


test('context sources reject bad arguments asynchronously', async () => {
  for (const call of [
    () => dirContext(''),
    () => dirContext('relative'),
    () => dirContext(42 as never),
    () => dirContext(tempDir(), { maxChars: NaN }),
    () => fileContext(''),
    () => diffContext('relative'),
  ]) {
    let p: Promise<unknown>
    assert.doesNotThrow(() => {
      p = call()
    })
    await assert.rejects(p!, hasCode('invalid_request'))
  }
})
