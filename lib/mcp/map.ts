// The folder part of `repo_map`: how many files each folder holds, of which language, two
// levels deep, biggest first; what a folder is for (its role) comes from the engine's index.
import { type Dirent, readdirSync } from 'node:fs'
import { join } from 'node:path'

import * as addon from '../index.js'

/** Folders never counted: version control, dependencies and build output. */
const SKIP = new Set([
  'node_modules',
  'target',
  'dist',
  'build',
  'out',
  '__pycache__',
  '.git',
  '.hg',
  '.svn',
  'bower_components',
  '.venv',
  'venv',
])
/** Entries read at most (a guard for enormous trees). */
const MAX_ENTRIES = 400_000

let extensions: Map<string, string> | undefined
/** The registry's languages by extension (and whole file name). */
function languageOf(name: string): string | undefined {
  if (!extensions) {
    extensions = new Map()
    try {
      for (const l of addon.languages()) {
        for (const e of l.extensions) extensions.set(`.${e}`, l.name)
        for (const f of l.fileNames) extensions.set(f, l.name)
      }
    } catch {
      // An addon without the registry list: folders are counted without languages.
    }
  }
  const dot = name.lastIndexOf('.')
  return extensions.get(name) ?? (dot > 0 ? extensions.get(name.slice(dot).toLowerCase()) : undefined)
}

export interface Folder {
  path: string
  files: number
  languages: Map<string, number>
  children: Folder[]
}

/**
 * The folders under `dir` (a directory the engine accepted) with their file counts, down to
 * `depth` levels; deeper files count toward their ancestors. Symbolic links are not followed.
 */
export function folderTree(dir: string, depth = 3): Folder {
  let budget = MAX_ENTRIES
  const walk = (abs: string, rel: string, level: number): Folder => {
    const f: Folder = { path: rel, files: 0, languages: new Map(), children: [] }
    let entries: Dirent[]
    try {
      entries = readdirSync(abs, { withFileTypes: true })
    } catch {
      return f
    }
    for (const e of entries) {
      if (--budget < 0) break
      if (e.name.startsWith('.')) continue
      if (e.isDirectory()) {
        if (SKIP.has(e.name)) continue
        const child = walk(join(abs, e.name), rel ? `${rel}/${e.name}` : e.name, level + 1)
        f.files += child.files
        for (const [k, v] of child.languages) f.languages.set(k, (f.languages.get(k) ?? 0) + v)
        if (level < depth && child.files > 0) f.children.push(child)
      } else if (e.isFile()) {
        f.files++
        const lang = languageOf(e.name)
        if (lang) f.languages.set(lang, (f.languages.get(lang) ?? 0) + 1)
      }
    }
    f.children.sort((a, b) => b.files - a.files || a.path.localeCompare(b.path))
    return f
  }
  return walk(dir, '', 1)
}

/**
 * One line of the folder table: `path/  N files, mostly c (test)`; `role` is the role most of
 * the folder's indexed files have (the engine's `fileRanks` folders), if any.
 */
export function folderLine(f: Folder, indent: string, role?: string): string {
  const top = [...f.languages.entries()].sort((a, b) => b[1] - a[1])[0]
  const lang = top && top[1] * 2 >= f.files ? `, mostly ${top[0]}` : top ? `, some ${top[0]}` : ''
  return `${indent}${f.path}/  ${f.files} file${f.files === 1 ? '' : 's'}${lang}${role ? ` (${role})` : ''}`
}
