// The MCP tools: name, description (written for a model: when to use it, what it returns),
// input and output JSON schemas, and the handler that calls the addon. Handlers get the
// validated arguments and a context:
//   { addon, engine, sessionId, signal, resolveRoot(root?), watchIndex(root) -> stop }
// and return { text, structured }; any thrown Error with a `code` becomes a tool result with
// `isError: true` and the text `<code>: <message>`.
'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { invalid } = require('./schema')

const ROOT = {
  type: 'string',
  minLength: 1,
  maxLength: 4096,
  description:
    'Repository directory to work in (absolute, or relative to the default root). Must lie inside one of the roots the server may read. Default: the server\'s root.',
}
const REL_PATH = {
  type: 'string',
  minLength: 1,
  maxLength: 4096,
  description: 'File path relative to the root (`src/app.ts`), or an absolute path inside it.',
}
const LINE = { type: 'integer', minimum: 1, maximum: 10_000_000 }
const MAX_FILE_LINES = 2000

/**
 * Where `p` lies under `root` (both real paths), or undefined when outside. `paths` is the
 * platform's `path` module; tests pass `path.win32` or `path.posix` to check both on any host.
 */
function relativeInside(root, p, paths = path) {
  const rel = paths.relative(root, p)
  if (rel === '') return ''
  if (rel === '..' || rel.startsWith(`..${paths.sep}`)) return undefined
  if (paths.isAbsolute(rel)) return undefined
  return rel
}

/**
 * Resolves a tool's file argument inside `root` (a real path): lexically first, then through
 * symlinks, so neither `../../etc/passwd` nor a link pointing out of the root is read.
 * Returns the `/`-separated path relative to the root.
 */
function resolveFile(root, file) {
  if (file.includes('\0')) throw invalid('path must not contain NUL')
  const abs = path.resolve(root, file)
  if (relativeInside(root, abs) === undefined) throw invalid('path is outside the root')
  let real
  try {
    real = fs.realpathSync(abs)
  } catch {
    throw invalid('file not found')
  }
  const rel = relativeInside(root, real)
  if (rel === undefined) throw invalid('path is outside the root (it resolves through a link)')
  let st
  try {
    st = fs.statSync(real)
  } catch {
    throw invalid('file not found')
  }
  if (!st.isFile()) throw invalid('path is not a file')
  return rel.split(path.sep).join('/')
}

/**
 * `value` with every string in it passed through the addon's secret redaction (builders and
 * Hound return file text as it is), and how many secrets were replaced.
 */
async function redactDeep(addon, value) {
  let count = 0
  const walk = async (v) => {
    if (typeof v === 'string') {
      const r = await addon.redactSecrets(v)
      count += r.redactions.length
      return r.text
    }
    if (Array.isArray(v)) return Promise.all(v.map(walk))
    if (v && typeof v === 'object') {
      const entries = await Promise.all(Object.entries(v).map(async ([k, x]) => [k, await walk(x)]))
      return Object.fromEntries(entries)
    }
    return v
  }
  const out = await walk(value)
  return { value: out, redactions: count }
}

function fence(text, language) {
  const ticks = text.includes('```') ? '````' : '```'
  return `${ticks}${language ?? ''}\n${text}${text.endsWith('\n') ? '' : '\n'}${ticks}`
}

function numbered(lines, first) {
  const width = String(first + lines.length - 1).length
  return lines.map((l, i) => `${String(first + i).padStart(width)} | ${l}`).join('\n')
}

const EXPAND_REASONS = {
  invalid_path: 'path is not valid',
  outside_workspace: 'path is outside the root',
  not_found: 'file not found',
  not_a_file: 'path is not a file',
  too_large: 'file is too large',
  binary: 'file is binary',
  unreadable: 'file cannot be read',
  empty_file: 'file is empty',
  out_of_range: 'lines are outside the file',
  invalid_range: 'startLine must be <= endLine',
  invalid_workspace: 'root is not a directory',
}

