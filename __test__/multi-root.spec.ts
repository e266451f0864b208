// Retrieval over several roots in one call (`rootPaths`): the request and snippet types, one
// merged ranking with each snippet's root and a path relative to it, the checks of the list
// (exactly one of rootPath and rootPaths, count, each root), duplicates and nested roots,
// allowedRoots applied to each root, freshness and saved indexes per root, and the ESM and
// CommonJS entries. Real temporary git repositories.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, mkdirSync, writeFileSync, rmSync, realpathSync, readdirSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, dirname, resolve } from 'node:path'

import {
  ContextEngine,
  retrieve,
  type ContextRetrievalRequest,
  type ContextSnippet,
  type MultiRootRetrievalRequest,
} from '../lib/index.js'

const PACKAGE_ROOT = resolve(__dirname, '..')

function write(root: string, rel: string, text: string): void {
  const p = join(root, rel)
  mkdirSync(dirname(p), { recursive: true })
  writeFileSync(p, text)
}

function gitRepo(prefix: string, files: Record<string, string>): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)))
  for (const [rel, text] of Object.entries(files)) write(root, rel, text)
  execFileSync('git', ['init', '-q'], { cwd: root })
  execFileSync('git', ['add', '.'], { cwd: root })
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'init'], { cwd: root })
  return root
}

/** A web app and a billing package: two roots of one workspace. */
function workspace(): { web: string; billing: string } {
  const web = gitRepo('ce-multi-web-', {
    'src/router.ts': 'export class Router {\n  match(method: string, path: string) {\n    return this.routes.find((r) => r.path === path)\n  }\n}\n',
    'src/checkout.ts': 'import { chargeInvoice } from "billing"\nexport function checkoutPage() {\n  return chargeInvoice(cart.total)\n}\n',
  })
  const billing = gitRepo('ce-multi-billing-', {
    'src/invoice.ts': 'export function chargeInvoice(total: number) {\n  // charge the invoice total to the card\n  return stripe.charge(total)\n}\n',
    'src/refund.ts': 'export function refundInvoice(id: string) {\n  return stripe.refund(id)\n}\n',
  })
  return { web, billing }
}

function multi(rootPaths: string[], prompt: string, extra: Partial<MultiRootRetrievalRequest> = {}): MultiRootRetrievalRequest {
  return { prompt, spaceId: 'space-1', sessionId: 'session-1', rootPaths, providerId: 'mcp', ...extra }
}

async function rejectsWith(p: Promise<unknown>, code: string, pattern?: RegExp, forbidden: string[] = []): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof Error)
    const e = err as Error & { code?: string }
    assert.equal(e.code, code, e.message)
    if (pattern) assert.match(e.message, pattern)
    for (const f of forbidden) assert.ok(!e.message.includes(f), `message leaks ${f}: ${e.message}`)
    return true
  })
}

test('types: a request has exactly one of rootPath and rootPaths; a snippet says its root', () => {
  const one: ContextRetrievalRequest = { prompt: 'x', spaceId: 's', sessionId: 's', rootPath: '/r', providerId: 'mcp' }
  const many: MultiRootRetrievalRequest = { prompt: 'x', spaceId: 's', sessionId: 's', rootPaths: ['/a', '/b'], providerId: 'mcp' }
  // @ts-expect-error: both forms at once
  const both: MultiRootRetrievalRequest = { ...many, rootPath: '/r' }
  // @ts-expect-error: neither form
  const neither: ContextRetrievalRequest = { prompt: 'x', spaceId: 's', sessionId: 's', providerId: 'mcp' }
  const accepts = (r: Parameters<typeof retrieve>[0]) => r
  accepts(one)
  accepts(many)
  type Root = ContextSnippet['root']
  const root: Root = 'a string'
  assert.ok(both && neither && root)
})

