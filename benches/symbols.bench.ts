// Symbol indexing benchmark (run by hand, never in CI; numbers go into BENCHMARKS.md).
//
//   npx napi build --platform --release && npm run bench:symbols
//
// The same files, in one run, indexed two ways:
// 1. `SymbolIndex.indexFiles` (native tree-sitter, the registry's grammars, files parsed on up
//    to `available_parallelism` threads), and the same with one thread (files handed in
//    batches of 7, which the core parses sequentially).
// 2. web-tree-sitter (WASM) with the same grammar versions (`@repomix/tree-sitter-wasms`,
//    built by tree-sitter-cli 0.26 from tree-sitter-rust 0.24, -python 0.25, -typescript 0.23,
//    -javascript 0.25, -c 0.24), walking each tree for the definition kinds the registry
//    uses, reading each name (`childForFieldName('name')`), the way hound-mcp's indexer does.
//
// Corpus: real files already on the machine, in sorted path order: Rust (tokio, regex,
// serde, this repository), Python (the standard library's asyncio, email, json, http),
// TypeScript (this repository, @napi-rs/cli sources), JavaScript (web-tree-sitter's own
// sources) and C (the tree-sitter runtime). Files over 512 KiB are skipped. BENCH_RUNS
// (default 5) runs each; the median is reported.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { homedir, cpus } from 'node:os'
import { extname, join } from 'node:path'

import { createRequire } from 'node:module'

import { SymbolIndex } from '../lib/index.js'

// web-tree-sitter's own typings need @types/emscripten; the few calls used here are typed
// locally instead.
type Point = { row: number; column: number }
interface Node {
  type: string
  text: string
  startPosition: Point
  endPosition: Point
  childForFieldName(name: string): Node | null
  walk(): Cursor
}
interface Cursor {
  currentNode: Node
  gotoFirstChild(): boolean
  gotoNextSibling(): boolean
  gotoParent(): boolean
  delete(): void
}
interface Tree {
  rootNode: Node
  delete(): void
}
interface Language {}
interface Parser {
  setLanguage(language: Language): void
  parse(text: string): Tree | null
}
const { Parser, Language } = createRequire(__filename)('web-tree-sitter') as {
  Parser: { init(): Promise<void>; new (): Parser }
  Language: { load(path: string): Promise<Language> }
}

const ROOT = join(__dirname, '..')
const CARGO = join(homedir(), '.cargo/registry/src')
const cargoCrate = (prefix: string, sub = 'src') => {
  try {
    for (const dir of readdirSync(CARGO).map((d) => join(CARGO, d))) {
      const hit = readdirSync(dir).filter((c) => c.startsWith(prefix)).sort().pop()
      if (hit) return join(dir, hit, sub)
    }
  } catch {}
  return ''
}
const PY = '/root/.pyenv/versions/3.11.7/lib/python3.11'

const CORPUS: Record<string, { exts: string[]; dirs: string[]; wasm: string }> = {
  rust: {
    exts: ['.rs'],
    dirs: [cargoCrate('tokio-1'), cargoCrate('regex-automata'), cargoCrate('serde-1'), join(ROOT, 'src'), join(ROOT, 'crates/core/src')],
    wasm: 'rust',
  },
  python: { exts: ['.py'], dirs: [join(PY, 'asyncio'), join(PY, 'email'), join(PY, 'json'), join(PY, 'http')], wasm: 'python' },
  typescript: { exts: ['.ts'], dirs: [join(ROOT, '__test__'), join(ROOT, 'benches'), join(ROOT, 'node_modules/@napi-rs/cli/src')], wasm: 'typescript' },
  javascript: { exts: ['.js', '.mjs', '.cjs'], dirs: [join(ROOT, 'node_modules/web-tree-sitter'), join(ROOT, 'bin')], wasm: 'javascript' },
  c: { exts: ['.c', '.h'], dirs: [cargoCrate('tree-sitter-0.26', 'src')], wasm: 'c' },
}
const MAX_FILE = 512 * 1024
const RUNS = Number(process.env.BENCH_RUNS ?? 5)

function walk(dir: string, exts: string[], out: string[]): void {
  let names: string[]
  try {
    names = readdirSync(dir).sort()
  } catch {
    return
  }
  for (const name of names) {
    const p = join(dir, name)
    const st = statSync(p)
    if (st.isDirectory()) {
      if (name !== 'node_modules' || dir === ROOT) walk(p, exts, out)
    } else if (exts.includes(extname(name)) && st.size <= MAX_FILE && !name.endsWith('.d.ts')) {
      out.push(p)
    }
  }
}

// The definition kinds of the registry (crates/core/src/syntax/defs.rs) for these grammars.
const KINDS: Record<string, Set<string>> = {
  rust: new Set(['function_item', 'function_signature_item', 'struct_item', 'union_item', 'enum_item', 'trait_item', 'type_item', 'const_item', 'static_item', 'mod_item', 'macro_definition']),
  python: new Set(['function_definition', 'class_definition']),
  typescript: new Set(['function_declaration', 'generator_function_declaration', 'method_definition', 'method_signature', 'abstract_method_signature', 'class_declaration', 'abstract_class_declaration', 'interface_declaration', 'type_alias_declaration', 'enum_declaration', 'internal_module']),
  javascript: new Set(['function_declaration', 'generator_function_declaration', 'method_definition', 'class_declaration', 'class']),
  c: new Set(['function_definition', 'struct_specifier', 'union_specifier', 'enum_specifier', 'type_definition']),
}

