// The MCP tools: name, description (written for a model: when to use it, what it returns), the
// zod schemas of their arguments and structured results, and typed handlers over the addon.
//
// Every tool that returns code takes `maxTokens` (o200k_base, default 8000, at most 25000) and
// stops at it, saying how to continue. The code is in the text content only; the structured
// content carries the places (paths, lines, offsets), never a second copy of the code.
import { execFile } from 'node:child_process'
import { z } from 'zod'
import type { ContextEngine, ContextSnippet, SymbolMatch } from '../index.js'
import * as addon from '../index.js'
import { DEFAULT_MAX_TOKENS, invalid, lineArg, maxTokensArg, pathArg, rootArg, ToolError } from './args.js'
import { clipLine, fence, largestFitting, numbered, splitLines, tokens } from './budget.js'
import { type Folder, folderLine, folderTree } from './map.js'
import { rankedFiles, type SymbolLookup, Symbols } from './symbols.js'
import { readError, readLines, readWhole, relativePath, type Workspace } from './workspace.js'

export interface ToolContext {
  ws: Workspace
  engine: ContextEngine
  sessionId: string
  signal: AbortSignal
  symbols: Symbols
  /** Reports indexing progress of `root` (or of several, together) to the client while a call waits for it; returns the stop function. */
  watchIndex(root: string | string[]): () => void
}

export interface ToolOutput {
  text: string
  structured: Record<string, unknown>
}

export interface Tool<S extends z.ZodType = z.ZodType> {
  name: string
  title: string
  description: string
  input: S
  output: z.ZodType
  openWorld?: boolean
  handler(args: z.output<S>, ctx: ToolContext): Promise<ToolOutput>
}

const tool = <S extends z.ZodType>(t: Tool<S>): Tool => t as unknown as Tool

/** The registry's languages, as the descriptions name them. */
function languageNames(): string {
  try {
    return addon
      .languages()
      .map((l) => l.name)
      .join(', ')
  } catch {
    return 'every language of the registry'
  }
}

/** Tokens of a structured result, reserved out of the budget before the text is fitted. */
async function structuredCost(structured: unknown): Promise<number> {
  return (await tokens(JSON.stringify(structured))) + 20
}

const MORE_TOKENS = 'or raise maxTokens (at most 25000)'

// ---------------------------------------------------------------------------------------------
// search_code

const snippetPlace = z.object({
  root: z
    .string()
    .optional()
    .describe(
      'The root the path is relative to; only when the search covered several roots (pass it as root to the other tools).',
    ),
  path: z.string(),
  startLine: z.int(),
  endLine: z.int(),
  score: z.number(),
  language: z.string().optional(),
  cut: z.boolean().optional().describe('True when the snippet was shortened to fit the budget.'),
})

function renderSnippet(s: ContextSnippet, lines: string[] | undefined, cutTo?: number, label?: string): string {
  const start = s.startLine ?? 1
  const end = s.endLine ?? start
  const body = lines === undefined ? s.content : lines.join('\n')
  const where = label === undefined ? '' : `[${label}] `
  const head = `${where}${s.path}:${start}-${cutTo === undefined ? end : start + cutTo - 1}  score ${s.score.toFixed(3)}`
  const note =
    cutTo === undefined
      ? ''
      : `\n[... snippet cut at the token budget: lines ${start + cutTo}-${end} not shown; read them with file_context]`
  return `${head}\n${fence(body.split('\n').map(clipLine).join('\n'), s.language)}${note}`
}

/** Short labels of several roots: each one's folder name, or its full path when two share a name. */
function rootLabels(roots: string[]): Map<string, string> {
  const name = (r: string) => r.split(/[\\/]/).filter(Boolean).pop() ?? r
  const count = new Map<string, number>()
  for (const r of roots) count.set(name(r), (count.get(name(r)) ?? 0) + 1)
  return new Map(roots.map((r) => [r, count.get(name(r)) === 1 ? name(r) : r]))
}

const searchCode = tool({
  name: 'search_code',
  title: 'Search code',
  description:
    'Find the code in a local repository that is relevant to a question, task, identifier, error message or stack trace. ' +
    'Use it first when you need to locate where something is implemented, called or configured, before reading whole files; ' +
    'for a named function, class or type, find_symbol answers with its definition. ' +
    'Returns ranked snippets (`path:start-end`, score, the code with secrets redacted), best first, within maxTokens; ' +
    'when more results exist it says the offset to ask for next. ' +
    'The first call on a large repository may wait for indexing (progress is reported); later calls, and later sessions, are fast and see file changes. ' +
    'Without root, it searches every root of the workspace at once (one ranking; with several roots each result names its root). ' +
    'Follow up with expand_chunk to widen a snippet or file_context to read a file.',
  input: z
    .object({
      query: z
        .string()
        .min(1)
        .max(262144)
        .describe('What to look for: natural language, identifiers, paths, error messages or a stack trace.'),
      limit: z.int().min(1).max(100).default(10).describe('Snippets wanted (1-100). Default 10.'),
      offset: z
        .int()
        .min(0)
        .max(99)
        .default(0)
        .describe('Skip this many results first (for the next page: the nextOffset of the previous call). Default 0.'),
      maxTokens: maxTokensArg(),
      root: rootArg.optional(),
    })
    .strict(),
  output: z.object({
    results: z.array(snippetPlace),
    offset: z.int(),
    nextOffset: z.int().optional().describe('Pass as offset to get the next results; absent when there are no more.'),
    truncated: z.boolean().describe('True when the token budget stopped the results.'),
  }),
  async handler(args, ctx) {
    const roots = args.root === undefined ? await ctx.ws.searchRoots() : [await ctx.ws.resolveRoot(args.root)]
    const want = Math.min(100, args.offset + args.limit + 1)
    const stop = ctx.watchIndex(roots)
    const common = {
      prompt: args.query,
      spaceId: 'mcp',
      sessionId: ctx.sessionId,
      providerId: 'mcp',
      limit: want,
    } as const
    let all: ContextSnippet[]
    try {
      all = await ctx.engine.retrieve(
        roots.length === 1 ? { ...common, rootPath: roots[0] } : { ...common, rootPaths: roots },
        { signal: ctx.signal },
      )
    } finally {
      stop()
    }
    // Several roots: each result is labelled with its root's folder name (its full path when
    // two roots share a name), and a legend line maps the labels to the roots.
    const labels = roots.length > 1 ? rootLabels(roots) : undefined
    const labelOf = (s: ContextSnippet) => labels?.get(s.root)
    const legend = labels
      ? `Searched ${roots.length} roots: ${[...labels].map(([r, l]) => (l === r ? r : `[${l}] = ${r}`)).join('; ')}`
      : undefined
    const page = all.slice(args.offset, args.offset + args.limit)
    const moreAfterPage = all.length > args.offset + args.limit
    const place = (s: ContextSnippet, cut?: number) => {
      const r: z.infer<typeof snippetPlace> = {
        ...(labels ? { root: s.root } : {}),
        path: s.path,
        startLine: s.startLine ?? 1,
        endLine: cut === undefined ? (s.endLine ?? s.startLine ?? 1) : (s.startLine ?? 1) + cut - 1,
        score: s.score,
      }
      if (s.language) r.language = s.language
      if (cut !== undefined) r.cut = true
      return r
    }
    const reserve = await structuredCost({ results: [], offset: args.offset, nextOffset: 100, truncated: true })
    let budget = args.maxTokens - reserve - 60 - (legend ? (await tokens(legend)) + 2 : 0)
    const parts: string[] = []
    const results: Array<z.infer<typeof snippetPlace>> = []
    let truncated = false
    for (const s of page) {
      const text = renderSnippet(s, undefined, undefined, labelOf(s))
      // Each result costs its text and its place in the structured content.
      const t = (await tokens(text)) + (await tokens(JSON.stringify(place(s, 1))))
      if (t + 2 <= budget) {
        parts.push(text)
        results.push(place(s))
        budget -= t + 2
        continue
      }
      truncated = true
      if (results.length === 0) {
        // Not even the first snippet fits: show its head.
        const lines = s.content.split('\n')
        const fit = await largestFitting(lines.length, budget - (await tokens(JSON.stringify(place(s, 1)))), (k) =>
          renderSnippet(s, lines.slice(0, k), k, labelOf(s)),
        )
        if (fit.k > 0) {
          parts.push(renderSnippet(s, lines.slice(0, fit.k), fit.k, labelOf(s)))
          results.push(place(s, fit.k))
        }
      }
      break
    }
    const shown = results.length
    const nextOffset = shown < page.length || moreAfterPage ? args.offset + Math.max(shown, 1) : undefined
    let text = parts.length
      ? parts.join('\n\n')
      : args.offset > 0 && page.length === 0
        ? 'No more results.'
        : 'No matching code.'
    if (legend && parts.length) text = `${legend}\n\n${text}`
    if (truncated && nextOffset !== undefined)
      text += `\n\n[stopped at the token budget (${args.maxTokens}): call search_code again with offset ${nextOffset} for the next results, ${MORE_TOKENS}]`
    else if (nextOffset !== undefined && nextOffset < 100)
      text += `\n\n[more results: call search_code again with offset ${nextOffset}]`
    const structured: Record<string, unknown> = { results, offset: args.offset, truncated }
    if (nextOffset !== undefined && nextOffset < 100) structured.nextOffset = nextOffset
    return { text, structured }
  },
})

