// Cost of the capital-word lookup (a capitalized word of a question lifts the one file that
// defines it): the same questions with their capitalized words as written and lowercased
// (which turns the lookup off), on one warm engine. Run by hand after a release build, on a
// large tree such as the kernel of benches/kernel.bench.ts:
//   node benches/capital-words.bench.cjs /path/to/linux-source-6.1
const ce = require('..')
const root = process.argv[2]
if (!root) {
  console.error('usage: node benches/capital-words.bench.cjs ROOT')
  process.exit(2)
}
const qs = [
  'how does the Completely Fair Scheduler pick the next Task to run',
  'where are Page Faults handled on x86 by the Memory Manager',
  'how does Ext4 commit a Journal transaction to disk',
  'how does the Netfilter Conntrack table expire entries',
  'how are Workqueue items queued and run by a Worker',
  'how does the Block Layer merge Bio requests into a Request',
  'how does Btrfs allocate an Extent for a new write',
  'where does the Virtual File System resolve a Dentry from a path',
  'how does KVM handle a VM Exit on Intel VMX',
  'how does the Slab allocator free an Object back to a Cache',
]
const req = (prompt) => ({ prompt, spaceId: 's', sessionId: 's', providerId: 'mcp', rootPath: root, limit: 10 })
;(async () => {
  const eng = new ce.ContextEngine({})
  let t = process.hrtime.bigint()
  await eng.retrieve(req('scheduler'))
  console.log('cold s', Number(process.hrtime.bigint() - t) / 1e9)
  for (const q of qs) { await eng.retrieve(req(q)); await eng.retrieve(req(q.toLowerCase())) }
  const times = { asWritten: [], lower: [] }
  for (let round = 0; round < 3; round++) {
    for (const q of qs) {
      for (const [k, p] of [['asWritten', q], ['lower', q.toLowerCase()]]) {
        t = process.hrtime.bigint()
        await eng.retrieve(req(p))
        times[k].push(Number(process.hrtime.bigint() - t) / 1e6)
      }
    }
  }
  for (const [k, v] of Object.entries(times)) {
    v.sort((a, b) => a - b)
    const p = (x) => v[Math.min(v.length - 1, Math.floor(x * v.length))].toFixed(1)
    console.log(k, 'n', v.length, 'p50', p(0.5), 'p95', p(0.95), 'max', v[v.length - 1].toFixed(1))
  }
})().catch((e) => { console.error(e); process.exit(1) })
