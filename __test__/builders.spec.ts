// Prompt builders at the boundary: the spec's keys and shapes, `_metadata`, soft failures
// (missing files, no git, non-repositories) as warnings, and `invalid_request` for misuse.
// Every repository here is real: created in a temp dir and driven with the real `git`.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, mkdirSync, writeFileSync, rmSync, realpathSync, unlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

import {
  buildFixContext,
  buildImplementationContext,
  buildIssueContext,
  buildReviewContext,
  parseValidationOutput,
  parseValidationOutputSync,
  type ValidationOutput,
} from '../lib/index.js'

const dirs: string[] = []
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))

function tempDir(): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), 'ce-builders-')))
  dirs.push(d)
  return d
}

let tick = 0
function git(cwd: string, ...args: string[]): string {
  tick += 1
  const date = `2026-01-01T00:${String(tick % 60).padStart(2, '0')}:00Z`
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
  })
}

function write(root: string, rel: string, content: string | Buffer): void {
  mkdirSync(dirname(join(root, rel)), { recursive: true })
  writeFileSync(join(root, rel), content)
}

function initRepo(): string {
  const root = tempDir()
  git(root, 'init', '-q', '-b', 'main')
  git(root, 'config', 'user.name', 'Test Author')
  git(root, 'config', 'user.email', 'test@example.com')
  git(root, 'config', 'commit.gpgsign', 'false')
  return root
}

function commit(root: string, message: string): void {
  git(root, 'add', '-A')
  git(root, 'commit', '-q', '--allow-empty', '-m', message)
}

const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join('')

const code = (err: unknown) => (err as { code?: string }).code
const isInvalid = (err: unknown) => {
  assert.ok(err instanceof Error)
  assert.equal(code(err), 'invalid_request')
  return true
}

test('buildImplementationContext returns tasks, conventions, branch and the last 10 commits', async () => {
  const root = initRepo()
  write(root, 'CLAUDE.md', '# Conventions\n')
  write(root, 'specs/tasks.md', '- [ ] T001\n')
  for (let i = 0; i < 12; i++) {
    write(root, 'f.txt', `${i}\n`)
    commit(root, `commit ${i}`)
  }
  const ctx = await buildImplementationContext('specs/tasks.md', root)
  assert.deepEqual(Object.keys(ctx).sort(), ['branch', 'conventions', 'recent_commits', 'tasks'])
  assert.equal(ctx.tasks, '- [ ] T001\n')
  assert.equal(ctx.conventions, '# Conventions\n')
  assert.equal(ctx.branch, 'main')
  assert.equal(ctx.recent_commits.length, 10)
  assert.equal(ctx.recent_commits[0].subject, 'commit 11')
  assert.match(ctx.recent_commits[0].hash, /^[0-9a-f]{40}$/)
  assert.equal(ctx.recent_commits[0].author, 'Test Author')
  assert.equal(ctx._metadata, undefined)
  // deterministic
  assert.deepEqual(await buildImplementationContext('specs/tasks.md', root), ctx)
})

test('buildImplementationContext: a missing task file and huge conventions are metadata', async () => {
  const root = initRepo()
  write(root, 'CLAUDE.md', numbered(3000))
  commit(root, 'init')
  const ctx = await buildImplementationContext('missing.md', root)
  assert.equal(ctx.tasks, '')
  const meta = ctx._metadata!
  assert.equal(meta.truncated, true)
  assert.equal(meta.original_lines, 3000)
  assert.equal(meta.kept_lines, 500)
  assert.deepEqual(meta.sections_affected, ['conventions'])
  assert.deepEqual(meta.missing_files, ['missing.md'])
  assert.deepEqual(meta.warnings, ['file not found: missing.md'])
  assert.ok(ctx.conventions.endsWith('line 500\n...\n'))
})

