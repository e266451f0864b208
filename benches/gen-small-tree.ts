// Generates a deterministic tree of many small source files, for retrieval at scale (the
// 200,000-file tree of BENCHMARKS.md). Run by hand; keep the output OUTSIDE the repository:
//
//   node --import tsx benches/gen-small-tree.ts DIR [--files 200000] [--per-dir 100]
//
// The "shared vocabulary" tree of BENCHMARKS.md's scale section is `--files 200000 --per-dir 80`
// (200k files in 2.5k folders): every word of a prompt over it is in thousands of files.
//
// Layout: DIR/m<k>/<noun>/<verb>_<noun>_<i>.{ts,py,rs,go}, `--per-dir` files per directory, each file
// 5-20 lines (one or two small functions over a shared vocabulary plus a unique identifier
// `<verb><Noun>Item<i>`, so every file can be asked for by name). Prints prompts to try.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { NOUNS, VERBS, rng } from './synth'

const dir = process.argv[2]
if (!dir || dir.startsWith('--')) {
  console.error('usage: gen-small-tree.ts DIR [--files N]')
  process.exit(2)
}
const i = process.argv.indexOf('--files')
const files = i >= 0 ? Number(process.argv[i + 1]) : 200_000
const d = process.argv.indexOf('--per-dir')
const perDir = d >= 0 ? Number(process.argv[d + 1]) : 100
if (!(Number.isInteger(files) && files > 0 && Number.isInteger(perDir) && perDir > 0)) {
  console.error('--files and --per-dir take positive integers')
  process.exit(2)
}
const rand = rng(7)
const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)]
const cap = (s: string) => s[0].toUpperCase() + s.slice(1)
const started = performance.now()
let bytes = 0
for (let f = 0; f < files; f++) {
  const group = Math.floor(f / perDir)
  const noun = NOUNS[group % NOUNS.length]
  const sub = join(dir, `m${Math.floor(group / NOUNS.length)}`, noun)
  if (f % perDir === 0) mkdirSync(sub, { recursive: true })
  const v = pick(VERBS)
  const n = pick(NOUNS)
  const id = `${v}${cap(n)}Item${f}`
  const kind = f % 4
  const body: string[] = []
  const lines = 3 + Math.floor(rand() * 14)
  for (let k = 0; k < lines; k++) body.push(`${pick(VERBS)}_${pick(NOUNS)}(${pick(NOUNS)}, ${k})`)
  let text: string
  if (kind === 0) text = `// ${cap(v)} the ${n}.\nexport function ${id}(${n}: string) {\n${body.map((b) => `  ${b}`).join('\n')}\n}\n`
  else if (kind === 1) text = `def ${id}(${n}):\n    """${cap(v)} the ${n}."""\n${body.map((b) => `    ${b}`).join('\n')}\n`
  else if (kind === 2) text = `/// ${cap(v)} the ${n}.\npub fn ${id}(${n}: &str) {\n${body.map((b) => `    ${b};`).join('\n')}\n}\n`
  else text = `// ${id} ${v}s the ${n}.\nfunc ${id}(${n} string) {\n${body.map((b) => `\t${b}`).join('\n')}\n}\n`
  bytes += text.length
  writeFileSync(join(sub, `${v}_${n}_${f}.${['ts', 'py', 'rs', 'go'][kind]}`), text)
}
console.log(`${files} files in ${Math.ceil(files / perDir)} folders, ${(bytes / 1e6).toFixed(1)} MB, in ${((performance.now() - started) / 1000).toFixed(1)} s under ${dir}`)
