// Every export that returns file text redacts secrets by default, and those that
// report say what they redacted (kind and line, never the value). One real git repository in
// a temp dir holds fake secrets of several kinds; every fake is assembled at runtime from split
// prefixes and pseudo-random bodies, so this file holds nothing a secret scanner would flag.
import { test, after, before } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, mkdirSync, writeFileSync, rmSync, realpathSync, appendFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

import {
  buildFixContext,
  buildImplementationContext,
  buildIssueContext,
  buildReviewContext,
  composeContext,
  diffContext,
  dirContext,
  expandChunk,
  expandChunkDetailed,
  fileContext,
  retrieve,
  type BuilderMetadata,
  type Redaction,
} from '../lib/index.js'

// ---- fake secrets ---------------------------------------------------------------------------

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const B64 = ALNUM + '+/'
const B64URL = ALNUM + '-_'

let state = 0x2545f491
function rnd(len: number, alphabet: string): string {
  let out = ''
  for (let i = 0; i < len; i++) {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    out += alphabet[(state >>> 0) % alphabet.length]
  }
  return out
}

const join2 = (...parts: string[]) => parts.join('')
const fake = {
  github: join2('gh', 'p_', rnd(36, ALNUM)),
  npm: join2('np', 'm_', rnd(36, ALNUM)),
  sendgrid: join2('S', 'G.', rnd(22, B64URL), '.', rnd(43, B64URL)),
  aws: join2('AK', 'IA', rnd(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')),
  password: join2('test', rnd(6, '0123456789')),
  huggingface: join2('h', 'f_', rnd(34, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz')),
}
const pemLabel = join2('PRIVATE', ' KEY')
const pemBody = Array.from({ length: 24 }, () => rnd(64, B64))
const pem = [`-----BEGIN RSA ${pemLabel}-----`, ...pemBody, `${rnd(20, B64)}==`, `-----END RSA ${pemLabel}-----`].join('\n')

/** Every value that must never come back. */
const values = [...Object.values(fake), ...pemBody]

function assertNoLeak(where: string, text: string): void {
  for (const v of values) {
    assert.ok(!text.includes(v), `${where} leaked a secret (${v.slice(0, 4)}...)`)
  }
}

function kinds(report: Array<Redaction | { kind: string }>): string[] {
  return [...new Set(report.map((r) => r.kind))].sort()
}

// ---- the repository -------------------------------------------------------------------------

const dirs: string[] = []
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))

let root = ''
function git(...args: string[]): string {
  return execFileSync('git', args, {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z', GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z' },
  })
}
function write(rel: string, content: string): void {
  const p = join(root, rel)
  mkdirSync(dirname(p), { recursive: true })
  writeFileSync(p, content)
}

const CONFIG = [
  '# zebrafinch service configuration',
  `GH_TOKEN=${fake.github}`,
  `//registry.npmjs.org/:_authToken=${fake.npm}`,
  `DB_PASSWORD="${fake.password}"`,
  'PORT=8080',
  '',
].join('\n')

const MAIL = [
  'export function zebrafinchMailer() {',
  `  const sendgrid = '${fake.sendgrid}'`,
  `  const aws = '${fake.aws}'`,
  '  return { sendgrid, aws }',
  '}',
  '',
].join('\n')

before(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'ce-redaction-')))
  dirs.push(root)
  git('init', '-q', '-b', 'main')
  git('config', 'user.email', 't@example.com')
  git('config', 'user.name', 'T')
  write('config/app.env', CONFIG)
  write('src/mail.ts', MAIL)
  write('keys/server.pem', `${pem}\n`)
  write('README.md', '# zebrafinch\n')
  git('add', '-A')
  git('commit', '-q', '-m', 'base')
})

// ---- the exports ----------------------------------------------------------------------------

