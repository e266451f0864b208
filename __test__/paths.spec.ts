// The JavaScript side's pure path function (the MCP tools' file argument made relative to the
// root) with Windows paths (a published target) as well as POSIX ones, on every host: Node's
// `path.win32` and `path.posix` implement each platform's rules whatever the machine. What it
// returns goes to the engine, which refuses `..`, drives and absolute paths outside the root, so
// the checks here are that a path inside comes out plain and `/`-separated, and one outside
// never does.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'

import { relativePath } from '../lib/mcp/workspace.js'

/** A plain `/`-separated path below the root: no `..`, no drive, not absolute. */
const plainInside = (rel: string) =>
  rel !== '' && !rel.startsWith('/') && !/^[A-Za-z]:/.test(rel) && rel.split('/').every((c) => c !== '' && c !== '..')

test('relativePath: Windows drives, separators, case, UNC and verbatim prefixes', () => {
  const w = path.win32
  const inside: Array<[string, string, string]> = [
    ['C:\\repo', 'C:\\repo', '.'],
    ['C:\\repo', 'src\\a.ts', 'src/a.ts'],
    ['C:\\repo', 'src/a.ts', 'src/a.ts'],
    ['C:\\repo', 'C:\\repo\\src\\a.ts', 'src/a.ts'],
    ['C:\\repo', 'C:/repo/src/a.ts', 'src/a.ts'],
    ['C:\\repo', 'c:\\REPO\\src\\a.ts', 'src/a.ts'], // Windows paths are case-insensitive
    ['C:\\repo', 'src\\..\\lib\\b.ts', 'lib/b.ts'],
    ['C:\\repo', '..foo\\a.ts', '..foo/a.ts'], // a name starting with dots
    ['\\\\server\\share\\repo', '\\\\server\\share\\repo\\a.ts', 'a.ts'],
  ]
  for (const [root, file, rel] of inside) assert.equal(relativePath(root, file, w), rel, `${root} ${file}`)
  const outside: Array<[string, string]> = [
    ['C:\\repo', '..'],
    ['C:\\repo', '..\\secret.txt'],
    ['C:\\repo', 'src\\..\\..\\secret.txt'],
    ['C:\\repo', 'C:\\repo\\..\\secret.txt'],
    ['C:\\repo', 'C:\\repository\\a.ts'], // a sibling sharing the prefix
    ['C:\\repo', 'D:\\repo\\a.ts'], // another drive: relative() answers the absolute path
    ['C:\\repo', 'D:a.ts'],
    ['C:\\repo', '\\Windows\\win.ini'],
    ['\\\\server\\share\\repo', '\\\\server\\share\\x'],
    ['\\\\server\\share\\repo', '\\\\other\\share\\repo\\x'],
    ['C:\\repo', '\\\\?\\C:\\secret.txt'],
  ]
  for (const [root, file] of outside) {
    const rel = relativePath(root, file, w)
    assert.ok(!plainInside(rel), `${root} ${file} -> ${rel}`)
  }
})

test('relativePath: POSIX paths, where a backslash is part of a name', () => {
  const p = path.posix
  assert.equal(relativePath('/repo', '/repo/src/a.ts', p), 'src/a.ts')
  assert.equal(relativePath('/repo', '..\\x', p), '..\\x') // one odd name inside the root
  assert.equal(relativePath('/repo', 'C:\\x', p), 'C:\\x')
  for (const file of ['..', '../x', '/repo/../x', '/repository/a', '/other']) {
    assert.ok(!plainInside(relativePath('/repo', file, p)), file)
  }
  assert.throws(() => relativePath('/repo', 'a\0b', p), (e: Error & { code?: string }) => e.code === 'invalid_request')
})

test('relativePath uses the platform rules by default', () => {
  const root = path.resolve('/repo')
  assert.equal(relativePath(root, path.join(root, 'a', 'b.ts')), 'a/b.ts')
  assert.ok(!plainInside(relativePath(root, path.join(root, '..', 'x'))))
})
