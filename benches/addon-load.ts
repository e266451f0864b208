// What loading the addon costs a process (BENCHMARKS.md, "Addon size with compressed grammar
// tables"): `require` of the addon, its RSS, then the first `SymbolIndex.indexFiles` of one C#,
// one Kotlin and one C++ file (the three largest grammars, whose tables are inflated on first
// use) and the same call again, with the RSS after. Each run is a new Node process running plain
// JavaScript; a bare `node -e` start is timed beside each run as the reference.
//
//   node --import tsx benches/addon-load.ts [--addon PATH/index.js | PATH/file.node] [--runs 3]
//
// `--addon` takes a package's index.js or a bare .node file (a build kept for a before/after).
import { spawnSync } from 'node:child_process'
import { join, resolve } from 'node:path'

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback
}

const FILES = [
  {
    path: 'src/Cart.cs',
    content: 'namespace Shop {\n  public class Cart {\n    public int Count { get; set; }\n    public void Add(int n) { Count += n; }\n  }\n}\n',
  },
  {
    path: 'src/Cart.kt',
    content: 'package shop\n\nclass Cart {\n    var count = 0\n    fun add(n: Int) { count += n }\n}\n',
  },
  {
    path: 'src/cart.cpp',
    content: '#include <vector>\nnamespace shop {\nclass Cart {\n public:\n  void add(int n) { items.push_back(n); }\n private:\n  std::vector<int> items;\n};\n}\n',
  },
]

const CHILD = `
const addon = process.argv[1]
const files = ${JSON.stringify(FILES)}
const mb = () => process.memoryUsage().rss
const rssStart = mb()
let t = performance.now()
const { SymbolIndex } = require(addon)
const requireMs = performance.now() - t
const rssRequired = mb()
;(async () => {
  const index = new SymbolIndex()
  t = performance.now()
  const a = await index.indexFiles('bench', files)
  const firstMs = performance.now() - t
  t = performance.now()
  const b = await index.indexFiles('bench', files)
  const againMs = performance.now() - t
  if (a.symbols === 0 || a.symbols !== b.symbols) throw new Error('unexpected symbols: ' + JSON.stringify([a, b]))
  console.log(JSON.stringify({ rssStart, requireMs, rssRequired, firstMs, againMs, rssAfter: mb(), symbols: a.symbols }))
})().catch((e) => { console.error(e.message); process.exit(1) })
`

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]
const MB = (n: number) => `${(n / 1e6).toFixed(0)} MB`

function main(): void {
  const addon = resolve(arg('addon', join(__dirname, '..', 'index.js')))
  const runs = Number(arg('runs', '3'))
  console.log(`addon ${addon}\nnode ${process.version}, ${new Date().toISOString()}`)
  console.log('\n| run | bare `node -e` | require | RSS after require | first indexFiles (C#, Kotlin, C++) | again | RSS after |')
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
  const rows: Array<Record<string, number>> = []
  for (let r = 1; r <= runs; r++) {
    let t = performance.now()
    spawnSync(process.execPath, ['-e', '0'], { stdio: 'ignore' })
    const bare = performance.now() - t
    t = performance.now()
    const c = spawnSync(process.execPath, ['-e', CHILD, addon], { encoding: 'utf8' })
    if (c.status !== 0) throw new Error(`run ${r} failed: ${c.stderr}`)
    const row = JSON.parse(c.stdout.trim().split('\n').pop()!)
    row.bare = bare
    rows.push(row)
    console.log(
      `| ${r} | ${bare.toFixed(0)} ms | ${row.requireMs.toFixed(1)} ms | ${MB(row.rssRequired)} | ${row.firstMs.toFixed(1)} ms | ${row.againMs.toFixed(1)} ms | ${MB(row.rssAfter)} |`,
    )
  }
  const m = (k: string) => median(rows.map((x) => x[k]))
  console.log(
    `\nmedian of ${runs}: require ${m('requireMs').toFixed(1)} ms, RSS ${MB(m('rssRequired'))}; first indexFiles ${m('firstMs').toFixed(1)} ms, ` +
      `again ${m('againMs').toFixed(1)} ms, RSS ${MB(m('rssAfter'))} (${rows[0].symbols} symbols); bare node ${m('bare').toFixed(0)} ms`,
  )
}

main()
