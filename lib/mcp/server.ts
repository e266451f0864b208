// `context-engine mcp [--root DIR] [--cache-dir DIR | --no-cache]`: the engine as a Model Context
// Protocol server over stdio, on the official TypeScript SDK (v2, `@modelcontextprotocol/server`).
//
// - stdout carries protocol messages only; diagnostics go to stderr.
// - Roots: `--root` when given, else the working directory; when the client offers MCP roots
//   they replace the working directory. The engine is built with these roots as its
//   `allowedRoots`, so it refuses any root or file outside them (symlinks included).
// - Indexes are saved in the per-user cache folder (see ../cachedir.ts) and loaded by the next
//   session, which then re-reads only the files changed since.
// - The default root's index is prepared in the background as soon as the server runs; a call
//   that waits for an indexing reports progress (`progress` of `total` files, and a message)
//   when the client sent a progressToken.
// - End of stdin ends the process.

import type { ServerContext } from '@modelcontextprotocol/server'
import { Server } from '@modelcontextprotocol/server'
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio'

import type { ContextEngine } from '../index.js'
import { CODES, jsonSchema, parseArguments, ToolError } from './args.js'
import { Symbols } from './symbols.js'
import { type Tool, type ToolContext, toolsFor } from './tools.js'
import { realDir, Workspace } from './workspace.js'

const PROGRESS_INTERVAL_MS = 200
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
  const env = options.env ?? process.env
  const ws = new Workspace({ flagRoot, cacheDir: options.cacheDir })
  const tools = toolsFor(env)
  const byName = new Map(tools.map((t) => [t.name, t]))
  const listed = tools.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: jsonSchema(t.input),
    outputSchema: jsonSchema(t.output, 'output'),
    annotations: { readOnlyHint: true, openWorldHint: Boolean(t.openWorld) },
  }))
  const inputSchemas = new Map(listed.map((t) => [t.name, t.inputSchema as Record<string, unknown>]))
  const symbols = new Symbols()
  const sessionId = `mcp-${process.pid}`

  const prepared = new Map<ContextEngine, Set<string>>()
  const prepare = (root: string) => {
    const engine = ws.engine()
    const set = prepared.get(engine) ?? new Set<string>()
    prepared.set(engine, set)
    if (set.has(root) || set.size >= MAX_PREPARED_ROOTS) return
    set.add(root)
    const started = Date.now()
    engine
      .prepareIndex(root)
      .then((s) =>
        log(
          `index of ${root} ready in ${Date.now() - started} ms: ${s.files} files, ${s.filesRead} read now${options.cacheDir ? '' : ' (no cache folder)'}`,
        ),
      )
      .catch((err) => log(`indexing failed: ${errorCode(err) ?? 'error'}`))
  }
  // The default root once the client's roots (if it offers any) are known.
  const prepareDefault = () => {
    ws.settled.then(() => {
      try {
        prepare(ws.defaultRoot())
      } catch (err) {
        log(`cannot prepare the index: ${(err as Error)?.message ?? err}`)
      }
    })
  }

  const callTool = async (
    name: unknown,
    rawArgs: unknown,
    ctx: ServerContext,
  ): Promise<{ tool: Tool; text: string; structured: Record<string, unknown> }> => {
    if (typeof name !== 'string') throw new ToolError('invalid_request', 'name must be a string')
    const tool = byName.get(name)
    if (!tool)
      throw new ToolError('invalid_request', `unknown tool; the tools are: ${tools.map((t) => t.name).join(', ')}`)
    const args = parseArguments(tool.input, rawArgs, inputSchemas.get(name))
    await ws.settled
    const progressToken = ctx.mcpReq._meta?.progressToken
    const engine = ws.engine()
    const toolCtx: ToolContext = {
      ws,
      engine,
      sessionId,
      signal: ctx.mcpReq.signal,
      symbols,
      watchIndex: (root) => watchIndex(engine, root, progressToken, ctx),
    }
    const out = await tool.handler(args, toolCtx)
    return { tool, ...out }
  }

  const factory = () => {
    const server = new Server(
      { name: options.name, version: options.version },
      {
        capabilities: { tools: {} },
        instructions:
          'Code context for the local repository. search_code finds relevant code for a question, identifier or error; find_symbol gives a named definition; ' +
          'find_references the places a name is used; repo_map an overview of the repository or a folder; file_context and expand_chunk read around a place; ' +
          'build_context assembles task contexts; count_tokens and fit_to_budget keep text within a token budget. ' +
          'Every result that returns code stops at maxTokens (default 8000) and says how to continue.',
      },
    )
    server.setRequestHandler('tools/list', async () => ({ tools: listed }))
    // The SDK answers a `tools/call` whose `name` is not a string or whose `arguments` is not
    // an object with a -32602 protocol error before any handler runs (the request itself is
    // malformed); everything inside `arguments` is checked here and answered as a tool error.
    server.setRequestHandler('tools/call', async (request, ctx) => {
      try {
        const { text, structured } = await callTool(request.params.name, request.params.arguments, ctx)
        return { content: [{ type: 'text' as const, text }], structuredContent: structured }
      } catch (err) {
        let code = errorCode(err)
        if (!code || !(CODES as readonly string[]).includes(code)) code = 'internal'
        let message = err instanceof Error && err.message ? err.message : 'request failed'
        if (code === 'internal' && !(err instanceof ToolError)) {
          log(
            `internal error in ${String(request.params.name)}: ${err instanceof Error && err.stack ? err.stack : err}`,
          )
          message = 'internal error'
        }
        if (ctx.mcpReq.signal.aborted && code === 'internal') code = 'timeout'
        if (code === 'invalid_request' && /outside the engine's allowedRoots/.test(message))
          message = 'path is outside the roots this server may read'
        return { content: [{ type: 'text' as const, text: `${code}: ${message}` }], isError: true }
      }
    })
    server.oninitialized = () => {
      const caps = server.getClientCapabilities()
      if (!caps?.roots) return prepareDefault()
      const refresh = () => {
        const p = server
          .listRoots(undefined, { timeout: ROOTS_WAIT_MS })
          .then((r) => ws.setClientRoots(r.roots ?? []))
          .catch(() => log('the client did not list its roots; using the default root'))
        ws.settled = p
        prepareDefault()
      }
      if (caps.roots.listChanged) server.setNotificationHandler('notifications/roots/list_changed', refresh)
      refresh()
    }
    return server
  }

  const transport = new StdioServerTransport(undefined, undefined, { maxBufferSize: MAX_MESSAGE_BYTES })
  const handle = serveStdio(factory, {
    transport,
    onerror: (err: Error) => log(`protocol error: ${err?.message ?? err}`),
  })

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

  // Index the default root in the background once `initialize` is answered (or soon anyway,
  // for a client of the 2026-07-28 revision, which sends no `initialized`).
  setTimeout(prepareDefault, PREPARE_FALLBACK_MS)
}

