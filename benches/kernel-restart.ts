// Restart time (BENCHMARKS.md, "restart to first answer"): a new Node process, a new
// `ContextEngine({ indexCacheDir })` on a cache another process wrote, and the time to its first
// answer, the files it read, and its memory; then a prompt that matches nothing (the cost of a
// warm call that touches no file) and a second, warm answer. Each run is its own process, as an
// application restarting; the reference in the same run is a bare `node -e` start (the floor of
// any new process) and one ripgrep pass over the tree.
//
//   node --import tsx benches/kernel-restart.ts --root DIR --cache-dir DIR [--addon PATH] [--runs 3]
//
// DIR is any tree (the kernel: benches/kernel-corpus.sh). If the cache directory holds no index
// file yet, a first process builds the index and waits for its save (that build is not timed
// here; benches/kernel.bench.ts times it). Default engine options apart from `indexCacheDir`.
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback
}

const PROMPT = 'copy_from_user'
const NOTHING = 'zzqx_no_such_identifier_anywhere_7731'

function cacheFiles(dir: string): Array<{ name: string; size: number; mtime: number }> {
  return readdirSync(dir)
    .filter((n) => n.endsWith('.ceidx'))
    .map((n) => {
      const s = statSync(join(dir, n))
      return { name: n, size: s.size, mtime: s.mtimeMs }
    })
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]

// The child processes run plain JavaScript (`node -e`), so that their time is the addon's and
// Node's, not this script's TypeScript loader's. Arguments: root, cache directory, addon.

/** One restart, reported as one JSON line. */
const CHILD = `
const [root, cacheDir, addon] = process.argv.slice(1)
const t0 = performance.now()
const { ContextEngine } = require(addon)
const loaded = performance.now() - t0
const engine = new ContextEngine({ indexCacheDir: cacheDir })
const ask = (prompt) =>
  engine.retrieve({ prompt, spaceId: 'bench', sessionId: 'bench', rootPath: root, providerId: 'mcp', limit: 20 })
;(async () => {
  let t = performance.now()
  const first = await ask(${JSON.stringify(PROMPT)})
  const firstMs = performance.now() - t
  const status = engine.indexStatus(root)
  const rssFirst = process.memoryUsage().rss
  t = performance.now()
  await ask(${JSON.stringify(NOTHING)})
  const nothingMs = performance.now() - t
  t = performance.now()
  await ask(${JSON.stringify(PROMPT)})
  const warmMs = performance.now() - t
  console.log(JSON.stringify({ loaded, firstMs, filesRead: status.filesRead, files: status.files,
    snippets: first.length, rssFirst, nothingMs, warmMs }))
})().catch((e) => { console.error(e.message); process.exit(1) })
`

/** Builds the index and waits until its cache file is written and settled. */
const BUILD = `
const fs = require('node:fs')
const [root, cacheDir, addon] = process.argv.slice(1)
const { ContextEngine } = require(addon)
const engine = new ContextEngine({ indexCacheDir: cacheDir })
const list = () => JSON.stringify(fs.readdirSync(cacheDir).filter((n) => n.endsWith('.ceidx'))
  .map((n) => [n, fs.statSync(cacheDir + '/' + n).size]))
;(async () => {
  const t = performance.now()
  await engine.prepareIndex(root)
  console.error('built the index in ' + ((performance.now() - t) / 1000).toFixed(1) + ' s; waiting for its save')
  let last = ''
  for (let i = 0; i < 600; i++) {
    await new Promise((r) => setTimeout(r, 1000))
    const now = list()
    if (now !== '[]' && now === last) process.exit(0)
    last = now
  }
  console.error('the index was not saved within 10 minutes')
  process.exit(1)
})()
`

async function main(): Promise<void> {
  const rootArg = arg('root', '')
  const cacheArg = arg('cache-dir', '')
  if (!rootArg || !cacheArg) throw new Error('--root DIR and --cache-dir DIR are required')
  const root = resolve(rootArg)
  const cacheDir = resolve(cacheArg)
  const addon = resolve(arg('addon', join(__dirname, '..', 'index.js')))
  mkdirSync(cacheDir, { recursive: true })
  const script = (source: string) => ['-e', source, root, cacheDir, addon]
  console.log(`root ${root}\ncache ${cacheDir}\naddon ${addon}\nnode ${process.version}, ${new Date().toISOString()}`)
  if (cacheFiles(cacheDir).length === 0) {
    const b = spawnSync(process.execPath, script(BUILD), { stdio: 'inherit' })
    if (b.status !== 0) throw new Error('building the index failed')
  }
  const files = cacheFiles(cacheDir)
  console.log(`index on disk      ${files.map((f) => `${f.name} ${f.size.toLocaleString('en-US')} B`).join(', ')}`)

  let t = performance.now()
  try {
    execFileSync('rg', ['-c', '--no-messages', PROMPT, root], { stdio: 'ignore' })
  } catch {}
  console.log(`ripgrep            '${PROMPT}' over the tree ${(performance.now() - t).toFixed(0)} ms`)

  const runs = Number(arg('runs', '3'))
  const rows: Array<Record<string, number>> = []
  const bare: number[] = []
  console.log('\n| run | bare `node -e` | whole process | first answer | files read | RSS after it | prompt matching nothing | warm |')
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
  for (let r = 1; r <= runs; r++) {
    // Paired: the floor of a new process, then the restart, one after the other.
    t = performance.now()
    spawnSync(process.execPath, ['-e', '0'], { stdio: 'ignore' })
    bare.push(performance.now() - t)
    t = performance.now()
    const c = spawnSync(process.execPath, script(CHILD), { encoding: 'utf8' })
    const wall = performance.now() - t
    if (c.status !== 0) throw new Error(`restart run ${r} failed: ${c.stderr}`)
    const row = JSON.parse(c.stdout.trim().split('\n').pop()!)
    row.wall = wall
    rows.push(row)
    console.log(
      `| ${r} | ${bare[r - 1].toFixed(0)} ms | ${wall.toFixed(0)} ms | ${row.firstMs.toFixed(0)} ms | ${row.filesRead} of ${row.files} | ${(row.rssFirst / 1e6).toFixed(0)} MB | ${row.nothingMs.toFixed(1)} ms | ${row.warmMs.toFixed(1)} ms |`,
    )
  }
  const m = (k: string) => median(rows.map((x) => x[k]))
  console.log(
    `\nmedian of ${runs}: first answer ${m('firstMs').toFixed(0)} ms (the whole process ${m('wall').toFixed(0)} ms; bare node ${median(bare).toFixed(0)} ms), ` +
      `RSS ${(m('rssFirst') / 1e6).toFixed(0)} MB, prompt matching nothing ${m('nothingMs').toFixed(1)} ms, warm ${m('warmMs').toFixed(1)} ms`,
  )
}

main().catch((err) => {
  console.error(`error (${err.code ?? 'unknown'}): ${err.message}`)
  process.exit(1)
})