test('one merged ranking over two roots, each snippet with its root and a path relative to it', async () => {
  const { web, billing } = workspace()
  try {
    const out = await retrieve(multi([web, billing], 'charge the invoice total at checkout', { limit: 10 }))
    assert.ok(out.length >= 2)
    // Both roots answer, in one ranking.
    assert.deepEqual(
      out
        .slice(0, 2)
        .map((s) => `${s.root}|${s.path}`)
        .sort(),
      [`${billing}|src/invoice.ts`, `${web}|src/checkout.ts`].sort(),
    )
    for (const s of out) {
      assert.ok(s.root === web || s.root === billing)
      assert.ok(!s.path.startsWith('/'))
      assert.equal(s.source, `${s.path}:${s.startLine}-${s.endLine}`)
      assert.equal(s.provider, 'mcp')
    }
    for (let i = 1; i < out.length; i++) assert.ok(out[i - 1].score >= out[i].score, 'sorted by score')
    // A single root's snippets say their root too.
    const single = await retrieve({ prompt: 'router match', spaceId: 's', sessionId: 's', rootPath: web, providerId: 'mcp' })
    assert.ok(single.length > 0 && single.every((s) => s.root === web))
    // Deterministic, and independent of the order the roots are listed in.
    const again = await retrieve(multi([billing, web], 'charge the invoice total at checkout', { limit: 10 }))
    assert.deepEqual(
      again.map((s) => [s.root, s.path, s.score]),
      out.map((s) => [s.root, s.path, s.score]),
    )
    // Defaults: 20 snippets at most, as for one root.
    const many = await retrieve(multi([web, billing], 'invoice router refund checkout match charge'))
    assert.ok(many.length <= 20)
  } finally {
    rmSync(web, { recursive: true, force: true })
    rmSync(billing, { recursive: true, force: true })
  }
})

