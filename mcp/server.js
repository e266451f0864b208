// `context-engine mcp [--root DIR]`: the engine as a Model Context Protocol server over stdio,
// built on the official TypeScript SDK (v2, `@modelcontextprotocol/server`).
//
// - stdout carries protocol messages only; diagnostics go to stderr.
// - Roots: `--root` when given, else the working directory; when the client offers MCP roots
//   they replace the working directory. A tool's `root` must resolve (symlinks included)
//   inside one of them or inside `--root`.
// - The default root's index is prepared in the background as soon as the server runs; a
//   `search_code` that waits for a first indexing reports progress when the client sent a
//   progressToken.
// - End of stdin ends the process.
'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { fileURLToPath } = require('node:url')
const { validateArguments, ToolError } = require('./schema')
const { toolsFor, relativeInside } = require('./tools')

const CODES = new Set(['invalid_request', 'unauthorized', 'unavailable', 'timeout', 'internal'])
const PROGRESS_INTERVAL_MS = 100
const ROOTS_WAIT_MS = 2000
const MAX_PREPARED_ROOTS = 4
const PREPARE_FALLBACK_MS = 1000
/** Largest protocol message read (the SDK's default is 10 MB; count_tokens takes up to 16 MiB of text). */
const MAX_MESSAGE_BYTES = 80 * 1024 * 1024

function log(message) {
  process.stderr.write(`context-engine mcp: ${message}\n`)
}

/** The SDK: its CommonJS build, or its ESM build through import() for an ESM-only release. */
async function loadSdk() {
  try {
    return { ...require('@modelcontextprotocol/server'), ...require('@modelcontextprotocol/server/stdio') }
  } catch (err) {
    if (err && err.code !== 'ERR_REQUIRE_ESM' && err.code !== 'ERR_PACKAGE_PATH_NOT_EXPORTED') throw err
    const [main, stdio] = await Promise.all([import('@modelcontextprotocol/server'), import('@modelcontextprotocol/server/stdio')])
    return { ...main, ...stdio }
  }
}

function realDir(p) {
  const real = fs.realpathSync(p)
  if (!fs.statSync(real).isDirectory()) throw new Error('not a directory')
  return real
}

class Roots {
  constructor(flagRoot) {
    this.flagRoot = flagRoot
    this.cwd = flagRoot ? undefined : realDir(process.cwd())
    this.client = undefined // real paths of the client's roots, when it offered any
    this.settled = Promise.resolve()
  }

  /** Where tools work when they are not given a `root`. */
  default() {
    return this.flagRoot ?? (this.client && this.client[0]) ?? this.cwd
  }

  allowed() {
    const out = this.client ? [...this.client] : this.flagRoot ? [] : [this.cwd]
    if (this.flagRoot) out.push(this.flagRoot)
    return out
  }

  /** A tool's `root` argument as a real directory inside the allowed roots. */
  async resolve(arg) {
    await this.settled
    const base = this.default()
    if (arg === undefined) return base
    if (arg.includes('\0')) throw new ToolError('invalid_request', 'root must not contain NUL')
    let real
    try {
      real = realDir(path.resolve(base, arg))
    } catch {
      throw new ToolError('invalid_request', 'root is not an existing directory')
    }
    if (!this.allowed().some((a) => relativeInside(a, real) !== undefined)) {
      throw new ToolError('invalid_request', 'root is outside the roots this server may read')
    }
    return real
  }