// ---------------------------------------------------------------------------------------------
// file_context and expand_chunk

const MAX_FILE_LINES = 2000
/** Lines a structure-mode expansion returns at most (a longer block is cut around the snippet). */
const MAX_BLOCK_LINES = 400

interface Fitted {
  text: string
  shown: number
}

/** `header` and numbered `lines` (the first being line `first`) cut to `budget` tokens. */
async function fitNumbered(header: string, lines: string[], first: number, budget: number): Promise<Fitted> {
  const render = (k: number) => `${header}\n${numbered(lines.slice(0, k), first)}`
  const fit = await largestFitting(lines.length, budget, render)
  return { text: render(fit.k), shown: fit.k }
}

const fileContext = tool({
  name: 'file_context',
  title: 'Read a file',
  description:
    'Read a file of a local repository, or a line range of it, as numbered lines with secrets redacted. ' +
    `Use it when you know which file you need (from search_code, find_symbol, an error or the user). At most ${MAX_FILE_LINES} lines and maxTokens tokens per call: ` +
    "the result says the startLine to read on from. Errors say what exists instead (the closest paths, a directory's entries, the file's length).",
  input: z
    .object({
      path: pathArg,
      startLine: lineArg.optional().describe('First line to read, 1-based. Default 1.'),
      endLine: lineArg
        .optional()
        .describe(
          `Last line to read, inclusive. Default: ${MAX_FILE_LINES - 1} lines after startLine (clamped to the file).`,
        ),
      maxTokens: maxTokensArg(),
      root: rootArg.optional(),
    })
    .strict(),
  output: z.object({
    path: z.string(),
    startLine: z.int(),
    endLine: z.int(),
    moreAfter: z.boolean(),
    nextStartLine: z.int().optional().describe('Where the next call should start, when more lines follow.'),
    truncated: z.boolean().describe('True when the token budget stopped the lines before endLine.'),
  }),
  async handler(args, ctx) {
    const start = args.startLine ?? 1
    const askedEnd = args.endLine ?? start + MAX_FILE_LINES - 1
    if (start > askedEnd) throw invalid('startLine must be <= endLine')
    const end = Math.min(askedEnd, start + MAX_FILE_LINES - 1)
    const root = await ctx.ws.resolveRoot(args.root)
    const rel = relativePath(root, args.path)
    const r = await readLines(ctx.engine, root, rel, start, end, ctx.signal)
    if (!r.expanded) throw await readError(ctx.engine, root, rel, r, { startLine: start, endLine: askedEnd })
    const all = splitLines(r.content)
    const lines = all.slice(start - r.startLine, start - r.startLine + (end - start + 1))
    if (lines.length === 0) {
      const asked = args.endLine === undefined ? `line ${start} is` : `lines ${start}-${askedEnd} are`
      throw invalid(`${asked} outside the file: ${rel} has ${r.endLine} line${r.endLine === 1 ? '' : 's'}`)
    }
    const fileMore = r.endLine > start + lines.length - 1
    const reserve = await structuredCost({
      path: rel,
      startLine: start,
      endLine: end,
      moreAfter: true,
      nextStartLine: end,
      truncated: true,
    })
    const budget = args.maxTokens - reserve - 40
    const fit = await fitNumbered(`${rel}:${start}-${start + lines.length - 1}`, lines, start, budget)
    const last = start + fit.shown - 1
    const truncated = fit.shown < lines.length
    const moreAfter = truncated || fileMore
    let text = fit.text
    if (truncated) text = text.replace(/^[^\n]*/, `${rel}:${start}-${last}`)
    const structured: Record<string, unknown> = { path: rel, startLine: start, endLine: last, moreAfter, truncated }
    if (moreAfter) {
      structured.nextStartLine = last + 1
      const why = truncated
        ? `stopped at the token budget (${args.maxTokens})`
        : last >= askedEnd
          ? 'more lines follow'
          : `at most ${MAX_FILE_LINES} lines per call`
      text += `\n[... ${why}: call file_context again with startLine ${last + 1}${truncated ? `, ${MORE_TOKENS}` : ''} ...]`
    }
    return { text, structured }
  },
})

