// hound-mcp's start-up, measured (run by hand, never in CI; numbers go into BENCHMARKS.md).
//
//   npx napi build --platform --release
//   npm run bench:hound-startup -- DATA_DIR [DATA_DIR...]
//
// A DATA_DIR is a directory whose subdirectories are repositories (checked-out trees); each is
// indexed as one repository, named by its folder. hound-mcp, on start-up, fetches every
// repository's source files from its code host and indexes their symbols before it can answer
// `hound_search_symbol`; here the files come from disk, the same way for every column.
//
// Columns, each a fresh Node process (this script with --scenario), RUNS rounds (env
// BENCH_RUNS, default 3) in alternating order, medians:
// - web-tree-sitter, what hound-mcp's indexer does (src/indexer/parser.ts): one WASM grammar
//   per language loaded up front, then per file a parse and its per-language tree-sitter
//   queries (compiled once per language here; hound-mcp compiles them again for every file,
//   see --as-written), each name's declaration, first-line signature and enclosing class, into
//   one array; ready when its first search (hound-mcp's wildcard regex over the array) answers.
// - SymbolIndex cold: an empty cache directory, every repository's files handed to
//   `indexFiles` (in calls of at most 4 Mi characters: `indexFiles`, then `updateFiles`), on
//   the default threads and on one; ready when its first `search` answers; `flush()` then
//   waits for the cache files.
// - SymbolIndex restart: the cache directory the cold run left, the same files handed in
//   again (hound-mcp re-fetches everything on start-up): nothing is parsed or written.
// - SymbolIndex restart, load only: the cache directory, no files handed in; ready at the
//   first search. Its memory column is the loaded index's.
//
// Same files on both sides: hound-mcp's extensions whose grammar both sides have (.ts .tsx .js
// .jsx .mjs .cjs .py .pyw .go .rs .sol .cs; bash is left out: @repomix/tree-sitter-wasms has
// no bash grammar), at most 4 MiB each. Memory, after a garbage collection: the process's
// resident set growth from start to ready (module, grammars, index), and the index's: from
// after the module and grammars are loaded to ready (glibc may keep freed pages, so these are
// upper bounds).
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { cpus, loadavg, tmpdir } from 'node:os'
import { basename, extname, join } from 'node:path'

const ROOT = join(__dirname, '..')
const MAX_FILE = 4 * 1024 * 1024
const CHARS_PER_CALL = 4 * 1024 * 1024

// Extension -> [hound-mcp's language, @repomix/tree-sitter-wasms grammar file].
const EXTS: Record<string, [string, string]> = {
  '.ts': ['typescript', 'typescript'],
  '.tsx': ['typescript', 'tsx'],
  '.js': ['javascript', 'javascript'],
  '.jsx': ['javascript', 'javascript'],
  '.mjs': ['javascript', 'javascript'],
  '.cjs': ['javascript', 'javascript'],
  '.py': ['python', 'python'],
  '.pyw': ['python', 'python'],
  '.go': ['go', 'go'],
  '.rs': ['rust', 'rust'],
  '.sol': ['solidity', 'solidity'],
  '.cs': ['csharp', 'c_sharp'],
}

type Repo = { name: string; files: { path: string; abs: string }[] }

function listRepos(dataDirs: string[]): Repo[] {
  const repos: Repo[] = []
  for (const data of dataDirs) {
    for (const name of readdirSync(data).sort()) {
      const root = join(data, name)
      if (!statSync(root).isDirectory()) continue
      const files: Repo['files'] = []
      const walk = (dir: string, rel: string) => {
        for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
          const abs = join(dir, entry.name)
          const r = rel ? `${rel}/${entry.name}` : entry.name
          if (entry.isDirectory()) {
            if (entry.name !== '.git') walk(abs, r)
          } else if (entry.isFile() && EXTS[extname(entry.name).toLowerCase()] && statSync(abs).size <= MAX_FILE) {
            files.push({ path: r, abs })
          }
        }
      }
      walk(root, '')
      repos.push({ name: `bench/${basename(root)}`, files })
    }
  }
  return repos
}

type Read = { repo: string; files: { path: string; content: string }[] }[]

function readAll(repos: Repo[]): Read {
  return repos.map((r) => ({ repo: r.name, files: r.files.map((f) => ({ path: f.path, content: readFileSync(f.abs, 'utf8') })) }))
}

function gc(): void {
  ;(globalThis as { gc?: () => void }).gc?.()
}

const mb = (bytes: number) => bytes / (1024 * 1024)