test('retrieve: no snippet shows a secret', async () => {
  const out = await retrieve({
    prompt: 'zebrafinch mailer sendgrid token password config server key',
    spaceId: 's',
    sessionId: 'x',
    rootPath: root,
    providerId: 'filesystem',
    limit: 50,
  })
  assert.ok(out.length >= 2, `expected snippets, got ${out.length}`)
  for (const s of out) assertNoLeak(`retrieve ${s.source}`, s.content)
  assert.ok(out.some((s) => s.content.includes('[REDACTED:')))
  // Each snippet reports its redactions: kind and a file line inside the snippet, one per
  // marker it shows, never the value.
  for (const s of out) {
    const markers = (s.content.match(/\[REDACTED:/g) ?? []).length
    assert.equal(s.redactions.length, markers, `${s.source}: ${JSON.stringify(s.redactions)}`)
    for (const r of s.redactions) {
      assert.ok(r.line >= s.startLine! && r.line <= s.endLine!, `${s.source}: ${JSON.stringify(r)}`)
    }
    assertNoLeak('retrieve redactions', JSON.stringify(s.redactions))
  }
  const env = out.find((s) => s.path === 'config/app.env')
  assert.ok(env, 'config/app.env expected among the snippets')
  assert.deepEqual(
    env.redactions.map((r) => [r.kind, r.line]),
    [['github_token', 2], ['npm_token', 3], ['generic_secret', 4]],
  )
})

test('retrieve: redact: false opts out (the text as it is, nothing reported)', async () => {
  const out = await retrieve({
    prompt: 'zebrafinch service configuration GH_TOKEN',
    spaceId: 's',
    sessionId: 'x',
    rootPath: root,
    providerId: 'filesystem',
    redact: false,
  })
  const env = out.find((s) => s.path === 'config/app.env')
  assert.ok(env, 'config/app.env expected among the snippets')
  assert.ok(env.content.includes(fake.github))
  assert.deepEqual(env.redactions, [])
  await assert.rejects(
    retrieve({ prompt: 'x', spaceId: 's', sessionId: 'x', rootPath: root, providerId: 'filesystem', redact: 'no' as never }),
    (e: Error & { code?: string }) => e.code === 'invalid_request' && /redact/.test(e.message),
  )
})

test('expandChunk and expandChunkDetailed: redacted, reported by kind and file line', async () => {
  const chunk = { content: 'GH_TOKEN', filePath: 'config/app.env', startLine: 2, endLine: 2 }
  assertNoLeak('expandChunk', await expandChunk(root, chunk, 5))
  const d = await expandChunkDetailed(root, chunk, 5)
  assertNoLeak('expandChunkDetailed', d.content)
  assert.deepEqual(
    d.redactions.map((r) => [r.kind, r.line]),
    [['github_token', 2], ['npm_token', 3], ['generic_secret', 4]],
  )
  // A range that starts inside the key block: reported on the range's first line.
  const inside = await expandChunkDetailed(root, { content: '', filePath: 'keys/server.pem', startLine: 10, endLine: 12 }, 2)
  assertNoLeak('expandChunkDetailed (inside a key)', inside.content)
  assert.deepEqual(inside.redactions, [{ kind: 'private_key', line: 8 }])
})

test('fileContext: redacted, reported by kind and line; redact: false opts out', async () => {
  const src = await fileContext('config/app.env', { root })
  assertNoLeak('fileContext', src.content)
  assert.deepEqual(src.redactions, [
    { kind: 'github_token', line: 2 },
    { kind: 'npm_token', line: 3 },
    { kind: 'generic_secret', line: 4 },
  ])
  const pemSrc = await fileContext(join(root, 'keys/server.pem'))
  assertNoLeak('fileContext (key)', pemSrc.content)
  assert.deepEqual(pemSrc.redactions, [{ kind: 'private_key', line: 1 }])
  const raw = await fileContext('config/app.env', { root, redact: false })
  assert.ok(raw.content.includes(fake.github))
  assert.deepEqual(raw.redactions, [])
})

test('dirContext: nothing leaks', async () => {
  const src = await dirContext(root)
  assertNoLeak('dirContext', src.content)
  assert.ok(Array.isArray(src.redactions))
})

test('diffContext: a secret added to the working tree is redacted and reported', async () => {
  appendFileSync(join(root, 'README.md'), `HF_TOKEN=${fake.huggingface}\n`)
  try {
    const src = await diffContext(root)
    assertNoLeak('diffContext', src.content)
    assert.deepEqual(kinds(src.redactions), ['huggingface_token'])
    const line = src.content.split('\n').findIndex((l) => l.includes('[REDACTED:huggingface_token]')) + 1
    assert.deepEqual(src.redactions, [{ kind: 'huggingface_token', line }])
  } finally {
    git('checkout', '--', 'README.md')
  }
})

test('composeContext: caller text is redacted before the cut', async () => {
  const c = await composeContext([
    { kind: 'file', label: 'mail', content: MAIL, truncated: false },
    { kind: 'file', label: 'config', content: CONFIG, truncated: false },
  ])
  assertNoLeak('composeContext', c.text)
  assert.deepEqual(kinds(c.redactions), ['aws_access_key_id', 'generic_secret', 'github_token', 'npm_token', 'sendgrid_key'])
  for (const r of c.redactions) {
    assert.ok(c.text.split('\n')[r.line - 1].includes(`[REDACTED:${r.kind}]`), JSON.stringify(r))
  }
  // A cap falling inside a token leaves none of it.
  for (let max = 40; max < 120; max += 7) {
    const cut = await composeContext([{ kind: 'file', label: 'mail', content: MAIL, truncated: false }], { maxChars: max })
    assert.ok(!cut.text.includes(fake.sendgrid.slice(0, 6)), `maxChars ${max}: ${cut.text}`)
  }
})

function assertReported(meta: BuilderMetadata | undefined, file: string, kind: string): void {
  assert.ok(meta, 'metadata expected')
  const r = meta.redactions.find((x) => x.file === file && x.kind === kind)
  assert.ok(r, `${kind} in ${file} not reported: ${JSON.stringify(meta.redactions)}`)
  assert.ok(r.line >= 1)
  assert.ok(!JSON.stringify(meta).includes(fake.github))
}

test('buildImplementationContext: the task file is redacted and reported', async () => {
  write('TASKS.md', `# Tasks\n- rotate ${fake.github}\n`)
  const ctx = await buildImplementationContext('TASKS.md', root)
  assertNoLeak('buildImplementationContext', JSON.stringify(ctx))
  assert.ok(ctx.tasks.includes('[REDACTED:github_token]'))
  assertReported(ctx._metadata, 'TASKS.md', 'github_token')
  assert.deepEqual(
    ctx._metadata!.redactions.find((r) => r.file === 'TASKS.md'),
    { file: 'TASKS.md', kind: 'github_token', line: 2 },
  )
})

test('buildReviewContext: diff and changed files are redacted', async () => {
  git('checkout', '-q', '-b', 'feature')
  try {
    write('src/extra.ts', `export const token = '${fake.github}'\n`)
    git('add', '-A')
    git('commit', '-q', '-m', 'extra')
    const ctx = await buildReviewContext(root, 'main')
    assertNoLeak('buildReviewContext', JSON.stringify(ctx))
    assert.ok(ctx.diff.includes('[REDACTED:github_token]'))
    assertReported(ctx._metadata, 'src/extra.ts', 'github_token')
    assertReported(ctx._metadata, 'the diff', 'github_token')
  } finally {
    git('checkout', '-q', 'main')
  }
})

test('buildFixContext: source files and tool output are redacted', async () => {
  const output = `src/mail.ts:2:9 - error TS2322: '${fake.npm}' is not assignable\n`
  const ctx = await buildFixContext(output, ['src/mail.ts'], root)
  assertNoLeak('buildFixContext', JSON.stringify(ctx))
  assertReported(ctx._metadata, 'src/mail.ts', 'sendgrid_key')
  assertReported(ctx._metadata, 'the errors', 'npm_token')
})

test('builders: redact: false opts out; a bad redact is invalid_request', async () => {
  write('TASKS.md', `# Tasks\n- rotate ${fake.github}\n`)
  const ctx = await buildImplementationContext('TASKS.md', root, { redact: false })
  assert.ok(ctx.tasks.includes(fake.github))
  assert.deepEqual(ctx._metadata?.redactions ?? [], [])
  const fix = await buildFixContext('', ['src/mail.ts'], root, { redact: false })
  assert.ok(fix.source_files['src/mail.ts'].includes(fake.sendgrid))
  const issue = await buildIssueContext({ number: 1, title: 't', body: `token ${fake.github}` }, root, { redact: null as never })
  assertNoLeak('buildIssueContext (redact: null is the default)', JSON.stringify(issue))
  for (const call of [
    () => buildImplementationContext('TASKS.md', root, { redact: 1 as never }),
    () => buildReviewContext(root, 'main', { redact: 'false' as never }),
    () => buildFixContext('', [], root, { redact: {} as never }),
    () => buildIssueContext({ number: 1, title: 't', body: '' }, root, { redact: [] as never }),
  ]) {
    await assert.rejects(call(), (e: Error & { code?: string }) => e.code === 'invalid_request' && /options\.redact/.test(e.message))
  }
})

test('buildIssueContext: the issue and related files are redacted', async () => {
  const ctx = await buildIssueContext(
    { number: 7, title: 'Mailer broken', body: `See src/mail.ts and config/app.env; token ${fake.github}` },
    root,
  )
  assertNoLeak('buildIssueContext', JSON.stringify(ctx))
  assertReported(ctx._metadata, 'the issue', 'github_token')
  assertReported(ctx._metadata, 'src/mail.ts', 'sendgrid_key')
})