const expandChunk = tool({
  name: 'expand_chunk',
  title: 'Expand a snippet',
  description:
    'Widen a snippet (for example one from search_code) to see the code around it: `contextLines` lines on each side, ' +
    `or with \`structure: true\` the whole enclosing function, method or class (${languageNames()}). ` +
    `Use it when a snippet is cut off or you need the surrounding definition. Returns the widened lines (secrets redacted) and their range, within maxTokens; ` +
    `a block longer than ${MAX_BLOCK_LINES} lines, or one over the budget, is cut and the result says so and where to read on.`,
  input: z
    .object({
      path: pathArg,
      startLine: lineArg.describe('First line of the snippet, 1-based.'),
      endLine: lineArg.describe('Last line of the snippet, inclusive.'),
      contextLines: z.int().min(1).max(1000).default(10).describe('Lines added on each side (1-1000). Default 10.'),
      structure: z
        .boolean()
        .default(false)
        .describe('Expand to the enclosing function, method or class instead. Default false.'),
      maxTokens: maxTokensArg(),
      root: rootArg.optional(),
    })
    .strict(),
  output: z.object({
    path: z.string(),
    startLine: z.int(),
    endLine: z.int(),
    mode: z.enum(['lines', 'structure']),
    blockKind: z.string().optional(),
    clipped: z
      .boolean()
      .describe(
        `True when the enclosing block is longer than ${MAX_BLOCK_LINES} lines and was cut around the snippet.`,
      ),
    truncated: z.boolean().describe('True when the token budget stopped the lines.'),
    nextStartLine: z.int().optional().describe('Where file_context should start to read on, when the result was cut.'),
  }),
  async handler(args, ctx) {
    if (args.startLine > args.endLine) throw invalid('startLine must be <= endLine')
    const root = await ctx.ws.resolveRoot(args.root)
    const rel = relativePath(root, args.path)
    const r = await ctx.engine.expandChunkDetailed(
      root,
      { content: '', filePath: rel, startLine: args.startLine, endLine: args.endLine },
      args.contextLines,
      { mode: args.structure ? 'structure' : 'lines', maxLines: MAX_BLOCK_LINES, signal: ctx.signal },
    )
    if (!r.expanded) throw await readError(ctx.engine, root, rel, r, args)
    const lines = splitLines(r.content)
    const what = r.blockKind
      ? ` (${r.blockKind}${r.clipped ? `, cut to ${MAX_BLOCK_LINES} lines around the snippet` : ''})`
      : ''
    const reserve = await structuredCost({
      path: rel,
      startLine: r.startLine,
      endLine: r.endLine,
      mode: r.mode,
      blockKind: r.blockKind,
      clipped: true,
      truncated: true,
      nextStartLine: r.endLine,
    })
    const fit = await fitNumbered(
      `${rel}:${r.startLine}-${r.endLine}${what}`,
      lines,
      r.startLine,
      args.maxTokens - reserve - 60,
    )
    const last = r.startLine + fit.shown - 1
    const truncated = fit.shown < lines.length
    let text = truncated ? fit.text.replace(/^[^\n]*/, `${rel}:${r.startLine}-${last}${what}`) : fit.text
    const notes: string[] = []
    if (args.structure && r.mode === 'lines') {
      notes.push(
        r.fallback === 'unsupported_language'
          ? 'no structure support for this file type: showing lines around the snippet'
          : 'no function, method or class encloses the snippet: showing lines around it',
      )
    }
    if (r.clipped)
      notes.push(
        `the enclosing ${r.blockKind ?? 'block'} is longer than ${MAX_BLOCK_LINES} lines: only the lines around the snippet are shown; read the rest with file_context`,
      )
    if (truncated)
      notes.push(
        `stopped at the token budget (${args.maxTokens}): call file_context with startLine ${last + 1} to read on, ${MORE_TOKENS}`,
      )
    if (notes.length) text += `\n[${notes.join('; ')}]`
    const structured: Record<string, unknown> = {
      path: rel,
      startLine: r.startLine,
      endLine: last,
      mode: r.mode,
      clipped: r.clipped,
      truncated,
    }
    if (r.blockKind) structured.blockKind = r.blockKind
    if (truncated || r.clipped) structured.nextStartLine = last + 1
    return { text, structured }
  },
})

// ---------------------------------------------------------------------------------------------
// Symbols and the repository map

const KINDS = ['function', 'class', 'method', 'interface', 'type', 'variable', 'constant', 'module'] as const
/** Lines of one definition's code shown at most; the rest is a file_context call away. */
const MAX_DEFINITION_LINES = 150

const symbolPlace = z.object({
  name: z.string(),
  kind: z.string(),
  path: z.string(),
  line: z.int(),
  endLine: z.int(),
  scope: z.string().optional(),
  language: z.string(),
  codeShown: z.boolean().describe('Whether the text shows its code.'),
})

function symbolHead(m: SymbolMatch): string {
  return `${m.kind} ${m.scope ? `${m.scope}.` : ''}${m.name}  ${m.file}:${m.line}-${m.endLine}`
}