/**
 * Sends `notifications/progress` (files read of the total, with a message) while `root` is
 * being indexed, when the client asked for progress. Returns the function that stops it.
 */
function watchIndex(
  engine: ContextEngine,
  root: string,
  progressToken: string | number | undefined,
  ctx: ServerContext,
): () => void {
  if (progressToken === undefined) return () => {}
  try {
    if (engine.indexStatus(root).state === 'ready') return () => {}
  } catch {
    return () => {}
  }
  const started = Date.now()
  let last = -1
  const send = () => {
    try {
      const s = engine.indexStatus(root)
      if (s.state === 'ready' || s.filesRead <= last) return
      last = s.filesRead
      const total = Math.max(s.filesTotal, s.filesRead)
      const pct = total > 0 ? ` (${Math.floor((100 * s.filesRead) / total)}%)` : ''
      const params: { progressToken: string | number; progress: number; total?: number; message: string } = {
        progressToken,
        progress: s.filesRead,
        message: `indexing the repository: ${s.filesRead}${total > 0 ? ` of ${total}` : ''} files read${pct}, ${((Date.now() - started) / 1000).toFixed(1)} s`,
      }
      if (total > 0) params.total = total
      ctx.mcpReq.notify({ method: 'notifications/progress', params }).catch(() => {})
    } catch {
      // Progress is best effort.
    }
  }
  send()
  const timer = setInterval(send, PROGRESS_INTERVAL_MS)
  return () => clearInterval(timer)
}
