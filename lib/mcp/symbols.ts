// Symbol lookups for the MCP tools, from the addon's SymbolIndex and retrieval index.
//
// A repository of up to FULL_INDEX_FILES files gets a whole-repository SymbolIndex (built on
// the first symbol call, refreshed in the background once it is a minute old), so wildcard
// patterns see every definition. A larger one (the Linux kernel) would take minutes to parse
// whole, so its lookups parse only the files the retrieval index ranks first for the name.
import { type ContextEngine, SymbolIndex, type SymbolMatch, type SymbolSearchQuery } from '../index.js'
import { readWhole } from './workspace.js'

export const FULL_INDEX_FILES = 15_000
/** Files parsed for a lookup in a repository too large to index whole. */
const RANKED_FILES = 40
const REFRESH_MS = 60_000

export interface SymbolLookup {
  results: SymbolMatch[]
  totalMatches: number
  /** 'repository': every file was searched; 'ranked': the files ranked first for the name. */
  scope: 'repository' | 'ranked'
  filesSearched: number
}

interface Whole {
  index: SymbolIndex
  builtAt: number
  files: number
  refreshing?: Promise<void>
}

export class Symbols {
  private readonly whole = new Map<string, Promise<Whole>>()

  /** The words of a name pattern (`zsl*Insert` -> `zsl Insert`), for ranking files. */
  static words(pattern: string): string {
    return pattern.replace(/[*?]+/g, ' ').replace(/\s+/g, ' ').trim()
  }

  async find(
    engine: ContextEngine,
    root: string,
    query: SymbolSearchQuery,
    signal?: AbortSignal,
  ): Promise<SymbolLookup> {
    const status = await engine.prepareIndex(root, { signal })
    if (status.files <= FULL_INDEX_FILES) {
      const w = await this.wholeIndex(root)
      const r = await w.index.search({ ...query, repos: undefined })
      return { results: r.results, totalMatches: r.totalMatches, scope: 'repository', filesSearched: w.files }
    }
    const words = Symbols.words(query.name)
    if (!words) return { results: [], totalMatches: 0, scope: 'ranked', filesSearched: 0 }
    const files = await rankedFiles(engine, root, words, RANKED_FILES, signal)
    const index = new SymbolIndex()
    const inputs: Array<{ path: string; content: string }> = []
    for (const path of files) {
      const content = await readWhole(engine, root, path, false)
      if (content !== undefined) inputs.push({ path, content })
    }
    if (inputs.length) await index.indexFiles('ranked', inputs)
    const r = inputs.length ? await index.search(query) : { results: [], totalMatches: 0 }
    return { results: r.results, totalMatches: r.totalMatches, scope: 'ranked', filesSearched: inputs.length }
  }

  /** The definitions known at `path` (for marking definitions among references), if indexed whole. */
  async definitionsIn(root: string, name: string): Promise<SymbolMatch[] | undefined> {
    const w = this.whole.get(root)
    if (!w) return undefined
    const r = await (await w).index.search({ name, limit: 1000 })
    return r.results
  }

  private wholeIndex(root: string): Promise<Whole> {
    let p = this.whole.get(root)
    if (!p) {
      p = (async () => {
        const index = new SymbolIndex()
        const n = await index.indexRoot('root', root)
        return { index, builtAt: Date.now(), files: n.files }
      })()
      p.catch(() => this.whole.delete(root))
      this.whole.set(root, p)
      return p
    }
    return p.then((w) => {
      if (Date.now() - w.builtAt > REFRESH_MS && !w.refreshing) {
        // Serve the current index; replace it when the new one is ready.
        w.refreshing = w.index
          .indexRoot('root', root)
          .then((n) => {
            w.builtAt = Date.now()
            w.files = n.files
          })
          .catch(() => {})
          .finally(() => {
            w.refreshing = undefined
          })
      }
      return w
    })
  }
}

/** Distinct paths of the files retrieval ranks first for `prompt`, best first. */
export async function rankedFiles(
  engine: ContextEngine,
  root: string,
  prompt: string,
  n: number,
  signal?: AbortSignal,
): Promise<string[]> {
  const snippets = await engine.retrieve(
    { prompt, spaceId: 'mcp', sessionId: 'symbols', rootPath: root, providerId: 'mcp', limit: Math.min(100, n) },
    { signal },
  )
  const out: string[] = []
  for (const s of snippets) if (!out.includes(s.path)) out.push(s.path)
  return out.slice(0, n)
}