const findSymbol = tool({
  name: 'find_symbol',
  title: 'Find a symbol definition',
  description:
    'Find where functions, classes, methods, types, constants or modules are defined, by name: exact (`zslInsert`) or with wildcards ' +
    '(`*` any run of characters, `?` one character: `get*Value`, `Http?andler`), case-insensitive, optionally only of one kind or language ' +
    `(${languageNames()}). Use it when the question names a symbol: it answers with the definition itself, not a neighbour. ` +
    'Returns each match as `kind name path:line-endLine` with the code of the definition (secrets redacted, long ones cut), exact names first, within maxTokens.',
  input: z
    .object({
      name: z.string().min(1).max(512).describe('The name, or a pattern with * and ?.'),
      kind: z.enum(KINDS).optional().describe('Only symbols of this kind.'),
      language: z
        .string()
        .min(1)
        .max(64)
        .optional()
        .describe('Only symbols of this language (typescript, python, go, c, cpp, rust...).'),
      includeCode: z.boolean().default(true).describe('Show the code of each definition. Default true.'),
      limit: z.int().min(1).max(100).default(10).describe('Matches wanted (1-100). Default 10.'),
      maxTokens: maxTokensArg(),
      root: rootArg.optional(),
    })
    .strict(),
  output: z.object({
    results: z.array(symbolPlace),
    totalMatches: z.int(),
    scope: z
      .enum(['repository', 'ranked'])
      .describe(
        "'repository': every file was searched; 'ranked': the files most relevant to the name (a very large repository).",
      ),
    truncated: z.boolean(),
  }),
  async handler(args, ctx) {
    const root = await ctx.ws.resolveRoot(args.root)
    const stop = ctx.watchIndex(root)
    let found: SymbolLookup
    try {
      found = await ctx.symbols.find(
        ctx.engine,
        root,
        { name: args.name, kind: args.kind, language: args.language, limit: args.limit },
        ctx.signal,
      )
    } catch (err) {
      if ((err as { code?: string }).code === 'invalid_request') throw invalid((err as Error).message)
      throw err
    } finally {
      stop()
    }
    const places = found.results.map((m) => {
      const p: z.infer<typeof symbolPlace> = {
        name: m.name,
        kind: m.kind,
        path: m.file,
        line: m.line,
        endLine: m.endLine,
        language: m.language,
        codeShown: false,
      }
      if (m.scope) p.scope = m.scope
      return p
    })
    const reserve = await structuredCost({
      results: [],
      totalMatches: found.totalMatches,
      scope: found.scope,
      truncated: true,
    })
    let budget = args.maxTokens - reserve - 80
    const parts: string[] = []
    let truncated = false
    for (let i = 0; i < found.results.length; i++) {
      const m = found.results[i]
      const head = symbolHead(m)
      budget -= (await tokens(JSON.stringify(places[i]))) + 1
      if (!args.includeCode || truncated) {
        const t = await tokens(head)
        if (t + 1 > budget) {
          truncated = true
          break
        }
        parts.push(head + (m.signature && !args.includeCode ? `\n  ${m.signature}` : ''))
        budget -= t + 1
        continue
      }
      // A C or C++ function whose name starts its line has its return type on the line above.
      const first = m.column === 0 && m.line > 1 && (m.language === 'c' || m.language === 'cpp') ? m.line - 1 : m.line
      const end = Math.min(m.endLine, first + MAX_DEFINITION_LINES - 1)
      const r = await readLines(ctx.engine, root, m.file, first, end, ctx.signal)
      if (!r.expanded) {
        parts.push(head)
        continue
      }
      let lines = splitLines(r.content).slice(first - r.startLine, first - r.startLine + (end - first + 1))
      let from = first
      if (first < m.line && (lines[0] ?? '').trim() === '') {
        lines = lines.slice(1)
        from = m.line
      }
      const fit = await fitNumbered(head, lines, from, budget - 30)
      if (fit.shown === 0) {
        truncated = true
        parts.push(head)
        budget -= await tokens(head)
        continue
      }
      let text = fit.text
      if (fit.shown < lines.length || end < m.endLine) {
        text += `\n[... definition cut: read on with file_context path '${m.file}' startLine ${from + fit.shown}]`
        if (fit.shown < lines.length) truncated = true
      }
      places[i].codeShown = true
      parts.push(text)
      budget -= (await tokens(text)) + 2
    }
    let text = parts.length
      ? parts.join('\n\n')
      : `No symbol named ${JSON.stringify(args.name)}${args.kind ? ` of kind ${args.kind}` : ''}${found.scope === 'ranked' ? ` in the ${found.filesSearched} files most relevant to it` : ''}. Try a wildcard (*${Symbols.words(args.name)}*) or search_code.`
    if (found.totalMatches > found.results.length)
      text += `\n[${found.totalMatches} matches in all: narrow with kind or language, or raise limit]`
    if (truncated)
      text += `\n[stopped at the token budget (${args.maxTokens}): ${MORE_TOKENS}, or set includeCode false for the list]`
    if (found.scope === 'ranked')
      text += `\n[a large repository: searched the ${found.filesSearched} files most relevant to the name]`
    return { text, structured: { results: places, totalMatches: found.totalMatches, scope: found.scope, truncated } }
  },
})

const referencePlace = z.object({ path: z.string(), line: z.int(), definition: z.boolean().optional() })

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

const findReferences = tool({
  name: 'find_references',
  title: 'Find where a name is used',
  description:
    'Find the lines where an identifier (function, type, variable, macro, constant) is used, whole-word and case-sensitive, ' +
    'in the files most relevant to it first (ranked by the retrieval index), with definitions marked. ' +
    'Use it to see callers and usages before changing a symbol, or to follow a value through the code. ' +
    'Returns `path:line: text` lines within limit and maxTokens; when there are more it says the offset to ask for next.',
  input: z
    .object({
      name: z.string().min(1).max(256).describe('The identifier, as written in the code.'),
      limit: z.int().min(1).max(500).default(50).describe('Lines wanted (1-500). Default 50.'),
      offset: z
        .int()
        .min(0)
        .max(100000)
        .default(0)
        .describe('Skip this many lines first (the nextOffset of the previous call). Default 0.'),
      maxTokens: maxTokensArg(),
      root: rootArg.optional(),
    })
    .strict(),
  output: z.object({
    references: z.array(referencePlace),
    files: z.int().describe('Files in which the name was found.'),
    filesSearched: z.int(),
    nextOffset: z.int().optional(),
    truncated: z.boolean(),
  }),
  async handler(args, ctx) {
    const root = await ctx.ws.resolveRoot(args.root)
    const stop = ctx.watchIndex(root)
    let files: string[]
    try {
      files = await rankedFiles(ctx.engine, root, args.name, 100, ctx.signal)
    } finally {
      stop()
    }
    const word = new RegExp(`(?<![A-Za-z0-9_$])${escapeRegExp(args.name)}(?![A-Za-z0-9_$])`)
    const defs = await ctx.symbols.definitionsIn(root, args.name).catch(() => undefined)
    const isDef = (path: string, line: number) =>
      defs?.some((d) => d.file === path && d.line === line && d.name === args.name)
    const hits: Array<{ path: string; line: number; text: string; definition?: boolean }> = []
    let withHits = 0
    const need = args.offset + args.limit + 1
    for (const f of files) {
      if (hits.length >= need) break
      const content = await readWhole(ctx.engine, root, f)
      if (content === undefined) continue
      const lines = content.split('\n')
      let any = false
      for (let i = 0; i < lines.length; i++) {
        if (!word.test(lines[i])) continue
        any = true
        const h: (typeof hits)[number] = { path: f, line: i + 1, text: clipLine(lines[i].trim()).slice(0, 300) }
        if (isDef(f, i + 1)) h.definition = true
        hits.push(h)
      }
      if (any) withHits++
    }
    const page = hits.slice(args.offset, args.offset + args.limit)
    const render = (k: number) =>
      page
        .slice(0, k)
        .map((h) => `${h.path}:${h.line}:${h.definition ? ' [definition]' : ''} ${h.text}`)
        .join('\n')
    const places = (k: number) =>
      page.slice(0, k).map(({ path, line, definition }) => (definition ? { path, line, definition } : { path, line }))
    const reserve = await structuredCost({
      references: [],
      files: withHits,
      filesSearched: files.length,
      nextOffset: 1,
      truncated: true,
    })
    // The text and the structured places are fitted together.
    const fit = await largestFitting(
      page.length,
      args.maxTokens - reserve - 80,
      (k) => `${render(k)}\n${JSON.stringify(places(k))}`,
    )
    const shown = page.slice(0, fit.k)
    const truncated = fit.k < page.length
    const more = truncated || hits.length > args.offset + args.limit
    const nextOffset = more ? args.offset + fit.k : undefined
    let text = shown.length
      ? render(fit.k)
      : `No use of ${JSON.stringify(args.name)} in the ${files.length} files most relevant to it.`
    if (nextOffset !== undefined)
      text += `\n[${truncated ? `stopped at the token budget (${args.maxTokens})` : 'more lines'}: call find_references again with offset ${nextOffset}]`
    const structured: Record<string, unknown> = {
      references: places(fit.k),
      files: withHits,
      filesSearched: files.length,
      truncated,
    }
    if (nextOffset !== undefined) structured.nextOffset = nextOffset
    return { text, structured }
  },
})

const MAP_TTL_MS = 60_000
const mapCache = new Map<string, { at: number; data: Promise<{ stats: addon.RepoStats; tree: Folder }> }>()