type Sym = { name: string; kind: string; line: number; endLine: number; column: number }

function extract(root: Node, kinds: Set<string>): Sym[] {
  const out: Sym[] = []
  const cursor = root.walk()
  let depth = 0
  for (;;) {
    const node = cursor.currentNode
    if (kinds.has(node.type)) {
      let name = node.childForFieldName('name')
      if (!name && node.type === 'function_definition') {
        // C: the declarator chain holds the name.
        let d = node.childForFieldName('declarator')
        while (d && d.type !== 'identifier') d = d.childForFieldName('declarator')
        name = d
      }
      if (name) out.push({ name: name.text, kind: node.type, line: name.startPosition.row + 1, endLine: node.endPosition.row + 1, column: name.startPosition.column })
    }
    if (depth < 256 && cursor.gotoFirstChild()) {
      depth++
      continue
    }
    while (!cursor.gotoNextSibling()) {
      if (!cursor.gotoParent()) {
        cursor.delete()
        return out
      }
      depth--
    }
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]
}

async function main(): Promise<void> {
  const files: { path: string; content: string; lang: string }[] = []
  for (const [lang, c] of Object.entries(CORPUS)) {
    const paths: string[] = []
    for (const d of c.dirs) if (d) walk(d, c.exts, paths)
    for (const p of paths) files.push({ path: p, content: readFileSync(p, 'utf8'), lang })
  }
  const bytes = files.reduce((n, f) => n + Buffer.byteLength(f.content), 0)
  const perLang = Object.keys(CORPUS).map((l) => `${l} ${files.filter((f) => f.lang === l).length}`).join(', ')
  console.log(`corpus: ${files.length} files (${perLang}), ${(bytes / 1e6).toFixed(2)} MB; ${cpus().length} CPUs; node ${process.version}; ${RUNS} runs, median`)

  // Native, all threads. One call carries at most 8 Mi characters, so the corpus goes in
  // batches of up to 4 Mi characters: the first replaces the repository, the rest update it.
  const input = files.map((f) => ({ path: f.path, content: f.content }))
  const batches: (typeof input)[] = [[]]
  let chars = 0
  for (const f of input) {
    if (chars + f.content.length > 4 * 1024 * 1024 && batches[batches.length - 1].length > 0) {
      batches.push([])
      chars = 0
    }
    batches[batches.length - 1].push(f)
    chars += f.content.length
  }
  const native: number[] = []
  let nativeSymbols = 0
  for (let i = 0; i < RUNS; i++) {
    const index = new SymbolIndex()
    const t = performance.now()
    nativeSymbols = 0
    for (const [j, batch] of batches.entries()) {
      const r = await (j === 0 ? index.indexFiles('bench', batch) : index.updateFiles('bench', batch))
      nativeSymbols += r.symbols
    }
    native.push(performance.now() - t)
  }
  // Native, one thread: batches of 7 files are parsed sequentially by the core.
  const single: number[] = []
  for (let i = 0; i < RUNS; i++) {
    const index = new SymbolIndex()
    const t = performance.now()
    for (let j = 0; j < input.length; j += 7) await index.indexFiles(`bench${j}`, input.slice(j, j + 7))
    single.push(performance.now() - t)
  }

  // web-tree-sitter.
  await Parser.init()
  const wasmDir = join(ROOT, 'node_modules/@repomix/tree-sitter-wasms/out')
  const langs: Record<string, Language> = {}
  for (const [lang, c] of Object.entries(CORPUS)) langs[lang] = await Language.load(join(wasmDir, `tree-sitter-${c.wasm}.wasm`))
  const parser = new Parser()
  const wasm: number[] = []
  let wasmSymbols = 0
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now()
    let n = 0
    for (const f of files) {
      parser.setLanguage(langs[f.lang])
      const tree = parser.parse(f.content)
      if (!tree) continue
      n += extract(tree.rootNode, KINDS[f.lang]).length
      tree.delete()
    }
    wasm.push(performance.now() - t)
    wasmSymbols = n
  }

  const row = (name: string, ms: number, symbols: number | string) =>
    console.log(`${name.padEnd(44)} ${ms.toFixed(0).padStart(7)} ms  ${((bytes / 1e6) / (ms / 1000)).toFixed(1).padStart(6)} MB/s  symbols ${symbols}`)
  row('SymbolIndex.indexFiles (native, all threads)', median(native), nativeSymbols)
  row('SymbolIndex.indexFiles (native, one thread)', median(single), nativeSymbols)
  row('web-tree-sitter 0.26 (WASM) + tree walk', median(wasm), wasmSymbols)
  console.log(`speed-up: ${(median(wasm) / median(native)).toFixed(1)}x (all threads), ${(median(wasm) / median(single)).toFixed(1)}x (one thread)`)
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
