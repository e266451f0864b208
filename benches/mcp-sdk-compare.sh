#!/usr/bin/env bash
# Which MCP SDK line to build on: installs v1 (@modelcontextprotocol/sdk) and v2
# (@modelcontextprotocol/server) side by side in DIR (outside the repository), reports package
# count, size and install time, then the spawn -> initialize-answer time of the same minimal
# stdio server (one tools/list handler) on each, interleaved with a bare `node -e` as the floor.
#
#   bash benches/mcp-sdk-compare.sh DIR [ROUNDS]     # e.g. ~/bench-data/mcp 20
set -euo pipefail
DIR=${1:?usage: mcp-sdk-compare.sh DIR [ROUNDS]}
ROUNDS=${2:-20}
V1=${V1:-@modelcontextprotocol/sdk@1.32.2}
V2=${V2:-@modelcontextprotocol/server@2.4.0}
mkdir -p "$DIR/v1" "$DIR/v2"
for v in v1 v2; do
  pkg=$V1; [ $v = v2 ] && pkg=$V2
  (cd "$DIR/$v" && [ -f package.json ] || (cd "$DIR/$v" && npm init -y >/dev/null))
  start=$(date +%s.%N)
  (cd "$DIR/$v" && rm -rf node_modules package-lock.json && npm install --no-audit --no-fund --silent "$pkg" >/dev/null 2>&1)
  end=$(date +%s.%N)
  count=$(cd "$DIR/$v" && node -e 'console.log(Object.keys(require("./package-lock.json").packages).filter(Boolean).length)')
  size=$(du -sk "$DIR/$v/node_modules" | cut -f1)
  printf '%s %s: %s packages, %s KiB, npm install %.1f s\n' "$v" "$pkg" "$count" "$size" "$(echo "$end - $start" | bc)"
done
cat > "$DIR/v2/server.js" <<'JS'
const { Server } = require('@modelcontextprotocol/server')
const { serveStdio } = require('@modelcontextprotocol/server/stdio')
serveStdio(() => { const s = new Server({ name: 'x', version: '1' }, { capabilities: { tools: {} } }); s.setRequestHandler('tools/list', async () => ({ tools: [] })); return s })
process.stdin.on('end', () => process.exit(0))
JS
cat > "$DIR/v1/server.js" <<'JS'
const { Server } = require('@modelcontextprotocol/sdk/server/index.js')
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js')
const { ListToolsRequestSchema } = require('@modelcontextprotocol/sdk/types.js')
const s = new Server({ name: 'x', version: '1' }, { capabilities: { tools: {} } })
s.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [] }))
s.connect(new StdioServerTransport())
process.stdin.on('end', () => process.exit(0))
JS
DIR="$DIR" ROUNDS="$ROUNDS" node - <<'JS'
const { spawn } = require('node:child_process')
const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'b', version: '1' } } }) + '\n'
function once(args, input, needle) {
  return new Promise((res) => {
    const t0 = process.hrtime.bigint()
    const c = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] })
    let out = '', done = false
    c.stdout.on('data', (d) => { out += d; if (!done && out.includes(needle)) { done = true; const ms = Number(process.hrtime.bigint() - t0) / 1e6; c.stdin.end(); c.on('exit', () => res(ms)) } })
    if (input) c.stdin.write(input); else c.stdin.end()
  })
}
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p / 100 * s.length))].toFixed(1) }
;(async () => {
  const dir = process.env.DIR, n = Number(process.env.ROUNDS)
  const r = { 'bare node': [], v1: [], v2: [] }
  await once([dir + '/v1/server.js'], INIT, '"id":1'); await once([dir + '/v2/server.js'], INIT, '"id":1')
  for (let i = 0; i < n; i++) {
    r['bare node'].push(await once(['-e', 'process.stdout.write("ready\\n")'], null, 'ready'))
    r.v1.push(await once([dir + '/v1/server.js'], INIT, '"id":1'))
    r.v2.push(await once([dir + '/v2/server.js'], INIT, '"id":1'))
  }
  for (const k of Object.keys(r)) console.log(`spawn -> initialize answer, ${k.padEnd(9)} p50 ${pct(r[k], 50)} ms  p90 ${pct(r[k], 90)} ms  min ${Math.min(...r[k]).toFixed(1)} ms`)
})()
JS
