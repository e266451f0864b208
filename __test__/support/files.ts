// File helpers shared by the suites.

import { mkdtempSync, readdirSync, realpathSync, rmSync, utimesSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const made: string[] = []
process.on('exit', () => {
  for (const d of made) rmSync(d, { recursive: true, force: true })
})

/**
 * A new empty folder under the system's temporary folder, its real path (no symlinks), removed
 * with everything in it when the test process exits.
 */
export function tempDir(prefix: string): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), prefix)))
  made.push(d)
  return d
}

/**
 * Sets the modification time of every file under `root` (not .git) an hour back, so that the
 * index does not treat them as written in the same clock tick as its reads (such a file is read
 * again by the next call, and by an engine that loads the saved index).
 */
export function backdate(root: string): void {
  const old = new Date(Date.now() - 3600_000)
  for (const e of readdirSync(root, { withFileTypes: true, recursive: true })) {
    const p = join(e.parentPath, e.name)
    if (e.isFile() && !p.includes('/.git/')) utimesSync(p, old, old)
  }
}
