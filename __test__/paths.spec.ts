// The JavaScript side's pure path check (the MCP server's "is this file inside the root"), with
// Windows paths (a published target) as well as POSIX ones, on every host: Node's `path.win32`
// and `path.posix` implement each platform's rules whatever the machine.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'

const { relativeInside } = require('../mcp/tools.js') as {
  relativeInside(root: string, p: string, paths?: typeof path.win32): string | undefined
}

test('relativeInside: Windows drives, separators, case, UNC and verbatim prefixes', () => {
  const w = path.win32
  const inside: Array<[string, string, string]> = [
    ['C:\\repo', 'C:\\repo', ''],
    ['C:\\repo', 'C:\\repo\\src\\a.ts', 'src\\a.ts'],
    ['C:\\repo', 'C:/repo/src/a.ts', 'src\\a.ts'],
    ['C:\\repo', 'c:\\REPO\\src', 'src'], // Windows paths are case-insensitive
    ['C:\\repo', 'C:\\repo\\..foo\\a.ts', '..foo\\a.ts'], // a name starting with dots
    ['\\\\server\\share\\repo', '\\\\server\\share\\repo\\a.ts', 'a.ts'],
  ]
  for (const [root, p, rel] of inside) assert.equal(relativeInside(root, p, w), rel, `${root} ${p}`)
  const outside: Array<[string, string]> = [
    ['C:\\repo', 'C:\\'],
    ['C:\\repo', 'C:\\repo\\..'],
    ['C:\\repo', 'C:\\repo\\..\\secret.txt'],
    ['C:\\repo', 'C:\\repo\\src\\..\\..\\secret.txt'],
    ['C:\\repo', 'C:\\repository\\a.ts'], // a sibling sharing the prefix
    ['C:\\repo', 'D:\\repo\\a.ts'], // another drive: relative() answers an absolute path
    ['\\\\server\\share\\repo', '\\\\server\\share\\x'],
    ['\\\\server\\share\\repo', '\\\\other\\share\\repo\\x'],
    // A verbatim path is another spelling to path.relative: refused, never read outside.
    ['C:\\repo', '\\\\?\\C:\\repo\\x'],
    ['C:\\repo', '\\\\?\\C:\\secret.txt'],
  ]
  for (const [root, p] of outside) assert.equal(relativeInside(root, p, w), undefined, `${root} ${p}`)
})

test('relativeInside: POSIX paths, where a backslash is part of a name', () => {
  const p = path.posix
  assert.equal(relativeInside('/repo', '/repo/src/a.ts', p), 'src/a.ts')
  assert.equal(relativeInside('/repo', '/repo/..\\x', p), '..\\x') // one odd name inside
  assert.equal(relativeInside('/repo', '/repo/C:\\x', p), 'C:\\x')
  for (const q of ['/', '/repo/..', '/repo/../x', '/repository/a', '/other']) {
    assert.equal(relativeInside('/repo', q, p), undefined, q)
  }
})

test('relativeInside uses the platform rules by default', () => {
  const root = path.resolve('/repo')
  assert.equal(relativeInside(root, path.join(root, 'a', 'b.ts')), path.join('a', 'b.ts'))
  assert.equal(relativeInside(root, path.join(root, '..', 'x')), undefined)
})