function splitLines(content) {
  const lines = content.split('\n')
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop()
  return lines
}

// ---------------------------------------------------------------------------------------------

const searchCode = {
  name: 'search_code',
  title: 'Search code',
  description:
    'Find the code in a local repository that is relevant to a question, task, identifier, error message or stack trace. ' +
    'Use it first when you need to locate where something is implemented, called or configured, before reading whole files. ' +
    'Returns ranked snippets (`path:start-end`, score, the code with secrets redacted), best first. ' +
    'The first call on a large repository may wait for indexing; later calls are fast and see file changes. ' +
    'Follow up with expand_chunk to widen a snippet or file_context to read a file.',
  inputSchema: {
    type: 'object',
    properties: {
      query: {
        type: 'string',
        minLength: 1,
        maxLength: 262144,
        description: 'What to look for: natural language, identifiers, paths, error messages or a stack trace.',
      },
      limit: { type: 'integer', minimum: 1, maximum: 100, default: 10, description: 'Snippets wanted (1-100). Default 10.' },
      root: ROOT,
    },
    required: ['query'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      results: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            path: { type: 'string' },
            startLine: { type: 'integer' },
            endLine: { type: 'integer' },
            score: { type: 'number' },
            language: { type: 'string' },
            content: { type: 'string' },
          },
          required: ['path', 'startLine', 'endLine', 'score', 'content'],
        },
      },
    },
    required: ['results'],
  },
  async handler(args, ctx) {
    const root = await ctx.resolveRoot(args.root)
    const request = {
      prompt: args.query,
      spaceId: 'mcp',
      sessionId: ctx.sessionId,
      rootPath: root,
      providerId: 'mcp',
      limit: args.limit ?? 10,
    }
    const stopProgress = ctx.watchIndex(root)
    let snippets
    try {
      // `{ signal }` is honoured by addons that accept it and ignored by the others.
      snippets = await ctx.engine.retrieve(request, { signal: ctx.signal })
    } finally {
      stopProgress()
    }
    const results = snippets.map((s) => {
      const r = { path: s.path, startLine: s.startLine ?? 1, endLine: s.endLine ?? s.startLine ?? 1, score: s.score, content: s.content }
      if (s.language) r.language = s.language
      return r
    })
    const text = results.length
      ? results.map((r) => `${r.path}:${r.startLine}-${r.endLine}  score ${r.score.toFixed(3)}\n${fence(r.content, r.language)}`).join('\n\n')
      : 'No matching code.'
    return { text, structured: { results } }
  },
}

const expandChunk = {
  name: 'expand_chunk',
  title: 'Expand a snippet',
  description:
    'Widen a snippet (for example one from search_code) to see the code around it: `contextLines` lines on each side, ' +
    'or with `structure: true` the whole enclosing function, method or class (TypeScript, JavaScript, Python, Rust, Go). ' +
    'Use it when a snippet is cut off or you need the surrounding definition. Returns the widened text (secrets redacted) and its line range.',
  inputSchema: {
    type: 'object',
    properties: {
      path: REL_PATH,
      startLine: { ...LINE, description: 'First line of the snippet, 1-based.' },
      endLine: { ...LINE, description: 'Last line of the snippet, inclusive.' },
      contextLines: { type: 'integer', minimum: 1, maximum: 1000, default: 10, description: 'Lines added on each side (1-1000). Default 10.' },
      structure: { type: 'boolean', default: false, description: 'Expand to the enclosing function, method or class instead. Default false.' },
      root: ROOT,
    },
    required: ['path', 'startLine', 'endLine'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string' },
      startLine: { type: 'integer' },
      endLine: { type: 'integer' },
      mode: { type: 'string', enum: ['lines', 'structure'] },
      blockKind: { type: 'string' },
      content: { type: 'string' },
    },
    required: ['path', 'startLine', 'endLine', 'mode', 'content'],
  },
  async handler(args, ctx) {
    if (args.startLine > args.endLine) throw invalid('startLine must be <= endLine')
    const root = await ctx.resolveRoot(args.root)
    const rel = resolveFile(root, args.path)
    const r = await ctx.engine.expandChunkDetailed(
      root,
      { content: '', filePath: rel, startLine: args.startLine, endLine: args.endLine },
      args.contextLines ?? 10,
      { mode: args.structure ? 'structure' : 'lines' },
    )
    if (!r.expanded) throw invalid(EXPAND_REASONS[r.reason] ?? 'file cannot be read')
    const structured = { path: rel, startLine: r.startLine, endLine: r.endLine, mode: r.mode, content: r.content }
    if (r.blockKind) structured.blockKind = r.blockKind
    const what = r.blockKind ? ` (${r.blockKind})` : ''
    return { text: `${rel}:${r.startLine}-${r.endLine}${what}\n${numbered(splitLines(r.content), r.startLine)}`, structured }
  },
}

