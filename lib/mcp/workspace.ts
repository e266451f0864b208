// The roots the server may read and the engine that enforces them. The engine is built with
// `allowedRoots` set to those roots, so every root and file the tools touch is confined by the
// engine itself (symlinks included); this module only decides what the roots are, turns the
// engine's refusals into messages that say what to do next, and reads files through it.
import { readdirSync, realpathSync, statSync } from 'node:fs'
import path, { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

import { ContextEngine, type ContextSnippet, type ExpandedChunk } from '../index.js'
import { invalid, type ToolError } from './args.js'

/** Most roots one search covers (the engine's limit of roots per call). */
export const MAX_SEARCH_ROOTS = 64

/** Files larger than this are not read by the file tools (the engine's read limit). */
export const MAX_FILE_BYTES = 8 * 1024 * 1024

export function realDir(p: string): string {
  const real = realpathSync(p)
  if (!statSync(real).isDirectory()) throw new Error('not a directory')
  return real
}

export interface WorkspaceOptions {
  /** `--root`: a real directory. */
  flagRoot?: string
  /** Where indexes are saved between sessions; undefined for memory only. */
  cacheDir?: string
}

export class Workspace {
  private readonly flagRoot?: string
  private readonly cwd?: string
  private client?: string[]
  private readonly cacheDir?: string
  private current?: { key: string; engine: ContextEngine }
  /** Settles once the client's roots (when it offers any) are known. */
  settled: Promise<void> = Promise.resolve()

  constructor(options: WorkspaceOptions) {
    this.flagRoot = options.flagRoot
    this.cacheDir = options.cacheDir
    this.cwd = options.flagRoot ? undefined : realDir(process.cwd())
  }

  /** Where tools work when they are not given a `root`. */
  defaultRoot(): string {
    return (this.flagRoot ?? this.client?.[0] ?? this.cwd) as string
  }

  /** The directories this server may read: the client's roots (else the working directory), and `--root`. */
  allowed(): string[] {
    const out = this.client ? [...this.client] : this.flagRoot ? [] : [this.cwd as string]
    if (this.flagRoot && !out.includes(this.flagRoot)) out.push(this.flagRoot)
    return out
  }

  /**
   * The roots a search without a `root` argument covers: every root this server may read (the
   * client's roots and `--root`, else the working directory), the default first, at most
   * `MAX_SEARCH_ROOTS`.
   */
  async searchRoots(): Promise<string[]> {
    await this.settled
    const first = this.defaultRoot()
    return [first, ...this.allowed().filter((r) => r !== first)].slice(0, MAX_SEARCH_ROOTS)
  }

  /** The engine confined to the current roots (a new one when the roots change). */
  engine(): ContextEngine {
    const roots = this.allowed()
    const key = JSON.stringify(roots)
    if (this.current?.key !== key) {
      // It keeps the index of every root a search covers (8 at least, as by default).
      const maxRoots = Math.max(8, Math.min(MAX_SEARCH_ROOTS, roots.length))
      this.current = { key, engine: new ContextEngine({ allowedRoots: roots, indexCacheDir: this.cacheDir, maxRoots }) }
    }
    return this.current.engine
  }

  /** Replaces the client roots from a `roots/list` answer (file: URIs of directories). */
  setClientRoots(list: Array<{ uri?: unknown }>): void {
    const dirs: string[] = []
    for (const r of list) {
      if (typeof r?.uri !== 'string' || !r.uri.startsWith('file:')) continue
      try {
        const real = realDir(fileURLToPath(r.uri))
        if (!dirs.includes(real)) dirs.push(real)
      } catch {
        // A root that does not exist here (another machine's path) is not readable anyway.
      }
    }
    this.client = dirs.length ? dirs : undefined
  }

  /** A tool's `root` argument as a real directory the engine accepts. */
  async resolveRoot(arg?: string): Promise<string> {
    await this.settled
    const base = this.defaultRoot()
    if (arg === undefined) return base
    if (arg.includes('\0')) throw invalid('root must not contain NUL')
    const p = resolve(base, arg)
    try {
      // The engine's own check: inside one of its allowedRoots after following symlinks.
      this.engine().indexStatus(p)
    } catch (err) {
      if ((err as { reason?: string }).reason === 'outside_allowed_roots') {
        throw invalid(
          `root is outside the roots this server may read (${this.allowed().length} root(s); the default is the server's root)`,
        )
      }
    }
    try {
      return realDir(p)
    } catch {
      throw invalid('root is not an existing directory')
    }
  }
}

/**
 * `file` as a `/`-separated path relative to `root` (lexically; the engine checks the rest).
 * `paths` is the platform's path module; tests pass `path.win32` or `path.posix`.
 */
export function relativePath(root: string, file: string, paths: typeof path.posix = path): string {
  if (file.includes('\0')) throw invalid('path must not contain NUL')
  const rel = paths.isAbsolute(file) ? paths.relative(root, file) : paths.relative(root, paths.resolve(root, file))
  if (rel === '') return '.'
  return rel.split(paths.sep).join('/')
}

/**
 * Lines `start..end + 1` of `rel` (clamped to the file; the line after `end` tells whether more
 * follow) through the engine, secrets redacted. `content` may begin before `start`.
 */
export async function readLines(
  engine: ContextEngine,
  root: string,
  rel: string,
  start: number,
  end: number,
  signal?: AbortSignal,
): Promise<ExpandedChunk> {
  return engine.expandChunkDetailed(
    root,
    { content: '', filePath: rel, startLine: start, endLine: start },
    end - start + 1,
    { mode: 'lines', signal },
  )
}

/** The number of lines of `rel`, or undefined when the engine cannot read it. */
export async function lineCount(engine: ContextEngine, root: string, rel: string): Promise<number | undefined> {
  const r = await engine.expandChunkDetailed(root, { content: '', filePath: rel, startLine: 1, endLine: 1 }, 1e9, {
    mode: 'lines',
    redact: false,
  })
  return r.expanded ? r.endLine : undefined
}

/** The whole text of `rel` through the engine (redacted unless `redact` is false), or undefined. */
export async function readWhole(
  engine: ContextEngine,
  root: string,
  rel: string,
  redact = true,
): Promise<string | undefined> {
  const r = await engine.expandChunkDetailed(root, { content: '', filePath: rel, startLine: 1, endLine: 1 }, 1e9, {
    mode: 'lines',
    redact,
  })
  return r.expanded ? r.content : undefined
}

/**
 * The error for an expansion the engine refused, saying what to do next: the file's length,
 * the closest existing paths, a directory's entries, the size limit and the tool to use.
 */
export async function readError(
  engine: ContextEngine,
  root: string,
  rel: string,
  r: ExpandedChunk,
  asked: { startLine: number; endLine: number },
): Promise<ToolError> {
  switch (r.reason) {
    case 'outside_workspace':
    case 'invalid_path':
      return invalid('path is outside the root')
    case 'not_found': {
      const near = await closestPaths(engine, root, rel)
      return invalid(`file not found: ${rel}${near.length ? `; the closest existing paths: ${near.join(', ')}` : ''}`)
    }
    case 'not_a_file': {
      const entries = dirEntries(root, rel)
      return invalid(
        `${rel} is a directory, not a file${entries ? `; its entries: ${entries}` : ''}. Read one of its files, or call repo_map with path '${rel}' for an overview.`,
      )
    }
    case 'too_large':
      return invalid(
        `file is too large to read (the limit is ${MAX_FILE_BYTES / 1024 / 1024} MiB): use search_code or find_symbol to find the part you need`,
      )
    case 'binary':
      return invalid('file is binary: it has no lines to read')
    case 'empty_file':
      return invalid('file is empty')
    case 'out_of_range': {
      const n = await lineCount(engine, root, rel)
      return invalid(
        `lines ${asked.startLine}-${asked.endLine} are outside the file${n !== undefined ? `: ${rel} has ${n} line${n === 1 ? '' : 's'}` : ''}`,
      )
    }
    case 'invalid_range':
      return invalid('startLine must be <= endLine')
    case 'invalid_workspace':
      return invalid('root is not a directory')
    default:
      return invalid('file cannot be read')
  }
}

/** Up to 30 entries of a directory the engine has placed inside the root, `name/` for folders. */
function dirEntries(root: string, rel: string): string | undefined {
  try {
    const all = readdirSync(resolve(root, rel), { withFileTypes: true })
      .filter((d) => !d.name.startsWith('.'))
      .map((d) => (d.isDirectory() ? `${d.name}/` : d.name))
      .sort()
    if (!all.length) return '(empty)'
    return all.slice(0, 30).join(', ') + (all.length > 30 ? `, ... (${all.length} in all)` : '')
  } catch {
    return undefined
  }
}

/** Edit distance of two short strings. */
function distance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]
    prev[0] = i
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1))
      diag = up
    }
  }
  return prev[b.length]
}

