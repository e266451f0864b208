#!/usr/bin/env node
// The context-engine command line: the addon's retrieval for people and for benchmarks.
//
//   context-engine query "<prompt>" --root DIR [--limit N] [--json] [--explain]
//   context-engine serve --stdio
//   context-engine mcp [--root DIR]
//
// `--explain` shows the signals that scored each snippet (bm25, chunk, path, symbol, mention,
// the file's role and its factor).
//
// `serve --stdio` speaks JSON Lines: one request per line on stdin,
//   {"id": "...", "root": "/abs/dir", "prompt": "...", "limit": 50, "explain": false}
// one response per line on stdout, in request order,
//   {"id": "...", "results": [{"path", "startLine", "endLine", "content", "score"}, ...]}
// or {"id": "...", "error": {"code", "message"}} when a request fails. It exits when stdin closes.
//
// `mcp` serves the Model Context Protocol over stdio (see mcp/server.js and the README).
'use strict'

const path = require('node:path')
const readline = require('node:readline')

const USAGE = `usage:
  context-engine query "<prompt>" --root DIR [--limit N] [--json] [--explain]
  context-engine serve --stdio
  context-engine mcp [--root DIR]`

function fail(message, code = 2) {
  process.stderr.write(`context-engine: ${message}\n${USAGE}\n`)
  process.exit(code)
}

function parseArgs(argv) {
  const positional = []
  const flags = {}
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--json' || a === '--stdio' || a === '--explain' || a === '--help' || a === '-h') flags[a.replace(/^-+/, '')] = true
    else if (a === '--root' || a === '--limit') {
      if (i + 1 >= argv.length) fail(`${a} needs a value`)
      flags[a.slice(2)] = argv[++i]
    } else if (a.startsWith('--')) fail(`unknown option ${a}`)
    else positional.push(a)
  }
  return { positional, flags }
}

function request(prompt, root, limit, explain) {
  const r = { prompt, spaceId: 'cli', sessionId: 'cli', rootPath: path.resolve(root), providerId: 'mcp' }
  if (limit !== undefined) r.limit = limit
  if (explain) r.explain = true
  return r
}

function signalsLine(g) {
  const f = (x) => x.toFixed(2)
  return `bm25 ${f(g.bm25)} chunk ${f(g.chunk)} path ${f(g.path)} symbol ${f(g.symbol)} mention ${f(g.mention)} role ${g.role} x${f(g.roleFactor)}`
}

async function query(engine, positional, flags) {
  const prompt = positional.slice(1).join(' ')
  if (!prompt) fail('query needs a prompt')
  let limit
  if (flags.limit !== undefined) {
    limit = Number(flags.limit)
    if (!Number.isInteger(limit) || limit < 1) fail('--limit must be a whole number >= 1')
  }
  const started = process.hrtime.bigint()
  const snippets = await engine.retrieve(request(prompt, flags.root ?? process.cwd(), limit, flags.explain))
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  // What the index could not cover (for example ignore rules hiding the whole root) goes to
  // stderr, so `--json` output stays parseable.
  const status = engine.indexStatus(path.resolve(flags.root ?? process.cwd()))
  for (const w of status.warnings ?? []) process.stderr.write(`context-engine: warning: ${w}\n`)
  if (flags.json) {
    process.stdout.write(JSON.stringify(snippets, null, 2) + '\n')
    return
  }
  const out = []
  for (const s of snippets) {
    out.push(`── ${s.path}:${s.startLine}-${s.endLine}  score ${s.score.toFixed(3)}`)
    if (s.signals) out.push(`   [${signalsLine(s.signals)}]`)
    out.push(s.content.split('\n').map((l) => `   ${l}`).join('\n'))
    out.push('')
  }
  out.push(`${snippets.length} snippet(s) in ${ms.toFixed(1)} ms`)
  process.stdout.write(out.join('\n') + '\n')
}

async function serve(engine) {
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity })
  for await (const line of rl) {
    if (!line.trim()) continue
    let id = null
    let response
    try {
      const req = JSON.parse(line)
      id = req.id ?? null
      const limit = req.limit === undefined || req.limit === null ? undefined : req.limit
      const explain = req.explain === true
      const snippets = await engine.retrieve(request(String(req.prompt ?? ''), String(req.root ?? ''), limit, explain))
      response = {
        id,
        results: snippets.map((s) => {
          const r = { path: s.path, startLine: s.startLine, endLine: s.endLine, content: s.content, score: s.score }
          if (s.signals) r.signals = s.signals
          return r
        }),
      }
    } catch (err) {
      const code = err && typeof err.code === 'string' ? err.code : 'invalid_request'
      const message = err && err.message ? err.message : 'request failed'
      response = { id, error: { code, message } }
    }
    process.stdout.write(JSON.stringify(response) + '\n')
  }
}

async function main() {
  const { positional, flags } = parseArgs(process.argv.slice(2))
  if (flags.help || flags.h) {
    process.stdout.write(USAGE + '\n')
    return
  }
  if (positional[0] === 'mcp') {
    if (positional.length > 1 || flags.limit !== undefined || flags.json || flags.stdio) fail('mcp takes only --root DIR')
    return require(path.join(__dirname, '..', 'mcp', 'server.js')).runMcp({ root: flags.root })
  }
  const { ContextEngine } = require(path.join(__dirname, '..', 'dist', 'index.js'))
  const engine = new ContextEngine()
  switch (positional[0]) {
    case 'query':
      return query(engine, positional, flags)
    case 'serve':
      if (!flags.stdio) fail('serve needs --stdio')
      return serve(engine)
    default:
      fail(positional[0] ? `unknown command ${positional[0]}` : 'missing command')
  }
}

main().catch((err) => {
  process.stderr.write(`context-engine: ${err && err.message ? err.message : err}${err && err.code ? ` (${err.code})` : ''}\n`)
  process.exit(1)
})
