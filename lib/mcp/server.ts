// `context-engine mcp [--root DIR] [--cache-dir DIR | --no-cache]`: the engine as a Model Context
// Protocol server over stdio, on the official TypeScript SDK (v2, `@modelcontextprotocol/server`).
//
// - stdout carries protocol messages only; diagnostics go to stderr.
// - Roots: `--root` when given, else the working directory; when the client offers MCP roots
//   they replace the working directory. The engine is built with these roots as its
//   `allowedRoots`, so it refuses any root or file outside them (symlinks included).
// - Indexes are saved in the per-user cache folder (see ../cachedir.ts) and loaded by the next
//   session, which then re-reads only the files changed since.
// - The indexes of the roots a search covers (the default root's first) are prepared in the
//   background as soon as the server runs; a call that waits for an indexing reports progress
//   (`progress` of `total` files, and a message) when the client sent a progressToken.
// - End of stdin ends the process.

import type { ServerContext } from '@modelcontextprotocol/server'
import { Server } from '@modelcontextprotocol/server'
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio'

import type { ContextEngine } from '../index.js'
import { CODES, jsonSchema, parseArguments, ToolError } from './args.js'
import { Symbols } from './symbols.js'
import { type Tool, type ToolContext, type ToolOutput, toolsFor } from './tools.js'
import { realDir, Workspace } from './workspace.js'

const PROGRESS_INTERVAL_MS = 100
const ROOTS_WAIT_MS = 2000
const MAX_PREPARED_ROOTS = 4
const PREPARE_FALLBACK_MS = 1000
/** Largest protocol message read (the SDK's default is 10 MB; count_tokens takes up to 8 Mi characters). */
const MAX_MESSAGE_BYTES = 80 * 1024 * 1024

export interface McpOptions {
  /** `--root`. */
  root?: string
  /** The index cache folder, or undefined for memory only. */
  cacheDir?: string
  /** The environment that configures the remote tools. */
  env?: NodeJS.ProcessEnv
  name: string
  version: string
}

function log(message: string): void {
  process.stderr.write(`context-engine mcp: ${message}\n`)
}

const errorCode = (err: unknown): string | undefined =>
  err && typeof (err as { code?: unknown }).code === 'string' ? (err as { code: string }).code : undefined

/** One tool listed by `tools/list`. */
interface Listed {
  name: string
  title: string
  description: string
  inputSchema: Record<string, unknown> & { type: 'object' }
  outputSchema: Record<string, unknown> & { type: 'object' }
  annotations: { readOnlyHint: boolean; openWorldHint: boolean }
}

/** The server's state, shared by every protocol session of the process. */
class McpApp {
  private readonly tools: Tool[]
  private readonly byName: Map<string, Tool>
  readonly listed: Listed[]
  private readonly symbols = new Symbols()
  private readonly sessionId = `mcp-${process.pid}`
  /** Roots whose index is being prepared in the background, per engine (a new engine per set of roots). */
  private readonly prepared = new WeakMap<ContextEngine, Set<string>>()