// ---------------------------------------------------------------- web-tree-sitter, as hound-mcp

// The few web-tree-sitter calls used, typed locally (its own typings need @types/emscripten).
type Point = { row: number; column: number }
interface TsNode {
  type: string
  text: string
  startPosition: Point
  endPosition: Point
  parent: TsNode | null
  children: TsNode[]
  childForFieldName(name: string): TsNode | null
  descendantsOfType(types: string | string[]): TsNode[]
}
interface TsTree {
  rootNode: TsNode
  delete(): void
}
interface TsLanguage {}
interface TsParser {
  setLanguage(language: TsLanguage): void
  parse(text: string): TsTree | null
  delete(): void
}
interface TsQuery {
  captures(node: TsNode): { name: string; node: TsNode }[]
  delete(): void
}
type WebTreeSitter = {
  Parser: { init(): Promise<void>; new (): TsParser }
  Language: { load(path: string): Promise<TsLanguage> }
  Query: new (language: TsLanguage, source: string) => TsQuery
}

// hound-mcp's query patterns (src/indexer/parser.ts), per language.
const P = (query: string, kind: string) => ({ query, kind })
const TS = [
  P('(function_declaration name: (identifier) @name) @func', 'function'),
  P('(lexical_declaration (variable_declarator name: (identifier) @name value: (arrow_function))) @func', 'function'),
  P('(class_declaration name: (type_identifier) @name) @class', 'class'),
  P('(abstract_class_declaration name: (type_identifier) @name) @class', 'class'),
  P('(method_definition name: (property_identifier) @name) @method', 'method'),
  P('(interface_declaration name: (type_identifier) @name) @interface', 'interface'),
  P('(type_alias_declaration name: (type_identifier) @name) @type', 'type'),
  P('(enum_declaration name: (identifier) @name) @enum', 'type'),
]
const PATTERNS: Record<string, { query: string; kind: string }[]> = {
  typescript: TS,
  javascript: [
    P('(function_declaration name: (identifier) @name) @func', 'function'),
    P('(lexical_declaration (variable_declarator name: (identifier) @name value: (arrow_function))) @func', 'function'),
    P('(class_declaration name: (identifier) @name) @class', 'class'),
    P('(method_definition name: (property_identifier) @name) @method', 'method'),
  ],
  python: [P('(function_definition name: (identifier) @name) @func', 'function'), P('(class_definition name: (identifier) @name) @class', 'class')],
  go: [
    P('(function_declaration name: (identifier) @name) @func', 'function'),
    P('(method_declaration name: (field_identifier) @name) @method', 'method'),
    P('(type_declaration (type_spec name: (type_identifier) @name type: (struct_type))) @struct', 'class'),
    P('(type_declaration (type_spec name: (type_identifier) @name type: (interface_type))) @interface', 'interface'),
  ],
  rust: [
    P('(function_item name: (identifier) @name) @func', 'function'),
    P('(struct_item name: (type_identifier) @name) @struct', 'class'),
    P('(enum_item name: (type_identifier) @name) @enum', 'type'),
    P('(trait_item name: (type_identifier) @name) @trait', 'interface'),
    P('(impl_item (declaration_list (function_item name: (identifier) @name))) @method', 'method'),
  ],
  solidity: [
    P('(contract_declaration name: (identifier) @name) @contract', 'class'),
    P('(interface_declaration name: (identifier) @name) @interface', 'interface'),
    P('(function_definition name: (identifier) @name) @func', 'function'),
    P('(event_definition name: (identifier) @name) @event', 'type'),
    P('(struct_declaration name: (identifier) @name) @struct', 'type'),
    P('(modifier_definition name: (identifier) @name) @modifier', 'function'),
  ],
  csharp: [
    P('(class_declaration name: (identifier) @name) @class', 'class'),
    P('(interface_declaration name: (identifier) @name) @interface', 'interface'),
    P('(method_declaration name: (identifier) @name) @method', 'method'),
    P('(struct_declaration name: (identifier) @name) @struct', 'class'),
    P('(enum_declaration name: (identifier) @name) @enum', 'type'),
    P('(property_declaration name: (identifier) @name) @property', 'variable'),
  ],
}

type HoundSymbol = {
  name: string
  kind: string
  line: number
  endLine: number
  column: number
  file: string
  repo: string
  signature?: string
  scope?: string
  language: string
}

function findParentDeclaration(node: TsNode): TsNode | null {
  for (let n: TsNode | null = node; n; n = n.parent) {
    const t = n.type
    if (t.includes('declaration') || t.includes('definition') || t === 'method_definition' || t === 'type_spec') return n
  }
  return null
}