const stem = (p: string): string => (p.split('/').pop() ?? p).replace(/\.[^.]*$/, '').toLowerCase()

/**
 * Existing paths closest to a missing one: candidates from the retrieval index (whose path
 * signals match file names and stems), ordered by how alike the names and paths are.
 */
export async function closestPaths(engine: ContextEngine, root: string, rel: string, n = 5): Promise<string[]> {
  let snippets: ContextSnippet[]
  try {
    const words = rel.replace(/[^A-Za-z0-9]+/g, ' ').trim()
    snippets = await engine.retrieve({
      prompt: `${rel} ${words}`,
      spaceId: 'mcp',
      sessionId: 'paths',
      rootPath: root,
      providerId: 'mcp',
      limit: 40,
    })
  } catch {
    return []
  }
  const want = rel.toLowerCase()
  const wantStem = stem(rel)
  const seen = new Set<string>()
  const scored: Array<[number, string]> = []
  for (const s of snippets) {
    if (seen.has(s.path)) continue
    seen.add(s.path)
    const p = s.path.toLowerCase()
    const name = distance(stem(p), wantStem)
    const whole = distance(p, want)
    scored.push([name * 4 + Math.min(whole, 40), s.path])
  }
  scored.sort((a, b) => a[0] - b[0] || a[1].localeCompare(b[1]))
  return scored.slice(0, n).map(([, p]) => p)
}