/** The statistics and folder tree of `dir`, kept a minute (counting lines reads every file). */
function mapData(dir: string): Promise<{ stats: addon.RepoStats; tree: Folder }> {
  const hit = mapCache.get(dir)
  if (hit && Date.now() - hit.at < MAP_TTL_MS) return hit.data
  const data = addon.repoStats({ root: dir }).then((stats) => ({ stats, tree: folderTree(dir) }))
  data.catch(() => mapCache.delete(dir))
  if (mapCache.size > 16) mapCache.clear()
  mapCache.set(dir, { at: Date.now(), data })
  return data
}

/** A folder with more files than this gets the folder table only; narrower paths get the file tree too. */
const TREE_FILES = 3000
/** Most central files `repo_map` asks the engine for (the budget usually shows fewer). */
const CENTRAL_FILES = 40
/** Definitions shown per central file at most. */
const DEFS_PER_FILE = 8

interface CentralFile {
  path: string
  role: string
  centrality: number
  /** `kind name:line` of its top-level definitions, in line order. */
  defs: string[]
  /** Top-level definitions not shown. */
  more: number
}

/**
 * The most central files under `rel` (the ones the rest of the tree uses most, from the engine's
 * index) with their top-level definitions, and the folders' roles by path.
 */
async function centralFiles(
  ctx: ToolContext,
  root: string,
  rel: string,
): Promise<{ files: CentralFile[]; total: number; roles: Map<string, string> }> {
  const stop = ctx.watchIndex(root)
  let ranks: addon.FileRanks
  try {
    ranks = await ctx.engine.fileRanks(root, {
      limit: CENTRAL_FILES,
      path: rel === '.' ? undefined : rel,
      signal: ctx.signal,
    })
  } finally {
    stop()
  }
  const roles = new Map(ranks.folders.map((f) => [f.path, f.role]))
  const ranked = ranks.files.filter((f) => f.centrality > 0)
  // Each file is its own repository of a throwaway SymbolIndex (`c<i>x` names no other), so
  // that every file's definitions come back whole however many the others have.
  const symbols = new addon.SymbolIndex()
  const files: CentralFile[] = []
  for (let i = 0; i < ranked.length; i++) {
    const f = ranked[i]
    const out: CentralFile = { path: f.path, role: f.role, centrality: f.centrality, defs: [], more: 0 }
    files.push(out)
    const content = await readWhole(ctx.engine, root, f.path)
    if (content === undefined) continue
    const repo = `c${i}x`
    const n = await symbols.indexFiles(repo, [{ path: f.path, content }], { signal: ctx.signal })
    if (!n.symbols) continue
    const found = await symbols.search({ name: '*', repos: [repo], limit: 1000 })
    const top = found.results.filter((m) => !m.scope).sort((a, b) => a.line - b.line || a.column - b.column)
    out.defs = top.slice(0, DEFS_PER_FILE).map((m) => `${m.kind} ${m.name}:${m.line}`)
    out.more = top.length - out.defs.length
  }
  return { files, total: ranks.total, roles }
}

/** One line of the central files: `src/core.ts  [test] — function a:3, class B:9 (+4 more)`. */
function centralLine(f: CentralFile): string {
  const role = f.role === 'source' ? '' : `  [${f.role}]`
  const defs = f.defs.length ? ` — ${f.defs.join(', ')}${f.more ? ` (+${f.more} more)` : ''}` : ''
  return `  ${f.path}  ${f.centrality.toFixed(2)}${role}${defs}`
}

const repoMap = tool({
  name: 'repo_map',
  title: 'Map a repository or folder',
  description:
    'An overview of a local repository or one of its folders, to find your way: its languages (files, lines); its folders two levels deep, ' +
    'biggest first, with their file counts, main language and role (source, test, docs, example, config, vendored..., from the index); ' +
    'its most central files (the ones whose definitions the rest of the code uses most, most central first, with their centrality from 0 to 1) ' +
    `with their top-level definitions (\`kind name:line\`); and, for a folder of up to ${TREE_FILES} files, the file tree with what each file ` +
    "defines; all within maxTokens. Use it at the start of work on an unfamiliar repository, or to list a directory; narrow with `path` for a folder's own central files and definitions.",
  input: z
    .object({
      path: z.string().min(1).max(4096).optional().describe('A folder relative to the root. Default: the whole root.'),
      maxFiles: z
        .int()
        .min(1)
        .max(2000)
        .default(300)
        .describe('Files of the tree listed at most (1-2000). Default 300.'),
      maxTokens: maxTokensArg(4000),
      root: rootArg.optional(),
    })
    .strict(),
  output: z.object({
    path: z.string(),
    files: z.int().describe("Files under the folder (of the registry's languages and others)."),
    lines: z.int(),
    languages: z.record(z.string(), z.int()).describe('Files per language.'),
    folders: z.int().describe('Folders listed in the text.'),
    central: z.array(z.string()).describe('The central files listed in the text, most central first.'),
    truncated: z.boolean(),
  }),
  async handler(args, ctx) {
    const root = await ctx.ws.resolveRoot(args.root)
    let dir = root
    let rel = '.'
    if (args.path !== undefined) {
      rel = relativePath(root, args.path)
      if (rel !== '.') {
        dir = await ctx.ws.resolveRoot(`${root}/${rel}`).catch((err: unknown) => {
          if (err instanceof ToolError && /not an existing directory/.test(err.message))
            throw invalid(`${rel} is not a folder of the root: pass a folder, or read a file with file_context`)
          throw err
        })
      }
    }
    const [{ stats, tree }, central] = await Promise.all([mapData(dir), centralFiles(ctx, root, rel)])
    const languages: Record<string, number> = {}
    for (const [k, v] of Object.entries(stats.languages).sort((a, b) => b[1].files - a[1].files)) languages[k] = v.files
    const langLine = Object.entries(stats.languages)
      .sort((a, b) => b[1].lines - a[1].lines)
      .slice(0, 12)
      .map(([k, v]) => `${k} ${v.files} files, ${v.lines} lines`)
      .join('; ')
    const header = `${rel === '.' ? 'repository' : rel}: ${stats.files} files, ${stats.lines} lines${langLine ? `\nlanguages: ${langLine}` : ''}`
    const structured = {
      path: rel,
      files: stats.files,
      lines: stats.lines,
      languages,
      folders: 0,
      central: central.files.map((f) => f.path),
      truncated: false,
    }
    // The structured result is reserved with every central path; it only shrinks.
    const reserve = await structuredCost(structured)
    let budget = args.maxTokens - reserve - (await tokens(header)) - 120
    const withTree = stats.files <= TREE_FILES

    // Folders, biggest first, each followed by its biggest subfolders, while the budget lasts.
    const prefix = (p: string) => (rel === '.' ? p : `${rel}/${p}`)
    const folderLines: string[] = []
    for (const f of tree.children) {
      folderLines.push(folderLine(f, '  ', central.roles.get(prefix(f.path))))
      for (const c of f.children.slice(0, 6)) folderLines.push(folderLine(c, '    ', central.roles.get(prefix(c.path))))
    }
    const fixPaths = (l: string) => l.replace(/^(\s*)(\S+\/)/, (_m, sp: string, p: string) => sp + prefix(p))
    const renderFolders = (k: number) =>
      k ? `folders (files, main language, role):\n${folderLines.slice(0, k).map(fixPaths).join('\n')}` : ''
    const fitFolders = await largestFitting(
      folderLines.length,
      Math.floor(budget * (withTree ? 0.3 : 0.45)),
      renderFolders,
    )
    structured.folders = fitFolders.k
    let truncated = fitFolders.k < folderLines.length
    const parts = [header]
    if (fitFolders.k) parts.push(renderFolders(fitFolders.k))
    budget -= fitFolders.tokens

    // The most central files with their definitions: what the rest of the code is built on.
    const renderCentral = (k: number) =>
      k
        ? `central files (most used by the rest of the code first; centrality, role, top-level definitions):\n${central.files
            .slice(0, k)
            .map(centralLine)
            .join('\n')}`
        : ''
    const fitCentral = await largestFitting(
      central.files.length,
      withTree ? Math.floor(budget * 0.5) : budget,
      renderCentral,
    )
    structured.central = central.files.slice(0, fitCentral.k).map((f) => f.path)
    if (fitCentral.k) parts.push(renderCentral(fitCentral.k))
    budget -= fitCentral.tokens
    const centralLeft = central.files.length - fitCentral.k
    if (centralLeft > 0) {
      truncated = true
      parts.push(
        `[${centralLeft} more central file${centralLeft === 1 ? '' : 's'} left out at the token budget: call repo_map with path set to a folder for its own central files, ${MORE_TOKENS}]`,
      )
    }

    if (withTree && budget > 200) {
      // dirContext's cut is in characters: start from about 3.2 characters a token, then
      // shrink until the exact count fits.
      let maxChars = Math.max(200, Math.floor(budget * 3.2))
      let files = ''
      for (let attempt = 0; attempt < 6; attempt++) {
        const src = await addon.dirContext(dir, { maxFiles: args.maxFiles, maxChars, signal: ctx.signal })
        files = src.content
        if (src.truncated) truncated = true
        const t = await tokens(files)
        if (t <= budget) break
        maxChars = Math.max(100, Math.floor((maxChars * budget) / t) - 50)
        truncated = true
      }
      parts.push(`files and their definitions:\n${files}`)
    } else if (!withTree) {
      parts.push(
        `[${stats.files} files: too many for a file tree; call repo_map with path set to one of the folders above for its files and definitions]`,
      )
    }
    structured.truncated = truncated
    let text = parts.join('\n\n')
    if (truncated)
      text += `\n[the map was cut at the token budget (${args.maxTokens}) or at maxFiles: call repo_map with path set to a folder for its detail (its own central files, their definitions, its file tree), ${MORE_TOKENS}]`
    return { text, structured }
  },
})