test('bad lists of roots reject with invalid_request and a safe message, never throw', async () => {
  const { web, billing } = workspace()
  const engine = new ContextEngine({ maxRoots: 1 })
  try {
    const cases: Array<[unknown, RegExp]> = [
      [{ ...multi([web], 'x'), rootPath: web }, /exactly one of rootPath .* and rootPaths/],
      [{ prompt: 'x', spaceId: 's', sessionId: 's', providerId: 'mcp' }, /exactly one of rootPath/],
      [multi([], 'x'), /rootPaths must list at least one root/],
      [multi(Array(65).fill(web), 'x'), /too many entries \(at most 64\)/],
      [{ ...multi([web], 'x'), rootPaths: web }, /rootPaths must be an array of strings/],
      [{ ...multi([web], 'x'), rootPaths: [web, 42] }, /each entry of request\.rootPaths/],
      [multi([web, ''], 'x'), /rootPaths\[1\] must not be empty/],
      [multi([web, 'relative/dir'], 'x'), /rootPaths\[1\] must be an absolute path/],
      [multi([billing, join(web, 'missing-secret-dir')], 'x'), /rootPaths\[1\]/],
      [multi([web, join(web, 'src/router.ts')], 'x'), /rootPaths\[1\] is not a directory/],
      [multi([web, billing], 'x'), /lists 2 roots but the engine keeps the indexes of 1 \(raise maxRoots\)/],
    ]
    for (const [request, pattern] of cases) {
      let p: Promise<unknown> | undefined
      assert.doesNotThrow(() => {
        p = engine.retrieve(request as MultiRootRetrievalRequest)
      })
      await rejectsWith(p!, 'invalid_request', pattern, ['missing-secret-dir'])
    }
    // allowedRoots applies to each root.
    const confined = new ContextEngine({ allowedRoots: [web] })
    await rejectsWith(confined.retrieve(multi([web, billing], 'invoice')), 'invalid_request', /rootPaths\[1\] is outside the engine's allowedRoots/, [billing])
    assert.ok((await confined.retrieve(multi([web], 'router'))).length > 0)
  } finally {
    rmSync(web, { recursive: true, force: true })
    rmSync(billing, { recursive: true, force: true })
  }
})

test('duplicates count once and a root inside another is searched as part of it', async () => {
  const { web, billing } = workspace()
  const engine = new ContextEngine()
  try {
    const base = await engine.retrieve(multi([web, billing], 'invoice refund router'))
    const dup = await engine.retrieve(multi([web, billing, `${web}/`, join(billing, 'src')], 'invoice refund router'))
    assert.deepEqual(dup, base)
    // A symlink to a root is the same root.
    const link = join(tmpdir(), `ce-multi-link-${process.pid}`)
    symlinkSync(billing, link)
    try {
      const viaLink = await engine.retrieve(multi([web, billing, link], 'invoice refund router'))
      assert.deepEqual(viaLink, base)
    } finally {
      rmSync(link, { force: true })
    }
    const ids = new Set(base.map((s) => `${s.root}|${s.id}`))
    assert.equal(ids.size, base.length, 'no snippet twice')
  } finally {
    rmSync(web, { recursive: true, force: true })
    rmSync(billing, { recursive: true, force: true })
  }
})

test('each root stays fresh and keeps its own saved index', async () => {
  const { web, billing } = workspace()
  const cache = realpathSync(mkdtempSync(join(tmpdir(), 'ce-multi-cache-')))
  try {
    const engine = new ContextEngine({ indexCacheDir: cache })
    const ask = (e: ContextEngine, prompt: string) => e.retrieve(multi([web, billing], prompt))
    assert.deepEqual(await ask(engine, 'zorbulate'), [])
    write(billing, 'src/zorb.ts', 'export function zorbulate() {\n  return 1\n}\n')
    const seen = await ask(engine, 'zorbulate')
    assert.deepEqual(
      seen.map((s) => [s.root, s.path]),
      [[billing, 'src/zorb.ts']],
    )
    assert.equal(engine.indexStatus(web).state, 'ready')
    assert.equal(engine.indexStatus(billing).state, 'ready')
    // Both indexes are saved, one file each.
    // (A save writes a temporary file first, then renames it.)
    const saved = () => readdirSync(cache).filter((f) => f.endsWith('.ceidx'))
    for (let i = 0; i < 200 && (saved().length < 2 || readdirSync(cache).length > 2); i++) await new Promise((r) => setTimeout(r, 50))
    assert.equal(saved().length, 2)
    assert.equal(readdirSync(cache).length, 2)
    // A new engine loads them and reads no file again.
    const second = new ContextEngine({ indexCacheDir: cache })
    assert.deepEqual(await ask(second, 'zorbulate'), seen)
    assert.equal(second.indexStatus(web).filesRead, 0)
    assert.equal(second.indexStatus(billing).filesRead, 0)
  } finally {
    rmSync(web, { recursive: true, force: true })
    rmSync(billing, { recursive: true, force: true })
    rmSync(cache, { recursive: true, force: true })
  }
})

test('an aborted multi-root call rejects with AbortError and leaves no half-built root', async () => {
  const { web, billing } = workspace()
  try {
    const engine = new ContextEngine()
    const ac = new AbortController()
    ac.abort()
    await assert.rejects(engine.retrieve(multi([web, billing], 'invoice'), { signal: ac.signal }), (e: Error) => e.name === 'AbortError')
    assert.equal(engine.indexStatus(web).state, 'absent')
    assert.equal(engine.indexStatus(billing).state, 'absent')
  } finally {
    rmSync(web, { recursive: true, force: true })
    rmSync(billing, { recursive: true, force: true })
  }
})

test('ESM and CommonJS: rootPaths through the package entry', () => {
  const { web, billing } = workspace()
  const request = JSON.stringify(multi([web, billing], 'charge the invoice total'))
  const files = {
    mjs: `import { retrieve } from 'context-engine'\nconst out = await retrieve(${request})\nconsole.log(JSON.stringify(out.map((s) => [s.root, s.path])[0]))\n`,
    cjs: `const { retrieve } = require('context-engine')\nretrieve(${request}).then((out) => console.log(JSON.stringify(out.map((s) => [s.root, s.path])[0])))\n`,
  }
  try {
    for (const [ext, script] of Object.entries(files)) {
      const file = join(PACKAGE_ROOT, `.multi-root-${process.pid}.${ext}`)
      writeFileSync(file, script)
      try {
        const r = spawnSync(process.execPath, [file], { cwd: PACKAGE_ROOT, encoding: 'utf8', timeout: 60_000 })
        assert.equal(r.status, 0, r.stderr)
        assert.deepEqual(JSON.parse(r.stdout), [billing, 'src/invoice.ts'], ext)
      } finally {
        rmSync(file, { force: true })
      }
    }
  } finally {
    rmSync(web, { recursive: true, force: true })
    rmSync(billing, { recursive: true, force: true })
  }
})