const fileContext = {
  name: 'file_context',
  title: 'Read a file',
  description:
    'Read a file of a local repository, or a line range of it, as numbered lines with secrets redacted. ' +
    `Use it when you know which file you need (from search_code, an error or the user). At most ${MAX_FILE_LINES} lines per call: ` +
    'pass startLine/endLine to read further. Returns the lines, their range and whether more follow.',
  inputSchema: {
    type: 'object',
    properties: {
      path: REL_PATH,
      startLine: { ...LINE, description: 'First line to read, 1-based. Default 1.' },
      endLine: { ...LINE, description: `Last line to read, inclusive. Default: ${MAX_FILE_LINES - 1} lines after startLine (clamped to the file).` },
      root: ROOT,
    },
    required: ['path'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string' },
      startLine: { type: 'integer' },
      endLine: { type: 'integer' },
      moreAfter: { type: 'boolean' },
      content: { type: 'string' },
    },
    required: ['path', 'startLine', 'endLine', 'moreAfter', 'content'],
  },
  async handler(args, ctx) {
    const start = args.startLine ?? 1
    const askedEnd = args.endLine ?? start + MAX_FILE_LINES - 1
    if (start > askedEnd) throw invalid('startLine must be <= endLine')
    const end = Math.min(askedEnd, start + MAX_FILE_LINES - 1)
    const root = await ctx.resolveRoot(args.root)
    const rel = resolveFile(root, args.path)
    // The asked first line, widened by one line each side, then trimmed to the range: the
    // expansion reads (and redacts) the file through the engine's scoped cache.
    const r = await ctx.engine.expandChunkDetailed(root, { content: '', filePath: rel, startLine: start, endLine: start }, 1 + (end - start), { mode: 'lines' })
    if (!r.expanded) throw invalid(EXPAND_REASONS[r.reason] ?? 'file cannot be read')
    const all = splitLines(r.content)
    const lines = all.slice(start - r.startLine, start - r.startLine + (end - start + 1))
    const last = start + lines.length - 1
    const moreAfter = r.endLine > last
    const structured = { path: rel, startLine: start, endLine: last, moreAfter, content: lines.join('\n') }
    let text = `${rel}:${start}-${last}\n${numbered(lines, start)}`
    if (moreAfter) text += `\n[... more lines follow: call again with startLine ${last + 1} ...]`
    return { text, structured }
  },
}

const ENCODING = { type: 'string', enum: ['o200k_base', 'cl100k_base'], default: 'o200k_base', description: "BPE encoding: 'o200k_base' (GPT-4o, o-series; default) or 'cl100k_base' (GPT-4, GPT-3.5)." }