  constructor(
    readonly ws: Workspace,
    private readonly options: McpOptions,
  ) {
    this.tools = toolsFor(options.env ?? process.env)
    this.byName = new Map(this.tools.map((t) => [t.name, t]))
    this.listed = this.tools.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: jsonSchema(t.input),
      outputSchema: jsonSchema(t.output, 'output'),
      annotations: { readOnlyHint: true, openWorldHint: Boolean(t.openWorld) },
    }))
  }

  /**
   * Indexes `root` in the background (at most MAX_PREPARED_ROOTS roots per engine); resolves
   * when it is ready or failed, never rejects.
   */
  private prepare(root: string): Promise<void> {
    const engine = this.ws.engine()
    const set = this.prepared.get(engine) ?? new Set<string>()
    this.prepared.set(engine, set)
    if (set.has(root) || set.size >= MAX_PREPARED_ROOTS) return Promise.resolve()
    set.add(root)
    const started = Date.now()
    const cache = this.options.cacheDir ? '' : ' (no cache folder)'
    return engine
      .prepareIndex(root)
      .then((s) =>
        log(`index of ${root} ready in ${Date.now() - started} ms: ${s.files} files, ${s.filesRead} read now${cache}`),
      )
      .catch((err) => log(`indexing failed: ${errorCode(err) ?? 'error'}`))
  }

  /**
   * Prepares the roots a search without `root` covers, once the client's roots (if it offers
   * any) are known: the default root first, then the others one after another (one build at a
   * time leaves the machine's other cores to the host).
   */
  prepareDefault(): void {
    this.ws
      .searchRoots()
      .then(async (roots) => {
        for (const root of roots) await this.prepare(root)
      })
      .catch((err) => log(`cannot prepare the index: ${(err as Error)?.message ?? err}`))
  }

  /** Runs a `tools/call`: checks the name and arguments, then the tool's typed handler. */
  async call(name: unknown, rawArgs: unknown, ctx: ServerContext): Promise<ToolOutput> {
    if (typeof name !== 'string') throw new ToolError('invalid_request', 'name must be a string')
    const tool = this.byName.get(name)
    if (!tool)
      throw new ToolError('invalid_request', `unknown tool; the tools are: ${this.tools.map((t) => t.name).join(', ')}`)
    const args = parseArguments(tool.input, rawArgs, this.listed.find((t) => t.name === name)?.inputSchema)
    await this.ws.settled
    const progressToken = ctx.mcpReq._meta?.progressToken
    const engine = this.ws.engine()
    const toolCtx: ToolContext = {
      ws: this.ws,
      engine,
      sessionId: this.sessionId,
      signal: ctx.mcpReq.signal,
      symbols: this.symbols,
      watchIndex: (root) => watchIndex(engine, root, progressToken, ctx),
    }
    return tool.handler(args, toolCtx)
  }

  /** A tool error as the model sees it: `<code>: <message>`, `isError`. */
  static errorResult(err: unknown, toolName: unknown, aborted: boolean) {
    let code = errorCode(err)
    if (!code || !(CODES as readonly string[]).includes(code)) code = 'internal'
    let message = err instanceof Error && err.message ? err.message : 'request failed'
    if (code === 'internal' && !(err instanceof ToolError)) {
      log(`internal error in ${String(toolName)}: ${err instanceof Error && err.stack ? err.stack : err}`)
      message = 'internal error'
    }
    if (aborted && code === 'internal') code = 'timeout'
    if (code === 'invalid_request' && /outside the engine's allowedRoots/.test(message))
      message = 'path is outside the roots this server may read'
    return { content: [{ type: 'text' as const, text: `${code}: ${message}` }], isError: true }
  }

  /** A protocol session's server (the SDK calls this per session). */
  createServer(): Server {
    const server = new Server(
      { name: this.options.name, version: this.options.version },
      { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
    )
    server.setRequestHandler('tools/list', async () => ({ tools: this.listed }))
    // The SDK answers a `tools/call` whose `name` is not a string or whose `arguments` is not
    // an object with a -32602 protocol error before any handler runs (the request itself is
    // malformed); everything inside `arguments` is checked here and answered as a tool error.
    server.setRequestHandler('tools/call', async (request, ctx) => {
      try {
        const { text, structured } = await this.call(request.params.name, request.params.arguments, ctx)
        return { content: [{ type: 'text' as const, text }], structuredContent: structured }
      } catch (err) {
        return McpApp.errorResult(err, request.params.name, ctx.mcpReq.signal.aborted)
      }
    })
    server.oninitialized = () => {
      const caps = server.getClientCapabilities()
      if (!caps?.roots) return this.prepareDefault()
      const refresh = () => {
        this.ws.settled = server
          .listRoots(undefined, { timeout: ROOTS_WAIT_MS })
          .then((r) => this.ws.setClientRoots(r.roots ?? []))
          .catch(() => log('the client did not list its roots; using the default root'))
        this.prepareDefault()
      }
      if (caps.roots.listChanged) server.setNotificationHandler('notifications/roots/list_changed', refresh)
      refresh()
    }
    return server
  }
}

const INSTRUCTIONS =
  'Code context for the local repository. search_code finds relevant code for a question, identifier or error; find_symbol gives a named definition; ' +
  'find_references the places a name is used; repo_map an overview of the repository or a folder; file_context and expand_chunk read around a place; ' +
  'build_context assembles task contexts; count_tokens and fit_to_budget keep text within a token budget. ' +
  'Every result that returns code stops at maxTokens (default 8000) and says how to continue.'

/** Runs the server until stdin ends. */
export async function runMcp(options: McpOptions): Promise<void> {
  // Anything printed by mistake must not corrupt the protocol stream.
  console.log = console.info = console.debug = console.warn = (...a: unknown[]) => log(a.map(String).join(' '))

  let flagRoot: string | undefined
  if (options.root !== undefined) {
    try {
      flagRoot = realDir(options.root)
    } catch {
      log('--root must be an existing directory')
      process.exit(2)
    }
  }
  const app = new McpApp(new Workspace({ flagRoot, cacheDir: options.cacheDir }), options)
  const transport = new StdioServerTransport(undefined, undefined, { maxBufferSize: MAX_MESSAGE_BYTES })
  const handle = serveStdio(() => app.createServer(), {
    transport,
    onerror: (err: Error) => log(`protocol error: ${err?.message ?? err}`),
  })
  exitWithInput(transport, handle)
  // Index the default root in the background once `initialize` is answered (or soon anyway,
  // for a client of the 2026-07-28 revision, which sends no `initialized`).
  setTimeout(() => app.prepareDefault(), PREPARE_FALLBACK_MS)
}

/** Ends the process when stdin ends, the transport closes itself, or a signal arrives. */
function exitWithInput(transport: StdioServerTransport, handle: { close(): Promise<void> }): void {
  let closing = false
  const shutdown = (code: number) => {
    if (closing) return
    closing = true
    // Pending index builds run on addon threads: exit without waiting for them.
    const exit = () => process.exit(code)
    Promise.race([handle.close().catch(() => {}), new Promise((r) => setTimeout(r, 200))]).then(exit, exit)
  }
  // serveStdio has installed its own close handler; chain ours so that a transport that closes
  // itself (end of input, a message over MAX_MESSAGE_BYTES) ends the process.
  const sdkOnClose = transport.onclose
  transport.onclose = () => {
    sdkOnClose?.call(transport)
    shutdown(0)
  }
  process.stdin.on('end', () => shutdown(0))
  process.stdin.on('close', () => shutdown(0))
  process.stdout.on('error', () => shutdown(0))
  process.on('SIGINT', () => shutdown(130))
  process.on('SIGTERM', () => shutdown(143))
}

/**
 * Sends `notifications/progress` (files read of the total, with a message) while `root` (or
 * the roots of a search over several, counted together) is being indexed, when the client
 * asked for progress, and a last one when the wait ends. Returns the function that stops it.
 */
function watchIndex(
  engine: ContextEngine,
  root: string | string[],
  progressToken: string | number | undefined,
  ctx: ServerContext,
): () => void {
  if (progressToken === undefined) return () => {}
  const roots = typeof root === 'string' ? [root] : root
  // The roots' statuses as one: files read and to read summed, building while any is.
  const status = () => {
    const all = roots.map((r) => engine.indexStatus(r))
    return {
      state: all.some((s) => s.state === 'building')
        ? 'building'
        : all.every((s) => s.state === 'ready')
          ? 'ready'
          : 'absent',
      filesTotal: all.reduce((n, s) => n + Math.max(s.filesTotal, s.filesRead), 0),
      filesRead: all.reduce((n, s) => n + s.filesRead, 0),
      files: all.reduce((n, s) => n + s.files, 0),
    }
  }
  try {
    if (status().state === 'ready') return () => {}
  } catch {
    return () => {}
  }
  const started = Date.now()
  let last = -1
  // The largest count of files to read seen while building: once the build is done, a refresh
  // that read nothing (the call's own, after a background build) reports 0 of 0.
  let seenTotal = 0
  const send = (final: boolean) => {
    try {
      const s = status()
      let total = Math.max(s.filesTotal, s.filesRead, seenTotal)
      if (final && total === 0) total = s.files
      seenTotal = total
      // Nothing to show before the files to read are known, nor twice the same count. While
      // the index is still building, progress stays below the total (every file may be read
      // while the postings are still being written): only the last notification reaches it.
      const current = final ? total : Math.min(s.filesRead, total - 1)
      if (!final && (s.state !== 'building' || total === 0 || current <= last)) return
      if (final && last === total) return
      last = current
      const secs = ((Date.now() - started) / 1000).toFixed(1)
      const pct = total > 0 ? ` (${Math.floor((100 * last) / total)}%)` : ''
      const message = final
        ? `indexed the repository: ${s.files} files, ${secs} s`
        : `indexing the repository: ${last} of ${total} files read${pct}, ${secs} s`
      const params: { progressToken: string | number; progress: number; total?: number; message: string } = {
        progressToken,
        progress: last,
        message,
      }
      if (total > 0) params.total = total
      ctx.mcpReq.notify({ method: 'notifications/progress', params }).catch(() => {})
    } catch {
      // Progress is best effort.
    }
  }
  send(false)
  const timer = setInterval(() => send(false), PROGRESS_INTERVAL_MS)
  return () => {
    clearInterval(timer)
    send(true)
  }
}