// ---------------------------------------------------------------------------------------------
// count_tokens, fit_to_budget

const ENCODING = z
  .enum(['o200k_base', 'cl100k_base'])
  .default('o200k_base')
  .describe("BPE encoding: 'o200k_base' (GPT-4o, o-series; default) or 'cl100k_base' (GPT-4, GPT-3.5).")

const countTokensTool = tool({
  name: 'count_tokens',
  title: 'Count tokens',
  description:
    'Count the exact BPE tokens of a text (o200k_base by default, or cl100k_base). Use it to check whether text fits a context budget before sending it on. Returns the count.',
  input: z
    .object({
      text: z
        .string()
        .max(8 * 1024 * 1024)
        .describe('The text to count (at most 8 Mi characters).'),
      encoding: ENCODING,
    })
    .strict(),
  output: z.object({ tokens: z.int(), encoding: z.string() }),
  async handler(args) {
    const n = await addon.countTokens(args.text, args.encoding)
    return { text: `${n} tokens (${args.encoding})`, structured: { tokens: n, encoding: args.encoding } }
  },
})

const fitToBudget = tool({
  name: 'fit_to_budget',
  title: 'Fit sections to a token budget',
  description:
    'Shorten named text sections so that together they fit a token budget (exact o200k_base count): unchanged when they fit, otherwise ' +
    'each is cut in proportion to its size, keeping its head and marking removed lines with `...`. Use it to pack several pieces of context ' +
    '(files, diffs, notes) into a fixed budget. Returns the sections under the same names and, when anything was cut, what was cut.',
  input: z
    .object({
      sections: z
        .record(z.string(), z.string())
        .refine((o) => Object.keys(o).length >= 1, { message: 'must have at least 1 entry' })
        .refine((o) => Object.keys(o).length <= 1000, { message: 'must have at most 1000 entries' })
        .describe('The sections by name, e.g. { "diff": "...", "tests": "..." }.'),
      budget: z.int().min(1).max(10_000_000).describe('Tokens the sections may use in total.'),
    })
    .strict(),
  output: z.object({
    sections: z.record(z.string(), z.string()),
    truncated: z.boolean(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  }),
  async handler(args) {
    if (Object.hasOwn(args.sections, '_metadata')) throw invalid('sections must not have a section named _metadata')
    const fitted = await addon.fitToBudget(args.sections, args.budget)
    const sections: Record<string, string> = {}
    for (const k of Object.keys(args.sections)) sections[k] = fitted[k]
    const m = fitted._metadata
    const parts = Object.entries(sections).map(([k, v]) => `## ${k}\n${v}`)
    if (m)
      parts.push(
        `[fitted to ${m.budget} tokens: ${m.tokens_before} -> ${m.tokens_after}; shortened: ${m.sections_affected.join(', ') || 'none'}]`,
      )
    // The fitted sections are the result a caller reuses: they stay in the structured content.
    const structured: Record<string, unknown> = { sections, truncated: Boolean(m) }
    if (m) structured.metadata = m
    return { text: parts.join('\n\n'), structured }
  },
})

// ---------------------------------------------------------------------------------------------
// build_context

/** `value` with every string in it passed through the addon's secret redaction. */
async function redactDeep(value: unknown): Promise<unknown> {
  if (typeof value === 'string') return (await addon.redactSecrets(value)).text
  if (Array.isArray(value)) return Promise.all(value.map(redactDeep))
  if (value && typeof value === 'object') {
    const entries = await Promise.all(Object.entries(value).map(async ([k, x]) => [k, await redactDeep(x)] as const))
    return Object.fromEntries(entries)
  }
  return value
}

function renderValue(value: unknown): string {
  if (typeof value === 'string') return value
  if (Array.isArray(value)) {
    return value
      .map((c: { hash?: string; date?: string; author?: string; subject?: string }) =>
        c?.hash ? `${c.hash.slice(0, 10)} ${c.date} ${c.author}: ${c.subject}` : JSON.stringify(c),
      )
      .join('\n')
  }
  if (value && typeof value === 'object') {
    const entries = Object.entries(value)
    if (entries.every(([, v]) => typeof v === 'string'))
      return entries.map(([p, v]) => `### ${p}\n${fence(v as string)}`).join('\n\n') || '(none)'
    return JSON.stringify(value, null, 2)
  }
  return String(value)
}

function isGitRepository(root: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile('git', ['rev-parse', '--is-inside-work-tree'], { cwd: root, timeout: 10_000 }, (err, stdout) =>
      resolve(!err && stdout.trim() === 'true'),
    )
  })
}