const countTokens = {
  name: 'count_tokens',
  title: 'Count tokens',
  description:
    'Count the exact BPE tokens of a text (o200k_base by default, or cl100k_base). Use it to check whether text fits a context budget before sending it on. Returns the count.',
  inputSchema: {
    type: 'object',
    properties: { text: { type: 'string', maxLength: 8 * 1024 * 1024, description: 'The text to count (at most 8 Mi characters).' }, encoding: ENCODING },
    required: ['text'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: { tokens: { type: 'integer' }, encoding: { type: 'string' } },
    required: ['tokens', 'encoding'],
  },
  async handler(args, ctx) {
    const encoding = args.encoding ?? 'o200k_base'
    const tokens = await ctx.addon.countTokens(args.text, encoding)
    return { text: `${tokens} tokens (${encoding})`, structured: { tokens, encoding } }
  },
}

const fitToBudget = {
  name: 'fit_to_budget',
  title: 'Fit sections to a token budget',
  description:
    'Shorten named text sections so that together they fit a token budget (exact o200k_base count): unchanged when they fit, otherwise ' +
    'each is cut in proportion to its size, keeping its head and marking removed lines with `...`. Use it to pack several pieces of context ' +
    '(files, diffs, notes) into a fixed budget. Returns the sections under the same names and, when anything was cut, what was cut.',
  inputSchema: {
    type: 'object',
    properties: {
      sections: {
        type: 'object',
        additionalProperties: { type: 'string' },
        minProperties: 1,
        maxProperties: 1000,
        description: 'The sections by name, e.g. { "diff": "...", "tests": "..." }.',
      },
      budget: { type: 'integer', minimum: 1, maximum: 10_000_000, description: 'Tokens the sections may use in total.' },
    },
    required: ['sections', 'budget'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      sections: { type: 'object', additionalProperties: { type: 'string' } },
      truncated: { type: 'boolean' },
      metadata: { type: 'object' },
    },
    required: ['sections', 'truncated'],
  },
  async handler(args, ctx) {
    if (Object.prototype.hasOwnProperty.call(args.sections, '_metadata')) throw invalid('sections must not have a section named _metadata')
    const fitted = await ctx.addon.fitToBudget(args.sections, args.budget)
    const sections = {}
    for (const k of Object.keys(args.sections)) sections[k] = fitted[k]
    const structured = { sections, truncated: Boolean(fitted._metadata) }
    if (fitted._metadata) structured.metadata = fitted._metadata
    const parts = Object.entries(sections).map(([k, v]) => `## ${k}\n${v}`)
    if (fitted._metadata) {
      const m = fitted._metadata
      parts.push(`[fitted to ${m.budget} tokens: ${m.tokens_before} -> ${m.tokens_after}; shortened: ${m.sections_affected.join(', ') || 'none'}]`)
    }
    return { text: parts.join('\n\n'), structured }
  },
}

// ---------------------------------------------------------------------------------------------
// build_context

function renderValue(key, value) {
  if (typeof value === 'string') return `## ${key}\n${value}`
  if (Array.isArray(value)) {
    return `## ${key}\n${value.map((c) => (c && c.hash ? `${c.hash.slice(0, 10)} ${c.date} ${c.author}: ${c.subject}` : JSON.stringify(c))).join('\n')}`
  }
  if (value && typeof value === 'object') {
    const entries = Object.entries(value)
    if (entries.every(([, v]) => typeof v === 'string')) {
      return `## ${key}\n${entries.map(([p, v]) => `### ${p}\n${fence(v)}`).join('\n\n') || '(none)'}`
    }
    return `## ${key}\n${JSON.stringify(value, null, 2)}`
  }
  return `## ${key}\n${String(value)}`
}

const ISSUE = {
  type: 'object',
  properties: {
    number: { type: 'integer', minimum: 1 },
    title: { type: 'string', maxLength: 65536 },
    body: { type: 'string', maxLength: 1048576 },
    labels: { type: 'array', items: { type: 'string', maxLength: 1024 }, maxItems: 1000 },
    state: { type: 'string', maxLength: 64 },
    url: { type: 'string', maxLength: 4096 },
  },
  required: ['number', 'title'],
  additionalProperties: false,
  description: "For kind 'issue': the GitHub issue (number, title, body, labels...).",
}

const BUILD_KINDS = {
  implementation: {
    needs: ['taskFile'],
    run: async (a, root, ctx) => {
      resolveFile(root, a.taskFile)
      return ctx.addon.buildImplementationContext(a.taskFile, root)
    },
  },
  review: { needs: [], run: (a, root, ctx) => ctx.addon.buildReviewContext(root, a.baseBranch ?? 'main') },
  fix: {
    needs: ['validationOutput'],
    run: (a, root, ctx) => ctx.addon.buildFixContext(a.validationOutput, a.files ?? [], root),
  },
  issue: { needs: ['issue'], run: (a, root, ctx) => ctx.addon.buildIssueContext(a.issue, root) },
}
const KIND_FIELDS = { taskFile: 'implementation', baseBranch: 'review', validationOutput: 'fix', files: 'fix', issue: 'issue' }

const buildContext = {
  name: 'build_context',
  title: 'Build an agent prompt context',
  description:
    "Assemble the standard context for a coding task in a local git repository. kind 'implementation' (needs taskFile): the task file, " +
    "the conventions (CLAUDE.md, AGENTS.md), branch and recent commits. kind 'review' (baseBranch, default 'main'): the diff from the merge base, " +
    "the changed files and conventions. kind 'fix' (needs validationOutput, optional files): the parsed errors of tsc/eslint/cargo/pytest/mypy/ruff " +
    "output and the source around each error. kind 'issue' (needs issue): the issue, the files it mentions and their recent commits. " +
    'Use it at the start of such a task. Returns the sections as text and as an object (secrets redacted); `metadata` lists anything truncated, missing or suspicious.',
  inputSchema: {
    type: 'object',
    properties: {
      kind: { type: 'string', enum: ['implementation', 'review', 'fix', 'issue'], description: 'Which context to build.' },
      taskFile: { type: 'string', minLength: 1, maxLength: 4096, description: "For kind 'implementation': the task file, relative to the root." },
      baseBranch: { type: 'string', minLength: 1, maxLength: 256, description: "For kind 'review': the branch to diff against. Default 'main'." },
      validationOutput: { type: 'string', maxLength: 8 * 1024 * 1024, description: "For kind 'fix': the raw output of the failing tools." },
      files: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 4096 }, maxItems: 1000, description: "For kind 'fix': files to include besides those the errors name." },
      issue: ISSUE,
      root: ROOT,
    },
    required: ['kind'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      kind: { type: 'string' },
      sections: { type: 'object' },
      metadata: { type: 'object' },
    },
    required: ['kind', 'sections'],
  },
  async handler(args, ctx) {
    const kind = BUILD_KINDS[args.kind]
    for (const need of kind.needs) if (args[need] === undefined) throw invalid(`${need} is required for kind '${args.kind}'`)
    for (const [field, owner] of Object.entries(KIND_FIELDS)) {
      if (args[field] !== undefined && owner !== args.kind) throw invalid(`${field} applies only to kind '${owner}'`)
    }
    const root = await ctx.resolveRoot(args.root)
    // The builders report suspected secrets in `_metadata.warnings` but return the text as is.
    const { value: result } = await redactDeep(ctx.addon, await kind.run(args, root, ctx))
    const sections = {}
    for (const [k, v] of Object.entries(result)) if (k !== '_metadata') sections[k] = v
    const structured = { kind: args.kind, sections }
    if (result._metadata) structured.metadata = result._metadata
    const parts = Object.entries(sections).map(([k, v]) => renderValue(k, v))
    if (result._metadata) parts.push(renderValue('metadata', result._metadata))
    return { text: parts.join('\n\n'), structured }
  },
}