function extractSignature(node: TsNode, language: string): string | undefined {
  let sig = node.text.split('\n')[0].trim()
  if (language === 'typescript' || language === 'javascript') sig = sig.replace(/\s*\{.*$/, '')
  if (language === 'python') sig = sig.replace(/:$/, '')
  if (sig.length > 100) sig = sig.slice(0, 97) + '...'
  return sig.length > 0 ? sig : undefined
}

function findScope(node: TsNode, language: string): string | undefined {
  for (let n = node.parent; n; n = n.parent) {
    if (n.type === 'class_declaration' || n.type === 'class_definition') {
      for (const c of n.children) if (c.type === 'type_identifier' || c.type === 'identifier') return c.text
    }
    if (language === 'go' && n.type === 'method_declaration') {
      const receiver = n.childForFieldName('receiver')
      const types = receiver?.descendantsOfType('type_identifier') ?? []
      if (types.length > 0) return types[0].text
    }
  }
  return undefined
}

// hound-mcp's search: the wildcard as an anchored case-insensitive regex over every symbol,
// exact names first, then by name.
function houndSearch(symbols: HoundSymbol[], name: string, limit: number) {
  const re = new RegExp('^' + name.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.') + '$', 'i')
  const repos = new Set<string>()
  const matches = symbols.filter((s) => {
    repos.add(s.repo)
    return re.test(s.name)
  })
  const exact = name.toLowerCase()
  matches.sort((a, b) => {
    const ae = a.name.toLowerCase() === exact
    const be = b.name.toLowerCase() === exact
    if (ae !== be) return ae ? -1 : 1
    return a.name.localeCompare(b.name)
  })
  return { results: matches.slice(0, limit), totalMatches: matches.length, reposSearched: repos.size }
}

async function webTreeSitter(repos: Repo[], asWritten: boolean): Promise<Record<string, number>> {
  const t0 = performance.now()
  const wts = createRequire(__filename)('web-tree-sitter') as WebTreeSitter
  await wts.Parser.init()
  const wasmDir = join(ROOT, 'node_modules/@repomix/tree-sitter-wasms/out')
  const grammars = new Map<string, TsLanguage>()
  for (const [, wasm] of Object.values(EXTS)) {
    if (!grammars.has(wasm)) grammars.set(wasm, await wts.Language.load(join(wasmDir, `tree-sitter-${wasm}.wasm`)))
  }
  const queries = new Map<string, { query: TsQuery | null; kind: string }[]>()
  const compile = (wasm: string, language: string) =>
    PATTERNS[language].map((p) => {
      try {
        return { query: new wts.Query(grammars.get(wasm)!, p.query), kind: p.kind }
      } catch {
        return { query: null, kind: p.kind } // hound-mcp skips a pattern its grammar refuses
      }
    })
  const tInit = performance.now()
  gc()
  const rss1 = process.memoryUsage().rss
  let readMs = 0
  const symbols: HoundSymbol[] = []
  const shared = asWritten ? null : new wts.Parser()
  for (const repo of repos) {
    const tr = performance.now()
    const files = repo.files.map((f) => ({ path: f.path, content: readFileSync(f.abs, 'utf8') }))
    readMs += performance.now() - tr
    for (const f of files) {
      const [language, wasm] = EXTS[extname(f.path).toLowerCase()]
      const parser = shared ?? new wts.Parser()
      parser.setLanguage(grammars.get(wasm)!)
      const tree = parser.parse(f.content)
      if (!tree) continue
      let patterns = asWritten ? compile(wasm, language) : queries.get(wasm)
      if (!patterns) queries.set(wasm, (patterns = compile(wasm, language)))
      for (const { query, kind } of patterns) {
        if (!query) continue
        for (const c of query.captures(tree.rootNode)) {
          if (c.name !== 'name') continue
          const node = c.node
          const parent = findParentDeclaration(node)
          symbols.push({
            name: node.text,
            kind,
            line: node.startPosition.row + 1,
            endLine: (parent?.endPosition.row ?? node.endPosition.row) + 1,
            column: node.startPosition.column,
            file: f.path,
            repo: repo.name,
            signature: parent ? extractSignature(parent, language) : undefined,
            scope: findScope(node, language),
            language,
          })
        }
        if (asWritten) query.delete()
      }
      tree.delete()
      if (asWritten) parser.delete()
    }
  }
  const first = houndSearch(symbols, 'get*', 20)
  const ready = performance.now()
  shared?.delete()
  gc()
  const indexMb = mb(process.memoryUsage().rss - rss1)
  return { initMs: tInit - t0, readMs, readyMs: ready - t0, symbols: symbols.length, matches: first.totalMatches, indexMb }
}

// ---------------------------------------------------------------- SymbolIndex

type Index = import('../lib/index.js').SymbolIndex

async function handIn(index: Index, read: Read): Promise<{ files: number; symbols: number; parsed: number }> {
  const total = { files: 0, symbols: 0, parsed: 0 }
  for (const { repo, files } of read) {
    let batch: typeof files = []
    let chars = 0
    let first = true
    const send = async () => {
      const r = first ? await index.indexFiles(repo, batch) : await index.updateFiles(repo, batch)
      first = false
      total.files += r.files
      total.symbols += r.symbols
      total.parsed += r.parsed
      batch = []
      chars = 0
    }
    for (const f of files) {
      if (batch.length > 0 && chars + f.content.length > CHARS_PER_CALL) await send()
      batch.push(f)
      chars += f.content.length
    }
    if (batch.length > 0 || first) await send()
  }
  return total
}

async function native(repos: Repo[], cacheDir: string, threads: number | undefined, handFiles: boolean): Promise<Record<string, number>> {
  const t0 = performance.now()
  const { SymbolIndex } = require('../lib/index.js') as typeof import('../lib/index.js')
  const index = new SymbolIndex({ cacheDir, threads })
  const tInit = performance.now()
  gc()
  const rss1 = process.memoryUsage().rss
  let readMs = 0
  let counts = { files: 0, symbols: 0, parsed: 0 }
  if (handFiles) {
    const tr = performance.now()
    const read = readAll(repos)
    readMs = performance.now() - tr
    counts = await handIn(index, read)
  }
  const first = await index.search({ name: 'get*' })
  const ready = performance.now()
  await index.flush()
  const saved = performance.now()
  const symbols = index.repos().reduce((n, r) => n + r.symbols, 0)
  gc()
  const indexMb = mb(process.memoryUsage().rss - rss1)
  const cacheMb = mb(readdirSync(cacheDir).reduce((n, f) => n + statSync(join(cacheDir, f)).size, 0))
  return { initMs: tInit - t0, readMs, readyMs: ready - t0, savedMs: saved - t0, symbols, parsed: counts.parsed, files: counts.files, matches: first.totalMatches, indexMb, cacheMb }
}

// ---------------------------------------------------------------- driver

async function scenario(name: string, dataDirs: string[], cacheDir: string): Promise<void> {
  const repos = listRepos(dataDirs)
  gc()
  const rss0 = process.memoryUsage().rss
  const heap0 = process.memoryUsage().heapUsed
  let out: Record<string, number>
  if (name === 'wts') out = await webTreeSitter(repos, false)
  else if (name === 'wts-as-written') out = await webTreeSitter(repos, true)
  else if (name === 'cold') out = await native(repos, cacheDir, undefined, true)
  else if (name === 'cold-1') out = await native(repos, cacheDir, 1, true)
  else if (name === 'restart') out = await native(repos, cacheDir, undefined, true)
  else if (name === 'load') out = await native(repos, cacheDir, undefined, false)
  else throw new Error(`unknown scenario ${name}`)
  gc()
  out.rssMb = mb(process.memoryUsage().rss - rss0)
  out.heapMb = mb(process.memoryUsage().heapUsed - heap0)
  process.stdout.write(JSON.stringify(out) + '\n')
}

function run(name: string, dataDirs: string[], cacheDir: string): Record<string, number> {
  const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', __filename, '--scenario', name, '--cache', cacheDir, ...dataDirs], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  })
  return JSON.parse(out.trim().split('\n').pop()!)
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]
}

async function main(): Promise<void> {
  const args = process.argv.slice(2)
  const at = args.indexOf('--scenario')
  if (at >= 0) {
    const cache = args[args.indexOf('--cache') + 1]
    const dirs = args.filter((a, i) => !a.startsWith('--') && i !== at + 1 && i !== args.indexOf('--cache') + 1)
    return scenario(args[at + 1], dirs, cache)
  }
  const asWritten = args.includes('--as-written')
  const dataDirs = args.filter((a) => !a.startsWith('--'))
  if (dataDirs.length === 0) throw new Error('usage: hound-startup.bench.ts DATA_DIR [DATA_DIR...] [--as-written]')
  const repos = listRepos(dataDirs)
  const read = readAll(repos)
  const files = read.reduce((n, r) => n + r.files.length, 0)
  const bytes = read.reduce((n, r) => n + r.files.reduce((m, f) => m + Buffer.byteLength(f.content), 0), 0)
  const perLang = new Map<string, number>()
  for (const r of repos) for (const f of r.files) perLang.set(EXTS[extname(f.path).toLowerCase()][0], (perLang.get(EXTS[extname(f.path).toLowerCase()][0]) ?? 0) + 1)
  const runs = Number(process.env.BENCH_RUNS ?? 3)
  console.log(`${repos.length} repositories (${repos.map((r) => `${r.name.slice(6)} ${r.files.length}`).join(', ')})`)
  console.log(`${files} files, ${(bytes / 1e6).toFixed(2)} MB (${[...perLang].map(([l, n]) => `${l} ${n}`).join(', ')}); ${cpus().length} CPUs; node ${process.version}; load ${loadavg()[0].toFixed(1)}; ${runs} runs, median`)

  const scratch = mkdtempSync(join(tmpdir(), 'hound-startup-'))
  const results: Record<string, Record<string, number>[]> = {}
  const push = (k: string, v: Record<string, number>) => (results[k] ??= []).push(v)
  try {
    for (let i = 0; i < runs; i++) {
      const cold = join(scratch, `cold-${i}`)
      const cold1 = join(scratch, `cold1-${i}`)
      const order = i % 2 === 0 ? ['wts', 'native'] : ['native', 'wts']
      for (const side of order) {
        if (side === 'wts') {
          push('wts', run('wts', dataDirs, scratch))
          if (asWritten && i === 0) push('wts-as-written', run('wts-as-written', dataDirs, scratch))
        } else {
          push('cold', run('cold', dataDirs, cold))
          push('cold-1', run('cold-1', dataDirs, cold1))
          push('restart', run('restart', dataDirs, cold))
          push('load', run('load', dataDirs, cold))
        }
      }
      rmSync(cold1, { recursive: true, force: true })
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
  const m = (k: string, f: string) => median(results[k].map((r) => r[f]))
  const wts = m('wts', 'readyMs')
  const label: Record<string, string> = {
    wts: 'web-tree-sitter as hound-mcp, cold (queries compiled once per language)',
    'wts-as-written': 'web-tree-sitter as hound-mcp as written (a parser and queries per file), cold, 1 run',
    cold: 'SymbolIndex cold, default threads',
    'cold-1': 'SymbolIndex cold, threads: 1',
    restart: 'SymbolIndex restart, nothing changed, files handed in again',
    load: 'SymbolIndex restart, load only (no files handed in)',
  }
  console.log('')
  console.log('| start-up | ready to search | of which reading files | cache written | files parsed | symbols | RSS growth: process / index | vs web-tree-sitter cold |')
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |')
  for (const k of ['wts', 'wts-as-written', 'cold', 'cold-1', 'restart', 'load']) {
    if (!results[k]) continue
    const ready = m(k, 'readyMs')
    const saved = k.startsWith('wts') ? '-' : `${m(k, 'savedMs').toFixed(0)} ms`
    const parsed = k.startsWith('wts') ? files : m(k, 'parsed')
    console.log(
      `| ${label[k]} | ${ready.toFixed(0)} ms | ${m(k, 'readMs').toFixed(0)} ms | ${saved} | ${parsed} | ${m(k, 'symbols')} | ${m(k, 'rssMb').toFixed(0)} / ${m(k, 'indexMb').toFixed(0)} MB | ${(wts / ready).toFixed(1)}x |`,
    )
  }
  console.log(`cache directory: ${m('cold', 'cacheMb').toFixed(1)} MB`)
  const t1 = m('cold-1', 'readyMs') - m('cold-1', 'readMs')
  const t2 = m('cold', 'readyMs') - m('cold', 'readMs')
  const serial = Math.min(1, Math.max(0, (2 * t2) / t1 - 1))
  console.log('')
  const t16 = t1 * (serial + (1 - serial) / 16)
  console.log(
    `scaling (cold, reading excluded): 1 thread ${t1.toFixed(0)} ms, ${cpus().length} threads ${t2.toFixed(0)} ms (${(t1 / t2).toFixed(2)}x); ` +
      `serial share by Amdahl ${(serial * 100).toFixed(0)}% -> 16 threads about ${t16.toFixed(0)} ms (${(t1 / t16).toFixed(1)}x)`,
  )
  console.log(`raw: ${JSON.stringify(results)}`)
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
