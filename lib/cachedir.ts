// Where retrieval indexes are saved between processes (the CLI and the MCP server share it),
// so a second session on a repository loads its index instead of reading every file again.
import { mkdirSync } from 'node:fs'
import { homedir } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'

export interface CacheChoice {
  /** `--cache-dir DIR`. */
  dir?: string
  /** `--no-cache`. */
  disabled?: boolean
}

/**
 * The per-user cache folder: `$CONTEXT_ENGINE_INDEX_CACHE_DIR`, else `$XDG_CACHE_HOME/context-engine`,
 * else the platform's cache folder (`~/Library/Caches` on macOS, `%LOCALAPPDATA%` on Windows,
 * `~/.cache` elsewhere). Relative variables are ignored, as the XDG specification asks.
 */
export function defaultCacheDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  const abs = (v: string | undefined) => (v && isAbsolute(v) ? v : undefined)
  const explicit = abs(env.CONTEXT_ENGINE_INDEX_CACHE_DIR)
  if (explicit) return explicit
  const xdg = abs(env.XDG_CACHE_HOME)
  if (xdg) return join(xdg, 'context-engine')
  if (platform === 'win32') {
    const local = abs(env.LOCALAPPDATA)
    return local ? join(local, 'context-engine', 'cache') : undefined
  }
  const home = abs(env.HOME) ?? safeHome()
  if (!home) return undefined
  return platform === 'darwin'
    ? join(home, 'Library', 'Caches', 'context-engine')
    : join(home, '.cache', 'context-engine')
}

function safeHome(): string | undefined {
  try {
    const h = homedir()
    return h && isAbsolute(h) ? h : undefined
  } catch {
    return undefined
  }
}

/**
 * The cache directory to use, created (owner-only) when missing; undefined when caching is off
 * or the folder cannot be created (`warn` is told why).
 */
export function resolveCacheDir(
  choice: CacheChoice,
  warn: (message: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (choice.disabled) return undefined
  const dir = choice.dir !== undefined ? resolve(choice.dir) : defaultCacheDir(env)
  if (!dir) {
    warn('no cache folder could be determined: indexes are kept in memory only')
    return undefined
  }
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    return dir
  } catch (err) {
    warn(
      `cannot create the cache folder (${(err as NodeJS.ErrnoException).code ?? 'error'}): indexes are kept in memory only`,
    )
    return undefined
  }
}