test('buildImplementationContext degrades in a non-repository, an empty repository and a detached HEAD', async () => {
  const plain = tempDir()
  write(plain, 't.md', 'task\n')
  const ctx = await buildImplementationContext('t.md', plain)
  assert.equal(ctx.tasks, 'task\n')
  assert.equal(ctx.branch, '')
  assert.deepEqual(ctx.recent_commits, [])
  assert.deepEqual(ctx._metadata!.warnings, ['the branch is unavailable: the directory is not a git repository'])

  const empty = initRepo()
  const e = await buildImplementationContext(join(empty, 'nope.md'), empty)
  assert.equal(e.branch, 'main')
  assert.deepEqual(e.recent_commits, [])

  const repo = initRepo()
  commit(repo, 'one')
  commit(repo, 'two')
  git(repo, 'checkout', '-q', '--detach', 'HEAD~1')
  const d = await buildImplementationContext('x.md', repo)
  assert.match(d.branch, /^HEAD detached at [0-9a-f]{7,}$/)
  assert.equal(d.recent_commits.length, 1)
})

test('buildImplementationContext with git missing from PATH warns instead of failing', () => {
  const root = initRepo()
  write(root, 't.md', 'task\n')
  const script = `
    const { buildImplementationContext } = require(${JSON.stringify(join(__dirname, '..', 'dist', 'index.js'))})
    buildImplementationContext('t.md', ${JSON.stringify(root)}).then(
      (c) => process.stdout.write(JSON.stringify(c)),
      (e) => { process.stdout.write('REJECTED ' + e.code); })
  `
  const out = execFileSync(process.execPath, ['-e', script], {
    encoding: 'utf8',
    env: { PATH: tempDir() },
  })
  const ctx = JSON.parse(out)
  assert.equal(ctx.tasks, 'task\n')
  assert.equal(ctx.branch, '')
  assert.deepEqual(ctx._metadata.warnings, ['the branch is unavailable: git is not installed or not on PATH'])
})

test('buildImplementationContext ignores task paths outside the repository', async () => {
  const root = initRepo()
  for (const p of ['../../etc/passwd', '/etc/passwd']) {
    const ctx = await buildImplementationContext(p, root)
    assert.equal(ctx.tasks, '')
    assert.match(ctx._metadata!.warnings[0], /^ignored a path outside the repository/)
  }
  // an absolute path is never repeated
  const abs = await buildImplementationContext('/etc/passwd', root)
  assert.ok(!JSON.stringify(abs).includes('/etc'))
})

