// Time of retrieve on a 256 KB one-line prompt over a one-file root: plain words, and words
// that fire every prompt reading (helper names, sides, declared names, capitalized words). Run by hand after a
// release build: node benches/hostile-prompt.bench.cjs
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const ce = require('..')

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ce-hostile-'))
fs.writeFileSync(path.join(root, 'a.ts'), 'export function foo() {}\n')
const size = 250 * 1024
const fill = (unit) => unit.repeat(Math.floor(size / unit.length))
const prompts = {
  plain: fill('word other thing '),
  hostile: 'helpers ' + fill('Foo protocol client Bar-side utils Alpha Beta Gamma Delta Epsilon Zeta Theta Iota Kappa '),
}
const request = (prompt) => ({ prompt, spaceId: 's', sessionId: 's', providerId: 'mcp', rootPath: root, limit: 5 })

;(async () => {
  for (const [name, prompt] of Object.entries(prompts)) {
    await ce.retrieve(request(prompt.slice(0, 100)))
    const start = process.hrtime.bigint()
    for (let i = 0; i < 5; i++) await ce.retrieve(request(prompt))
    console.log(`${name}: ${prompt.length} bytes, ${(Number(process.hrtime.bigint() - start) / 5e6).toFixed(1)} ms a call`)
  }
  fs.rmSync(root, { recursive: true, force: true })
})().catch((e) => {
  console.error(e.code, e.message)
  process.exit(1)
})
