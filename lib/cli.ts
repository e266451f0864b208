// The context-engine command line: the addon's retrieval for people, scripts and agent hosts.
//
//   context-engine query "<prompt>" [--root DIR]... [--limit N] [--json] [--explain]
//   context-engine index [--root DIR]
//   context-engine serve --stdio
//   context-engine mcp [--root DIR]
//
// Every command takes `--cache-dir DIR` or `--no-cache`: indexes are saved in the per-user
// cache folder by default (`$XDG_CACHE_HOME/context-engine` or the platform's), so the next
// command, or the next MCP session, on the same repository loads the index instead of reading
// every file again. `index` prepares it ahead. On a terminal, indexing shows a progress bar.
//
// `--explain` shows the signals that scored each snippet (bm25, chunk, path, symbol, mention,
// the file's role and its factor).
//
// `serve --stdio` speaks JSON Lines: one request per line on stdin,
//   {"id": "...", "root": "/abs/dir", "prompt": "...", "limit": 50, "explain": false}
// one response per line on stdout, in request order,
//   {"id": "...", "results": [{"path", "startLine", "endLine", "content", "score"}, ...]}
// or {"id": "...", "error": {"code", "message"}} when a request fails. It exits when stdin closes.
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import * as readline from 'node:readline'

import { resolveCacheDir } from './cachedir.js'
import {
  ContextEngine,
  type ContextRetrievalRequest,
  type IndexStatus,
  type MultiRootRetrievalRequest,
  type SnippetSignals,
} from './index.js'

const USAGE = `usage:
  context-engine query "<prompt>" [--root DIR]... [--limit N] [--json] [--explain]
  context-engine index [--root DIR]
  context-engine serve --stdio
  context-engine mcp [--root DIR]
options of every command:
  --cache-dir DIR   where indexes are saved between runs (default: the per-user cache folder)
  --no-cache        keep indexes in memory only`

class UsageError extends Error {}

function fail(message: string): never {
  throw new UsageError(message)
}

interface Parsed {
  positional: string[]
  flags: {
    json?: boolean
    stdio?: boolean
    explain?: boolean
    help?: boolean
    noCache?: boolean
    root?: string
    /** Every `--root`, in order (`root` is the first). */
    roots?: string[]
    limit?: string
    cacheDir?: string
  }
}

export function parseArgs(argv: string[]): Parsed {
  const positional: string[] = []
  const flags: Parsed['flags'] = {}
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--json') flags.json = true
    else if (a === '--stdio') flags.stdio = true
    else if (a === '--explain') flags.explain = true
    else if (a === '--help' || a === '-h') flags.help = true
    else if (a === '--no-cache') flags.noCache = true
    else if (a === '--root' || a === '--limit' || a === '--cache-dir') {
      if (i + 1 >= argv.length) fail(`${a} needs a value`)
      const v = argv[++i]
      if (a === '--root') {
        flags.root ??= v
        flags.roots = [...(flags.roots ?? []), v]
      } else if (a === '--limit') flags.limit = v
      else flags.cacheDir = v
    } else if (a.startsWith('--')) fail(`unknown option ${a}`)
    else positional.push(a)
  }
  if (flags.noCache && flags.cacheDir !== undefined) fail('--cache-dir and --no-cache exclude each other')
  return { positional, flags }
}

function packageInfo(): { name: string; version: string } {
  const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as {
    name: string
    version: string
  }
  return { name: pkg.name, version: pkg.version }
}

const warn = (m: string) => process.stderr.write(`context-engine: warning: ${m}\n`)

function cacheDir(flags: Parsed['flags']): string | undefined {
  return resolveCacheDir({ dir: flags.cacheDir, disabled: flags.noCache }, warn)
}

/**
 * Shows indexing progress of `root` (or of several roots, counted together) on stderr while
 * `work` runs, when stderr is a terminal: a bar, files read of the total, and the time so far.
 * Nothing is shown when the index is ready (or loaded from the cache) within a moment.
 */