function featureRepo(): string {
  const root = initRepo()
  write(root, 'CLAUDE.md', 'conventions\n')
  write(root, 'small.rs', 'fn a() {}\n')
  write(root, 'big.rs', numbered(1200))
  write(root, 'old name.txt', '1\n2\n3\n4\n5\n6\n')
  commit(root, 'base')
  git(root, 'checkout', '-q', '-b', 'feature')
  write(root, 'small.rs', 'fn a() {}\nfn b() {}\n')
  write(root, 'big.rs', numbered(1200).replace('line 700\n', 'line 700 changed\n'))
  mkdirSync(join(root, 'dir'))
  git(root, 'mv', 'old name.txt', 'dir/ünï cödé.txt')
  write(root, 'logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2, 3]))
  commit(root, 'feature')
  git(root, 'checkout', '-q', 'main')
  write(root, 'main-only.txt', 'x\n')
  commit(root, 'main work')
  git(root, 'merge', '-q', '--no-edit', 'feature')
  git(root, 'checkout', '-q', '-b', 'feature2')
  write(root, 'small.rs', 'fn a() {}\nfn b() {}\nfn c() {}\n')
  write(root, 'big.rs', numbered(1200).replace('line 700\n', 'line 700 changed\n').replace('line 50\n', 'line 50 edited\n'))
  write(root, 'blob.bin', Buffer.from([0, 1, 2, 3, 0, 255]))
  commit(root, 'feature2')
  return root
}

test('buildReviewContext: diff, changed_files (full / around hunks), conventions, stats; binaries skipped', async () => {
  const root = featureRepo()
  const ctx = await buildReviewContext(root, 'main')
  assert.deepEqual(Object.keys(ctx).sort(), ['_metadata', 'changed_files', 'conventions', 'diff', 'stats'])
  assert.deepEqual(Object.keys(ctx.changed_files), ['big.rs', 'small.rs'])
  assert.equal(ctx.changed_files['small.rs'], 'fn a() {}\nfn b() {}\nfn c() {}\n')
  const big = ctx.changed_files['big.rs']
  assert.ok(big.includes('line 50 edited\n') && big.includes('line 40\n') && big.includes('line 60\n'))
  assert.ok(!big.includes('line 700 changed'), 'only this branch\'s changes since the merge base')
  assert.ok(big.startsWith('...\n'))
  assert.equal(ctx.conventions, 'conventions\n')
  assert.deepEqual(ctx.stats, { filesChanged: 3, insertions: 2, deletions: 1, binaryFiles: 1 })
  assert.ok(ctx.diff.includes('+fn c() {}'))
  const meta = ctx._metadata!
  assert.deepEqual(meta.skipped_files, ['blob.bin'])
  assert.deepEqual(meta.truncated_files, ['big.rs'])
  assert.deepEqual(meta.sections_affected, ['changed_files'])
  assert.equal(meta.original_lines, 1200)
  assert.equal(meta.kept_lines, 21)
  assert.ok(meta.warnings.includes('skipped binary file blob.bin'))

  // renames, unicode and spaces, from feature's own point of view
  git(root, 'checkout', '-q', 'feature')
  const f = await buildReviewContext(root, 'HEAD~1')
  assert.ok(f.diff.includes('rename to dir/ünï cödé.txt'))
  assert.deepEqual(f._metadata!.skipped_files, ['logo.png'])
})

test('buildReviewContext: no changes, unknown base, non-repository', async () => {
  const root = initRepo()
  write(root, 'a.txt', 'a\n')
  commit(root, 'base')
  const none = await buildReviewContext(root, 'main')
  assert.equal(none.diff, '')
  assert.deepEqual(none.changed_files, {})
  assert.deepEqual(none.stats, { filesChanged: 0, insertions: 0, deletions: 0, binaryFiles: 0 })
  assert.equal(none._metadata, undefined)
  const unknown = await buildReviewContext(root, 'nope')
  assert.deepEqual(unknown._metadata!.warnings, ['the base branch was not found; the diff is empty'])
  const plain = await buildReviewContext(tempDir(), 'main')
  assert.deepEqual(plain._metadata!.warnings, ['the diff is unavailable: the directory is not a git repository'])
})

test('buildReviewContext redacts a suspected secret and reports file, line and kind', async () => {
  const root = initRepo()
  commit(root, 'base')
  git(root, 'checkout', '-q', '-b', 'f')
  const token = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'
  write(root, 'config.ts', `// config\nexport const token = '${token}'\n`)
  commit(root, 'config')
  const ctx = await buildReviewContext(root, 'main')
  assert.equal(ctx.changed_files['config.ts'], "// config\nexport const token = '[REDACTED:github_token]'\n")
  assert.ok(ctx._metadata!.warnings.includes('redacted a suspected secret (github_token) in config.ts at line 2'))
  assert.deepEqual(ctx._metadata!.redactions.find((r) => r.file === 'config.ts'), { file: 'config.ts', kind: 'github_token', line: 2 })
  assert.ok(!JSON.stringify(ctx._metadata).includes(token))
})

test('buildFixContext: errors, windows of 10+ lines around error lines, summary', async () => {
  const root = tempDir()
  write(root, 'src/app.ts', numbered(800))
  write(root, 'src/util.ts', 'export const x = 1\n')
  const output = [
    "src/app.ts(100,5): error TS2322: Type 'number' is not assignable to type 'string'.",
    "src/app.ts(600,3): error TS7006: Parameter 'x' implicitly has an 'any' type.",
  ].join('\n')
  const ctx = await buildFixContext(output, ['src/util.ts'], root)
  assert.deepEqual(Object.keys(ctx).sort(), ['_metadata', 'error_summary', 'errors', 'source_files'])
  assert.deepEqual(Object.keys(ctx.source_files), ['src/app.ts', 'src/util.ts'])
  const app = ctx.source_files['src/app.ts']
  for (const l of [90, 100, 110, 590, 600, 610]) assert.ok(app.includes(`line ${l}\n`), `line ${l}`)
  assert.ok(!app.includes('line 89\n') && !app.includes('line 111\n'))
  assert.equal(ctx.error_summary, '2 errors in 1 file.')
  assert.equal(
    ctx.errors,
    "src/app.ts:100:5: error[TS2322]: Type 'number' is not assignable to type 'string'. (tsc)\nsrc/app.ts:600:3: error[TS7006]: Parameter 'x' implicitly has an 'any' type. (tsc)\n",
  )
  assert.equal(ctx._metadata!.kept_lines, 42)
})

test('buildFixContext with structured stages, no errors, escapes and missing files', async () => {
  const root = tempDir()
  write(root, 'a.py', 'import os\n')
  const v: ValidationOutput = {
    stages: [
      { name: 'lint', passed: false, output: 'a.py:1:8: F401 [*] `os` imported but unused\n' },
      {
        name: 'types',
        passed: false,
        errors: [
          { file: 'gone.py', line: 3, message: 'boom', severity: 'warning', tool: 'mypy' },
          { file: '../outside.py', line: 1, message: 'x', severity: 'error' },
        ],
      },
    ],
  }
  const ctx = await buildFixContext(v, [], root)
  assert.equal(ctx.error_summary, '2 errors, 1 warning in 3 files (lint: 1, types: 2).')
  assert.deepEqual(Object.keys(ctx.source_files), ['a.py'])
  assert.deepEqual(ctx._metadata!.missing_files, ['gone.py'])
  assert.ok(ctx._metadata!.warnings.some((w) => w.startsWith('ignored a path outside the repository')))
  const clean = await buildFixContext({ stages: [] }, [], root)
  assert.deepEqual(clean, { errors: '', source_files: {}, error_summary: 'No errors.' })
})

test('parseValidationOutput reads real tool output', async () => {
  const cargo = `error[E0308]: mismatched types\n --> src/main.rs:4:18\n  |\n4 |     let x: i32 = "a";\n  |                  ^^^ expected \`i32\`, found \`&str\`\n`
  assert.deepEqual(await parseValidationOutput(cargo), [
    { file: 'src/main.rs', line: 4, column: 18, message: 'mismatched types', severity: 'error', tool: 'rustc', code: 'E0308' },
  ])
  const eslint = '\n/p/src/app.js\n  1:10  error  \'foo\' is defined but never used  no-unused-vars\n\n✖ 1 problem (1 error, 0 warnings)\n'
  assert.deepEqual(await parseValidationOutput(eslint), [
    { file: '/p/src/app.js', line: 1, column: 10, message: "'foo' is defined but never used", severity: 'error', tool: 'eslint', code: 'no-unused-vars' },
  ])
  const mypy = 'src/app.py:12: error: Incompatible return value type (got "int", expected "str")  [return-value]\nFound 1 error in 1 file (checked 1 source file)\n'
  const [m] = await parseValidationOutput(mypy)
  assert.equal(m.tool, 'mypy')
  assert.equal(m.code, 'return-value')
  assert.equal(m.column, undefined)
  assert.deepEqual(await parseValidationOutput('All good\n'), [])
  assert.deepEqual(parseValidationOutputSync(mypy), [m])
  await assert.rejects(parseValidationOutput(42 as never), isInvalid)
  assert.throws(() => parseValidationOutputSync(42 as never), isInvalid)
})

test('buildIssueContext: issue text, related files resolved safely, recent changes', async () => {
  const root = initRepo()
  write(root, 'src/parser.rs', numbered(900))
  write(root, 'docs/guide.md', 'guide\n')
  commit(root, 'add parser')
  write(root, 'other.txt', 'x\n')
  commit(root, 'other')
  const ctx = await buildIssueContext(
    {
      number: 42,
      title: 'Parser crashes',
      body: 'See `src/parser.rs:450` and docs/guide.md; not ../../outside/x.env or /etc/hosts.txt',
      labels: [{ name: 'bug' }, 'p1'],
      state: 'OPEN',
      assignees: [{ login: 'octocat' }],
      url: 'https://github.com/o/r/issues/42',
    },
    root,
  )
  assert.deepEqual(Object.keys(ctx).sort(), ['_metadata', 'issue', 'recent_changes', 'related_files'])
  assert.ok(ctx.issue.startsWith('#42: Parser crashes\nState: OPEN\nLabels: bug, p1\nAssignees: octocat\n'))
  assert.deepEqual(Object.keys(ctx.related_files), ['docs/guide.md', 'src/parser.rs'])
  assert.ok(ctx.related_files['src/parser.rs'].includes('line 450\n'))
  assert.equal(ctx.recent_changes.trim().split('\n').length, 1)
  assert.match(ctx.recent_changes, /^[0-9a-f]{10} 2026-01-01 Test Author: add parser\n$/)
  assert.equal(ctx._metadata!.warnings.filter((w) => w.startsWith('ignored a path outside')).length, 2)

  const none = await buildIssueContext({ number: 1, title: 'Vague', body: null }, root)
  assert.deepEqual(none.related_files, {})
  assert.equal(none.recent_changes.trim().split('\n').length, 2)
  assert.equal(none._metadata, undefined)
})

test('builders reject misuse with invalid_request and never throw synchronously', async () => {
  const root = initRepo()
  const calls: Array<() => Promise<unknown>> = [
    () => buildImplementationContext(1 as never, root),
    () => buildImplementationContext('', root),
    () => buildImplementationContext('t.md', 'relative/path'),
    () => buildImplementationContext('t.md', join(root, 'does-not-exist')),
    () => buildReviewContext(root, '--output=/tmp/x'),
    () => buildReviewContext(root, 'a..b'),
    () => buildReviewContext(root, ''),
    () => buildReviewContext(root, 5 as never),
    () => buildReviewContext(root, 'x'.repeat(300)),
    () => buildFixContext(7 as never, [], root),
    () => buildFixContext({ stages: 'no' } as never, [], root),
    () => buildFixContext({ stages: [{ name: 'x', errors: [{ line: 1 }] }] } as never, [], root),
    () => buildFixContext({ stages: [{ name: 'x', errors: [{ message: 'm', line: -1 }] }] } as never, [], root),
    () => buildFixContext({ stages: [{ name: 'x', errors: [{ message: 'm', line: NaN }] }] } as never, [], root),
    () => buildFixContext({ stages: [{ name: 'x', errors: [{ message: 'm', severity: 'fatal!' }] }] } as never, [], root),
    () => buildFixContext('', 'a.ts' as never, root),
    () => buildFixContext('', [1] as never, root),
    () => buildIssueContext({ title: 't' } as never, root),
    () => buildIssueContext({ number: 1.5, title: 't' } as never, root),
    () => buildIssueContext({ number: 1, title: 't', labels: [3] } as never, root),
    () => buildIssueContext(null as never, root),
  ]
  for (const call of calls) {
    let promise: Promise<unknown>
    assert.doesNotThrow(() => {
      promise = call()
    })
    await assert.rejects(promise!, isInvalid)
  }
})

test('a deleted task file between calls is a warning, not an error', async () => {
  const root = initRepo()
  write(root, 't.md', 'x\n')
  assert.equal((await buildImplementationContext('t.md', root)).tasks, 'x\n')
  unlinkSync(join(root, 't.md'))
  assert.deepEqual((await buildImplementationContext('t.md', root))._metadata!.missing_files, ['t.md'])
})

test('buildFixContext without repoPath resolves paths against the current directory', async () => {
  const ctx = await buildFixContext('package.json:1:1: error: bad json  [json]\n', [])
  assert.deepEqual(Object.keys(ctx.source_files), ['package.json'])
  assert.equal(ctx.error_summary, '1 error in 1 file.')
})