const ISSUE = z
  .object({
    number: z.int().min(1),
    title: z.string().max(65536),
    body: z.string().max(1048576).optional(),
    labels: z.array(z.string().max(1024)).max(1000).optional(),
    state: z.string().max(64).optional(),
    url: z.string().max(4096).optional(),
  })
  .strict()
  .describe("For kind 'issue': the GitHub issue (number, title, body, labels...).")

const KIND_FIELDS = {
  taskFile: 'implementation',
  baseBranch: 'review',
  validationOutput: 'fix',
  files: 'fix',
  issue: 'issue',
} as const

const buildContext = tool({
  name: 'build_context',
  title: 'Build an agent prompt context',
  description:
    "Assemble the standard context for a coding task in a local git repository. kind 'implementation' (needs taskFile): the task file, " +
    "the conventions (CLAUDE.md, AGENTS.md), branch and recent commits. kind 'review' (baseBranch, default 'main'): the diff from the merge base, " +
    "the changed files and conventions. kind 'fix' (needs validationOutput, optional files): the parsed errors of tsc/eslint/cargo/pytest/mypy/ruff " +
    "output and the source around each error. kind 'issue' (needs issue): the issue, the files it mentions and their recent commits. " +
    'Use it at the start of such a task. Returns the sections as text (secrets redacted) within maxTokens, largest sections shortened first; the structured result names the sections and lists anything truncated, missing or suspicious.',
  input: z
    .object({
      kind: z.enum(['implementation', 'review', 'fix', 'issue']).describe('Which context to build.'),
      taskFile: z
        .string()
        .min(1)
        .max(4096)
        .optional()
        .describe("For kind 'implementation': the task file, relative to the root."),
      baseBranch: z
        .string()
        .min(1)
        .max(256)
        .optional()
        .describe("For kind 'review': the branch to diff against. Default 'main'."),
      validationOutput: z
        .string()
        .max(8 * 1024 * 1024)
        .optional()
        .describe("For kind 'fix': the raw output of the failing tools."),
      files: z
        .array(z.string().min(1).max(4096))
        .max(1000)
        .optional()
        .describe("For kind 'fix': files to include besides those the errors name."),
      issue: ISSUE.optional(),
      maxTokens: maxTokensArg(DEFAULT_MAX_TOKENS * 2),
      root: rootArg.optional(),
    })
    .strict(),
  output: z.object({
    kind: z.string(),
    sections: z.array(z.string()).describe('The names of the sections, in the order the text gives them.'),
    truncated: z.boolean(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  }),
  async handler(args, ctx) {
    const needs: Record<string, string | undefined> = {
      implementation: 'taskFile',
      fix: 'validationOutput',
      issue: 'issue',
    }
    const need = needs[args.kind]
    if (need && (args as Record<string, unknown>)[need] === undefined)
      throw invalid(`${need} is required for kind '${args.kind}'`)
    for (const [field, owner] of Object.entries(KIND_FIELDS)) {
      if ((args as Record<string, unknown>)[field] !== undefined && owner !== args.kind)
        throw invalid(`${field} applies only to kind '${owner}'`)
    }
    const root = await ctx.ws.resolveRoot(args.root)
    let result: Record<string, unknown>
    switch (args.kind) {
      case 'implementation': {
        const rel = relativePath(root, args.taskFile as string)
        const r = await readLines(ctx.engine, root, rel, 1, 1, ctx.signal)
        if (!r.expanded && r.reason !== 'empty_file')
          throw await readError(ctx.engine, root, rel, r, { startLine: 1, endLine: 1 })
        result = { ...(await addon.buildImplementationContext(rel, root, { signal: ctx.signal })) }
        break
      }
      case 'review':
        if (!(await isGitRepository(root)))
          throw invalid(
            "root is not a git repository: kind 'review' diffs a branch of one (pass the root of a git checkout)",
          )
        result = { ...(await addon.buildReviewContext(root, args.baseBranch ?? 'main', { signal: ctx.signal })) }
        break
      case 'fix':
        result = {
          ...(await addon.buildFixContext(args.validationOutput as string, args.files ?? [], root, {
            signal: ctx.signal,
          })),
        }
        break
      default:
        result = { ...(await addon.buildIssueContext(args.issue as addon.GitHubIssue, root, { signal: ctx.signal })) }
    }
    // The builders report suspected secrets in `_metadata.warnings` but return the text as is.
    const redacted = (await redactDeep(result)) as Record<string, unknown>
    const metadata = redacted._metadata as Record<string, unknown> | undefined
    const rendered: Record<string, string> = {}
    for (const [k, v] of Object.entries(redacted)) if (k !== '_metadata') rendered[k] = `## ${k}\n${renderValue(v)}`
    const names = Object.keys(rendered)
    const structured: Record<string, unknown> = { kind: args.kind, sections: names, truncated: false }
    if (metadata) structured.metadata = metadata
    const reserve = await structuredCost({ ...structured, truncated: true })
    const fitted = await addon.fitToBudget(rendered, Math.max(100, args.maxTokens - reserve - 100))
    const parts = names.map((k) => fitted[k])
    if (fitted._metadata) {
      structured.truncated = true
      parts.push(
        `[shortened to the token budget (${args.maxTokens}): ${fitted._metadata.sections_affected.join(', ')}; ${MORE_TOKENS}]`,
      )
    }
    if (metadata) parts.push(`## metadata\n${JSON.stringify(metadata, null, 2)}`)
    return { text: parts.join('\n\n'), structured }
  },
})

// ---------------------------------------------------------------------------------------------
// Remote tools: listed only when the environment configures a server.

interface Provider {
  name: 'gitea' | 'github'
  config: addon.RemoteFileContextConfig
}

/** The code hosts configured by `env`, the first being the default. */
export function configuredProviders(env: NodeJS.ProcessEnv): Provider[] {
  const set = (k: string) => typeof env[k] === 'string' && (env[k] as string).trim() !== ''
  const out: Provider[] = []
  if (set('GITEA_URL')) out.push({ name: 'gitea', config: {} })
  if (set('GITHUB_TOKEN') || set('GH_TOKEN')) out.push({ name: 'github', config: { provider: 'github' } })
  return out
}

function remoteFileContextTool(providers: Provider[]): Tool {
  const names = providers.map((p) => p.name) as [Provider['name'], ...Provider['name'][]]
  return tool({
    name: 'remote_file_context',
    title: 'Read lines of a remote file',
    openWorld: true,
    description:
      `Read a window of lines of a file in a repository on a code host (${names.join(', ')}), numbered, with a web link to the exact ref, secrets redacted. ` +
      'Use it for code that is not checked out locally, e.g. a file named in a stack trace, a review or hound_search. ' +
      'Returns the lines around `line` (`context` on each side), their range, the ref served and the link.',
    input: z
      .object({
        repo: z.string().min(3).max(512).describe('Repository as owner/name.'),
        file: z.string().min(1).max(4096).describe('Path of the file in the repository.'),
        line: lineArg.describe('The line to centre on, 1-based.'),
        context: z.int().min(0).max(1000).default(10).describe('Lines on each side (0-1000). Default 10.'),
        ref: z
          .string()
          .min(1)
          .max(256)
          .optional()
          .describe("Branch, tag or full commit SHA. Default: the repository's default branch."),
        provider: z.enum(names).default(names[0]).describe(`Which code host. Default '${names[0]}'.`),
        maxTokens: maxTokensArg(),
      })
      .strict(),
    output: z.object({
      repo: z.string(),
      file: z.string(),
      line: z.int(),
      startLine: z.int(),
      endLine: z.int(),
      ref: z.string(),
      refKind: z.string(),
      url: z.string(),
      source: z.string(),
      warnings: z.array(z.string()),
      truncated: z.boolean(),
    }),
    async handler(args, ctx) {
      const provider = providers.find((p) => p.name === args.provider) as Provider
      const request: addon.FileContextRequest = {
        repo: args.repo,
        file: args.file,
        line: args.line,
        context: args.context,
      }
      if (args.ref !== undefined) request.ref = args.ref
      const r = await addon.remoteFileContext(request, { ...provider.config, signal: ctx.signal })
      const head = `${r.repo}:${r.file}:${r.startLine}-${r.endLine} @ ${r.ref} (${r.source})\n${r.url}`
      const fit = await fitNumbered(head, r.lines, r.startLine, args.maxTokens - 300)
      const truncated = fit.shown < r.lines.length
      let text = fit.text
      if (truncated)
        text += `\n[stopped at the token budget (${args.maxTokens}): ask again with line ${r.startLine + fit.shown} and less context]`
      if (r.warnings.length) text += `\n[${r.warnings.join('; ')}]`
      return {
        text,
        structured: {
          repo: r.repo,
          file: r.file,
          line: r.line,
          startLine: r.startLine,
          endLine: r.startLine + fit.shown - 1,
          ref: r.ref,
          refKind: r.refKind,
          url: r.url,
          source: r.source,
          warnings: r.warnings,
          truncated,
        },
      }
    },
  })
}

const MAX_HOUND_LINES = 500

const houndSearch = tool({
  name: 'hound_search',
  title: 'Search all indexed repositories',
  openWorld: true,
  description:
    'Regular-expression (or literal) search over every repository indexed by the configured Hound server, across the organisation, not just the local checkout. ' +
    'Use it to find usages, definitions or examples in other repositories; follow up with remote_file_context to read around a match. ' +
    `Returns matching lines as repo:path:line with optional context lines (at most ${MAX_HOUND_LINES} lines in all, within maxTokens), secrets redacted.`,
  input: z
    .object({
      query: z
        .string()
        .min(1)
        .max(4096)
        .describe('A regular expression (RE2 syntax), or plain text with literal: true.'),
      literal: z.boolean().optional().describe('Match the query as plain text. Default false.'),
      ignoreCase: z.boolean().optional().describe('Case-insensitive. Default false.'),
      repos: z
        .array(z.string().min(1).max(256))
        .min(1)
        .max(1000)
        .optional()
        .describe('Only these repositories (Hound names). Default: all.'),
      files: z.string().min(1).max(4096).optional().describe('Only paths matching this regular expression.'),
      excludeFiles: z
        .string()
        .min(1)
        .max(4096)
        .optional()
        .describe('Leave out paths matching this regular expression.'),
      context: z
        .int()
        .min(0)
        .max(20)
        .optional()
        .describe("Lines of context on each side (0-20). Default: the server's, 2."),
      limit: z
        .int()
        .min(1)
        .max(100000)
        .optional()
        .describe("Matches per repository at most. Default: the server's limit."),
      maxTokens: maxTokensArg(),
    })
    .strict(),
  output: z.object({
    matches: z.array(z.object({ repo: z.string(), path: z.string(), line: z.int() })),
    truncated: z.boolean(),
  }),
  async handler(args, ctx) {
    const { maxTokens, query, ...rest } = args
    const options: addon.HoundSearchOptions & addon.CallOptions = { signal: ctx.signal }
    for (const [k, v] of Object.entries(rest)) if (v !== undefined) (options as Record<string, unknown>)[k] = v
    const result = (await redactDeep(await new addon.HoundClient().search(query, options))) as addon.HoundSearchResult
    const blocks: Array<{ repo: string; path: string; line: number; text: string }> = []
    let truncated = false
    let lines = 0
    outer: for (const [repo, rr] of Object.entries(result.results)) {
      if (rr.limitReached) truncated = true
      for (const f of rr.matches) {
        for (const m of f.matches) {
          const size = 1 + m.before.length + m.after.length
          if (lines + size > MAX_HOUND_LINES) {
            truncated = true
            break outer
          }
          lines += size
          const b = m.before.map(
            (l, i) => `${repo}:${f.filename}:${m.lineNumber - m.before.length + i}- ${clipLine(l)}`,
          )
          const a = m.after.map((l, i) => `${repo}:${f.filename}:${m.lineNumber + 1 + i}- ${clipLine(l)}`)
          blocks.push({
            repo,
            path: f.filename,
            line: m.lineNumber,
            text: [...b, `${repo}:${f.filename}:${m.lineNumber}: ${clipLine(m.line)}`, ...a].join('\n'),
          })
        }
      }
    }
    const render = (k: number) =>
      blocks
        .slice(0, k)
        .map((b) => b.text)
        .join('\n')
    const places = (k: number) => blocks.slice(0, k).map(({ repo, path, line }) => ({ repo, path, line }))
    const fit = await largestFitting(blocks.length, maxTokens - 80, (k) => `${render(k)}\n${JSON.stringify(places(k))}`)
    if (fit.k < blocks.length) truncated = true
    const shown = blocks.slice(0, fit.k)
    const text = shown.length
      ? render(fit.k) + (truncated ? '\n[... more matches: narrow the query, repos or files ...]' : '')
      : 'No matches.'
    return { text, structured: { matches: shown.map(({ repo, path, line }) => ({ repo, path, line })), truncated } }
  },
})

/** The tools this server lists, given the environment. */
export function toolsFor(env: NodeJS.ProcessEnv): Tool[] {
  const tools = [
    searchCode,
    findSymbol,
    findReferences,
    repoMap,
    fileContext,
    expandChunk,
    countTokensTool,
    fitToBudget,
    buildContext,
  ]
  const providers = configuredProviders(env)
  if (providers.length) tools.push(remoteFileContextTool(providers))
  if (typeof env.HOUND_URL === 'string' && env.HOUND_URL.trim() !== '') tools.push(houndSearch)
  return tools
}