// ---------------------------------------------------------------------------------------------
// Remote tools: listed only when the environment configures a server.

/**
 * Remote file providers, in order: the first configured one is the default. A provider is
 * offered when its variable is set and the addon supports it (`supported`); its `config` is
 * passed to `remoteFileContext`.
 */
const PROVIDERS = [
  { name: 'gitea', env: 'GITEA_URL', config: {}, supported: () => true },
  { name: 'github', env: 'GITHUB_TOKEN', config: { provider: 'github' }, supported: (addon) => addonSupportsProvider(addon, 'github') },
]

/**
 * Whether `remoteFileContext` knows `provider`, without calling it: from an exported list
 * (`remoteProviders`) when the addon has one, else from the shipped type declarations.
 */
function addonSupportsProvider(addon, provider) {
  if (Array.isArray(addon.remoteProviders)) return addon.remoteProviders.includes(provider)
  try {
    const dts = fs.readFileSync(path.join(__dirname, '..', 'index.d.ts'), 'utf8')
    const m = /interface RemoteFileContextConfig \{([\s\S]*?)\n\}/.exec(dts)
    return Boolean(m && new RegExp(`provider\\??:[^\\n]*'${provider}'`).test(m[1]))
  } catch {
    return false
  }
}

function configuredProviders(addon, env) {
  return PROVIDERS.filter((p) => typeof env[p.env] === 'string' && env[p.env].trim() !== '' && p.supported(addon))
}