async function withProgress<T>(engine: ContextEngine, root: string | string[], work: Promise<T>): Promise<T> {
  const roots = typeof root === 'string' ? [root] : root
  const tty = process.stderr.isTTY
  if (!tty) return work
  const started = Date.now()
  let shown = false
  const draw = () => {
    let all: IndexStatus[]
    try {
      all = roots.map((r) => engine.indexStatus(r))
    } catch {
      return
    }
    if (!all.some((x) => x.state === 'building')) return
    const s = {
      filesRead: all.reduce((n, x) => n + x.filesRead, 0),
      filesTotal: all.reduce((n, x) => n + Math.max(x.filesTotal, x.filesRead), 0),
    }
    const total = Math.max(s.filesTotal, s.filesRead)
    const width = 30
    const done = total > 0 ? Math.round((width * s.filesRead) / total) : 0
    const pct = total > 0 ? `${Math.floor((100 * s.filesRead) / total)}%`.padStart(4) : '    '
    const line = `indexing [${'#'.repeat(done)}${'.'.repeat(width - done)}] ${s.filesRead}/${total || '?'} files ${pct}  ${((Date.now() - started) / 1000).toFixed(1)} s`
    process.stderr.write(`\r${line}\x1b[K`)
    shown = true
  }
  const timer = setInterval(draw, 150)
  try {
    return await work
  } finally {
    clearInterval(timer)
    if (shown) process.stderr.write('\r\x1b[K')
  }
}

/** The request the CLI sends: one root as `rootPath`, several (ranked as one) as `rootPaths`. */
function request(
  prompt: string,
  roots: readonly string[],
  limit: number | undefined,
  explain: boolean | undefined,
): ContextRetrievalRequest | MultiRootRetrievalRequest {
  const base = { prompt, spaceId: 'cli', sessionId: 'cli', providerId: 'mcp' as const }
  const r: ContextRetrievalRequest | MultiRootRetrievalRequest =
    roots.length === 1 ? { ...base, rootPath: roots[0] } : { ...base, rootPaths: [...roots] }
  if (limit !== undefined) r.limit = limit
  if (explain) r.explain = true
  return r
}

function signalsLine(g: SnippetSignals): string {
  const f = (x: number) => x.toFixed(2)
  return `bm25 ${f(g.bm25)} chunk ${f(g.chunk)} path ${f(g.path)} symbol ${f(g.symbol)} mention ${f(g.mention)}${g.message ? ` message ${f(g.message)}` : ''} role ${g.role} x${f(g.roleFactor)}${g.roleKept ? ` (kept: ${g.roleKept})` : ''}${g.roleUnasked ? ' (not asked: the project vocabulary)' : ''}${g.modifierStem ? ' (named by a modifier, not the subject: no mention)' : ''}${g.complementStem ? ' (named by a word after a preposition: 3/4 of a mention)' : ''}${g.projectStem ? ' (named after the project: no mention)' : ''}${g.actionStem ? ' (named by what the project does: a mention)' : ''}${g.referencedBy ? ` imported by ${g.referencedBy} top files x${f(g.referenceFactor)}` : ''}${g.definitionWords ? ` question words on one definition line ${f(g.definitionWords)}` : ''}`
}

function printWarnings(engine: ContextEngine, root: string): void {
  // What the index could not cover (for example ignore rules hiding the whole root) goes to
  // stderr, so `--json` output stays parseable.
  for (const w of engine.indexStatus(root).warnings ?? []) warn(w)
}

