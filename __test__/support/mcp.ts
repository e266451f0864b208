// What the MCP tests share: the command line they start, files they write, and readers of a
// tool result as a host receives it (its text, its structured content, its size in tokens).
import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'

import type { Client } from '@modelcontextprotocol/client'

import { countTokens } from '../../lib/index.js'

/** The package's command line, as a host starts it. */
export const BIN = join(__dirname, '..', '..', 'bin', 'context-engine.js')

export type Result = Awaited<ReturnType<Client['callTool']>>

/** Writes `text` to `root/rel`, making its folders. */
export function write(root: string, rel: string, text: string): void {
  const p = join(root, rel)
  mkdirSync(dirname(p), { recursive: true })
  writeFileSync(p, text)
}

/**
 * The server's environment: the test process's, without the variables that would add remote
 * tools or move the cache, and with the cache under `cacheHome` (never the user's own folder).
 */
export function serverEnv(cacheHome: string): Record<string, string> {
  const dropped = ['GITEA_URL', 'GITEA_TOKEN', 'HOUND_URL', 'GITHUB_TOKEN', 'GH_TOKEN', 'CONTEXT_ENGINE_INDEX_CACHE_DIR']
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !dropped.includes(k)) out[k] = v
  out.XDG_CACHE_HOME = cacheHome
  return out
}

/** The text of a result (its one text block). */
export function text(r: Result): string {
  const c = (r.content as Array<{ type: string; text?: string }>)[0]
  assert.equal(c.type, 'text')
  return c.text ?? ''
}

/** The structured content of a result that must not be an error. */
export function ok(r: Result): Record<string, any> {
  assert.notEqual(r.isError, true, `unexpected error: ${JSON.stringify(r.content).slice(0, 500)}`)
  assert.ok(r.structuredContent, 'structuredContent')
  return r.structuredContent as Record<string, any>
}

/** The text of a result that must be an error. */
export function errorText(r: Result): string {
  assert.equal(r.isError, true, `expected an error, got ${JSON.stringify(r).slice(0, 300)}`)
  return text(r)
}

/** Tokens a host receives for a result: its text and its structured content. */
export async function resultTokens(r: Result): Promise<number> {
  return (await countTokens(text(r), 'o200k_base')) + (await countTokens(JSON.stringify(r.structuredContent ?? {}), 'o200k_base'))
}