function remoteFileContextTool(providers) {
  const names = providers.map((p) => p.name)
  return {
    name: 'remote_file_context',
    title: 'Read lines of a remote file',
    description:
      `Read a window of lines of a file in a repository on a code host (${names.join(', ')}), numbered, with a web link to the exact ref, secrets redacted. ` +
      'Use it for code that is not checked out locally, e.g. a file named in a stack trace, a review or hound_search. ' +
      'Returns the lines around `line` (`context` on each side), their range, the ref served and the link.',
    inputSchema: {
      type: 'object',
      properties: {
        repo: { type: 'string', minLength: 3, maxLength: 512, description: 'Repository as owner/name.' },
        file: { type: 'string', minLength: 1, maxLength: 4096, description: 'Path of the file in the repository.' },
        line: { ...LINE, description: 'The line to centre on, 1-based.' },
        context: { type: 'integer', minimum: 0, maximum: 1000, default: 10, description: 'Lines on each side (0-1000). Default 10.' },
        ref: { type: 'string', minLength: 1, maxLength: 256, description: "Branch, tag or full commit SHA. Default: the repository's default branch." },
        provider: { type: 'string', enum: names, default: names[0], description: `Which code host. Default '${names[0]}'.` },
      },
      required: ['repo', 'file', 'line'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        repo: { type: 'string' },
        file: { type: 'string' },
        line: { type: 'integer' },
        startLine: { type: 'integer' },
        endLine: { type: 'integer' },
        ref: { type: 'string' },
        refKind: { type: 'string' },
        url: { type: 'string' },
        source: { type: 'string' },
        content: { type: 'string' },
        warnings: { type: 'array', items: { type: 'string' } },
      },
      required: ['repo', 'file', 'line', 'startLine', 'endLine', 'ref', 'url', 'content'],
    },
    async handler(args, ctx) {
      const provider = providers.find((p) => p.name === (args.provider ?? names[0]))
      const request = { repo: args.repo, file: args.file, line: args.line }
      if (args.context !== undefined) request.context = args.context
      if (args.ref !== undefined) request.ref = args.ref
      const r = await ctx.addon.remoteFileContext(request, { ...provider.config })
      const structured = {
        repo: r.repo,
        file: r.file,
        line: r.line,
        startLine: r.startLine,
        endLine: r.endLine,
        ref: r.ref,
        refKind: r.refKind,
        url: r.url,
        source: r.source,
        content: r.lines.join('\n'),
        warnings: r.warnings,
      }
      let text = `${r.repo}:${r.file}:${r.startLine}-${r.endLine} @ ${r.ref} (${r.source})\n${r.url}\n${r.content}`
      if (r.warnings.length) text += `\n[${r.warnings.join('; ')}]`
      return { text, structured }
    },
  }
}