async function query(engine: ContextEngine, positional: string[], flags: Parsed['flags']): Promise<void> {
  const prompt = positional.slice(1).join(' ')
  if (!prompt) fail('query needs a prompt')
  let limit: number | undefined
  if (flags.limit !== undefined) {
    limit = Number(flags.limit)
    if (!Number.isInteger(limit) || limit < 1) fail('--limit must be a whole number >= 1')
  }
  // Several --root: one ranking over all of them, each snippet headed by its root.
  const roots = (flags.roots ?? [process.cwd()]).map((r) => resolve(r))
  const many = roots.length > 1
  const started = process.hrtime.bigint()
  const snippets = await withProgress(engine, roots, engine.retrieve(request(prompt, roots, limit, flags.explain)))
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  for (const root of roots) printWarnings(engine, root)
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(snippets, null, 2)}\n`)
    return
  }
  const out: string[] = []
  for (const s of snippets) {
    out.push(`── ${many ? `${s.root}: ` : ''}${s.path}:${s.startLine}-${s.endLine}  score ${s.score.toFixed(3)}`)
    if (s.signals) out.push(`   [${signalsLine(s.signals)}]`)
    out.push(
      s.content
        .split('\n')
        .map((l) => `   ${l}`)
        .join('\n'),
    )
    out.push('')
  }
  out.push(`${snippets.length} snippet(s) in ${ms.toFixed(1)} ms`)
  process.stdout.write(`${out.join('\n')}\n`)
}

async function index(
  engine: ContextEngine,
  positional: string[],
  flags: Parsed['flags'],
  cache: string | undefined,
): Promise<void> {
  if (positional.length > 1) fail('index takes only --root DIR')
  if ((flags.roots?.length ?? 0) > 1) fail('index takes one --root DIR')
  const root = resolve(flags.root ?? process.cwd())
  const started = Date.now()
  const s = await withProgress(engine, root, engine.prepareIndex(root))
  printWarnings(engine, root)
  const secs = ((Date.now() - started) / 1000).toFixed(1)
  const summary = {
    root,
    files: s.files,
    filesRead: s.filesRead,
    chunks: s.chunks,
    seconds: Number(secs),
    cacheDir: cache ?? null,
  }
  if (flags.json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`)
  else
    process.stdout.write(
      `indexed ${root}: ${s.files} files (${s.filesRead} read now), ${s.chunks} chunks in ${secs} s; ${cache ? `saved in ${cache}` : 'not saved (--no-cache)'}\n`,
    )
}

async function serve(engine: ContextEngine): Promise<void> {
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity })
  for await (const line of rl) {
    if (!line.trim()) continue
    let id: unknown = null
    let response: unknown
    try {
      const req = JSON.parse(line)
      id = req.id ?? null
      const limit = req.limit === undefined || req.limit === null ? undefined : req.limit
      const snippets = await engine.retrieve(
        request(String(req.prompt ?? ''), [String(req.root ?? '')], limit, req.explain === true),
      )
      response = {
        id,
        results: snippets.map((s) => {
          const r: Record<string, unknown> = {
            path: s.path,
            startLine: s.startLine,
            endLine: s.endLine,
            content: s.content,
            score: s.score,
          }
          if (s.signals) r.signals = s.signals
          return r
        }),
      }
    } catch (err) {
      const e = err as { code?: unknown; message?: string }
      response = {
        id,
        error: {
          code: typeof e?.code === 'string' ? e.code : 'invalid_request',
          message: e?.message || 'request failed',
        },
      }
    }
    process.stdout.write(`${JSON.stringify(response)}\n`)
  }
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  try {
    const { positional, flags } = parseArgs(argv)
    if (flags.help) {
      process.stdout.write(`${USAGE}\n`)
      return
    }
    const command = positional[0]
    if (command === 'mcp') {
      if (
        positional.length > 1 ||
        flags.limit !== undefined ||
        flags.json ||
        flags.stdio ||
        flags.explain ||
        (flags.roots?.length ?? 0) > 1
      )
        fail('mcp takes only --root DIR (once; the client lists more roots), --cache-dir DIR and --no-cache')
      const { runMcp } = await import('./mcp/server.js')
      const cache = resolveCacheDir({ dir: flags.cacheDir, disabled: flags.noCache }, (m) =>
        process.stderr.write(`context-engine mcp: ${m}\n`),
      )
      return await runMcp({ root: flags.root, cacheDir: cache, ...packageInfo() })
    }
    if (command !== 'query' && command !== 'index' && command !== 'serve')
      fail(command ? `unknown command ${command}` : 'missing command')
    if (command === 'serve' && !flags.stdio) fail('serve needs --stdio')
    const cache = cacheDir(flags)
    const engine = new ContextEngine(cache ? { indexCacheDir: cache } : {})
    if (command === 'query') return await query(engine, positional, flags)
    if (command === 'index') return await index(engine, positional, flags, cache)
    return await serve(engine)
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`context-engine: ${err.message}\n${USAGE}\n`)
      process.exit(2)
    }
    const e = err as { message?: string; code?: string }
    process.stderr.write(`context-engine: ${e?.message ?? err}${e?.code ? ` (${e.code})` : ''}\n`)
    process.exit(1)
  }
}