  /** Replaces the client roots from a `roots/list` answer (file: URIs of directories). */
  setClient(list) {
    const dirs = []
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
}

/**
 * Runs the server until stdin ends. `options.root` is the `--root` flag (a directory), `env`
 * the environment that configures the remote tools.
 */
async function runMcp(options = {}) {
  // Anything printed by mistake must not corrupt the protocol stream.
  console.log = console.info = console.debug = console.warn = (...a) => log(a.map(String).join(' '))

  let flagRoot
  if (options.root !== undefined) {
    try {
      flagRoot = realDir(options.root)
    } catch {
      log('--root must be an existing directory')
      process.exit(2)
    }
  }
  const env = options.env ?? process.env
  const roots = new Roots(flagRoot)
  const { Server, serveStdio, StdioServerTransport } = await loadSdk()
  const { name, version } = require('../package.json')

  let addon
  let engine
  const getAddon = () => {
    if (!addon) {
      addon = require('../dist/index.js')
      engine = new addon.ContextEngine()
    }
    return addon
  }
  let tools
  const getTools = () => (tools ??= toolsFor(getAddon(), env))

  const prepared = new Set()
  const prepare = (root) => {
    if (prepared.has(root) || prepared.size >= MAX_PREPARED_ROOTS) return
    prepared.add(root)
    getAddon()
    engine.prepareIndex(root).catch((err) => log(`indexing failed: ${err && err.code ? err.code : 'error'}`))
  }

  // The default root once the client's roots (if it offers any) are known; loading the addon
  // here keeps it off the path of the `initialize` answer.
  const prepareDefault = () => {
    roots.settled.then(() => {
      try {
        prepare(roots.default())
      } catch (err) {
        log(`cannot load the addon: ${err && err.message ? err.message : err}`)
      }
    })
  }

  const sessionId = `mcp-${process.pid}`

  const callTool = async (params, ctx) => {
    if (typeof params?.name !== 'string') throw new ToolError('invalid_request', 'name must be a string')
    const tool = getTools().find((t) => t.name === params.name)
    if (!tool) throw new ToolError('invalid_request', 'unknown tool')
    const args = validateArguments(tool.inputSchema, params.arguments)
    const progressToken = ctx.mcpReq._meta?.progressToken
    const toolCtx = {
      addon: getAddon(),
      engine,
      sessionId,
      signal: ctx.mcpReq.signal,
      resolveRoot: (r) => roots.resolve(r),
      watchIndex: (root) => watchIndex(engine, root, progressToken, ctx),
    }
    return { tool, out: await tool.handler(args, toolCtx) }
  }

  const factory = () => {
    const server = new Server(
      { name, version },
      {
        capabilities: { tools: {} },
        instructions:
          'Code context for the local repository: search_code finds relevant code, expand_chunk and file_context read around it, ' +
          'build_context assembles task contexts, count_tokens and fit_to_budget keep them within a token budget.',
      },
    )
    server.setRequestHandler('tools/list', async () => ({
      tools: getTools().map((t) => ({
        name: t.name,
        title: t.title,
        description: t.description,
        inputSchema: t.inputSchema,
        outputSchema: t.outputSchema,
        annotations: { readOnlyHint: true, openWorldHint: t.name === 'remote_file_context' || t.name === 'hound_search' },
      })),
    }))
    // The SDK answers a `tools/call` whose `name` is not a string or whose `arguments` is not
    // an object with a -32602 protocol error before any handler runs (the request itself is
    // malformed); everything inside `arguments` is checked here and answered as a tool error.
    server.setRequestHandler('tools/call', async (request, ctx) => {
      try {
        const { tool, out } = await callTool(request.params, ctx)
        const result = { content: [{ type: 'text', text: out.text }], structuredContent: out.structured }
        return typeof server.projectCallToolResult === 'function' ? server.projectCallToolResult(result, tool.outputSchema) : result
      } catch (err) {
        let code = err && typeof err.code === 'string' && CODES.has(err.code) ? err.code : 'internal'
        let message = err && typeof err.message === 'string' && err.message ? err.message : 'request failed'
        if (code === 'internal' && !(err instanceof ToolError)) {
          log(`internal error in ${request.params?.name}: ${err && err.stack ? err.stack : err}`)
          message = 'internal error'
        }
        if (ctx.mcpReq.signal.aborted && code === 'internal') code = 'timeout'
        return { content: [{ type: 'text', text: `${code}: ${message}` }], isError: true }
      }
    })
    server.oninitialized = () => {
      if (!server.getClientCapabilities()?.roots) return prepareDefault()
      const refresh = () => {
        const p = server
          .listRoots(undefined, { timeout: ROOTS_WAIT_MS })
          .then((r) => {
            roots.setClient(r.roots ?? [])
          })
          .catch(() => log('the client did not list its roots; using the default root'))
        roots.settled = p
        prepareDefault()
      }
      if (server.getClientCapabilities().roots.listChanged) {
        server.setNotificationHandler('notifications/roots/list_changed', refresh)
      }
      refresh()
    }
    return server
  }

  const transport = new StdioServerTransport(undefined, undefined, { maxBufferSize: MAX_MESSAGE_BYTES })
  const handle = serveStdio(factory, { transport, onerror: (err) => log(`protocol error: ${err && err.message ? err.message : err}`) })

  let closing = false
  const shutdown = (code) => {
    if (closing) return
    closing = true
    // Pending index builds run on addon threads: exit without waiting for them.
    const exit = () => process.exit(code)
    Promise.race([handle.close().catch(() => {}), new Promise((r) => setTimeout(r, 200))]).then(exit, exit)
  }
  // serveStdio has installed its own close handler; chain ours so that a transport that closes
  // itself (end of input, a message over MAX_MESSAGE_BYTES) ends the process instead of leaving
  // it waiting on a paused stdin.
  const sdkOnClose = transport.onclose
  transport.onclose = () => {
    if (sdkOnClose) sdkOnClose.call(transport)
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
 * Sends `notifications/progress` while `root` is being indexed by the request's call, when
 * the client asked for progress. Returns the function that stops it.
 */
function watchIndex(engine, root, progressToken, ctx) {
  if (progressToken === undefined) return () => {}
  let status
  try {
    status = engine.indexStatus(root)
  } catch {
    return () => {}
  }
  if (status.state === 'ready') return () => {}
  let last = -1
  const send = () => {
    try {
      const s = engine.indexStatus(root)
      const progress = s.filesRead
      if (progress <= last || s.state === 'ready') return
      last = progress
      const params = { progressToken, progress, message: `indexing: ${progress} files read` }
      if (s.files >= progress && s.files > 0) params.total = s.files
      ctx.mcpReq.notify({ method: 'notifications/progress', params }).catch(() => {})
    } catch {
      // Progress is best effort.
    }
  }
  send()
  const timer = setInterval(send, PROGRESS_INTERVAL_MS)
  return () => clearInterval(timer)
}

module.exports = { runMcp }