const MAX_HOUND_LINES = 500

const houndSearch = {
  name: 'hound_search',
  title: 'Search all indexed repositories',
  description:
    'Regular-expression (or literal) search over every repository indexed by the configured Hound server, across the organisation, not just the local checkout. ' +
    'Use it to find usages, definitions or examples in other repositories; follow up with remote_file_context to read around a match. ' +
    `Returns matching lines as repo:path:line with optional context lines (at most ${MAX_HOUND_LINES} lines in all), secrets redacted.`,
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1, maxLength: 4096, description: 'A regular expression (RE2 syntax), or plain text with literal: true.' },
      literal: { type: 'boolean', default: false, description: 'Match the query as plain text. Default false.' },
      ignoreCase: { type: 'boolean', default: false, description: 'Case-insensitive. Default false.' },
      repos: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 256 }, minItems: 1, maxItems: 1000, description: 'Only these repositories (Hound names). Default: all.' },
      files: { type: 'string', minLength: 1, maxLength: 4096, description: 'Only paths matching this regular expression.' },
      excludeFiles: { type: 'string', minLength: 1, maxLength: 4096, description: 'Leave out paths matching this regular expression.' },
      context: { type: 'integer', minimum: 0, maximum: 20, description: "Lines of context on each side (0-20). Default: the server's, 2." },
      limit: { type: 'integer', minimum: 1, maximum: 100000, description: "Matches per repository at most. Default: the server's limit." },
    },
    required: ['query'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      matches: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            repo: { type: 'string' },
            path: { type: 'string' },
            line: { type: 'integer' },
            text: { type: 'string' },
            before: { type: 'array', items: { type: 'string' } },
            after: { type: 'array', items: { type: 'string' } },
          },
          required: ['repo', 'path', 'line', 'text'],
        },
      },
      truncated: { type: 'boolean' },
    },
    required: ['matches', 'truncated'],
  },
  async handler(args, ctx) {
    const options = {}
    for (const k of ['literal', 'ignoreCase', 'repos', 'files', 'excludeFiles', 'context', 'limit']) if (args[k] !== undefined) options[k] = args[k]
    const result = (await redactDeep(ctx.addon, await new ctx.addon.HoundClient().search(args.query, options))).value
    const matches = []
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
          const entry = { repo, path: f.filename, line: m.lineNumber, text: m.line }
          if (m.before.length || m.after.length) Object.assign(entry, { before: m.before, after: m.after })
          matches.push(entry)
        }
      }
    }
    const text = matches.length
      ? matches
          .map((m) => {
            if (!m.before && !m.after) return `${m.repo}:${m.path}:${m.line}: ${m.text}`
            const b = m.before.map((l, i) => `${m.repo}:${m.path}:${m.line - m.before.length + i}- ${l}`)
            const a = m.after.map((l, i) => `${m.repo}:${m.path}:${m.line + 1 + i}- ${l}`)
            return [...b, `${m.repo}:${m.path}:${m.line}: ${m.text}`, ...a].join('\n')
          })
          .join('\n') + (truncated ? '\n[... more matches: narrow the query, repos or files ...]' : '')
      : 'No matches.'
    return { text, structured: { matches, truncated } }
  },
}

/** The tools this server lists, given the addon and the environment. */
function toolsFor(addon, env) {
  const tools = [searchCode, expandChunk, fileContext, countTokens, fitToBudget, buildContext]
  const providers = configuredProviders(addon, env)
  if (providers.length) tools.push(remoteFileContextTool(providers))
  if (typeof env.HOUND_URL === 'string' && env.HOUND_URL.trim() !== '') tools.push(houndSearch)
  return tools
}

module.exports = { toolsFor, resolveFile, relativeInside, PROVIDERS, addonSupportsProvider }
