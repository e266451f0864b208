//! Repository statistics from the language registry: files, lines and bytes, in total and per
//! language ([`crate::syntax::Lang`]).
//!
//! [`root_stats`] lists a directory with the same gitignore-aware walk as retrieval
//! ([`crate::retrieve::index::walk::list`]: ignored, hidden, vendored, binary and generated files
//! and files over 1 MiB left out) and reads each file through [`fs_scope`](crate::fs_scope);
//! [`files_stats`] counts files handed in. Totals count every file; `languages` only files of
//! a registry language.

use std::collections::BTreeMap;
use std::path::Path;

use crate::error::{Error, Result};
use crate::fs_scope::{ReadLimits, Scope};
use crate::syntax::Lang;

/// Most files [`files_stats`] accepts, and [`root_stats`] reads.
pub const MAX_FILES: usize = 200_000;

/// Files, lines and bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    /// Files.
    pub files: usize,
    /// Lines (a last line without a newline counts; an empty file has none).
    pub lines: usize,
    /// Bytes (UTF-8 for files handed in; on disk for files read).
    pub bytes: u64,
}

impl Counts {
    fn add(&mut self, lines: usize, bytes: u64) {
        self.files += 1;
        self.lines += lines;
        self.bytes += bytes;
    }
}

/// Statistics of a repository.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RepoStats {
    /// Every file counted.
    pub total: Counts,
    /// Per registry language, by canonical name.
    pub languages: BTreeMap<&'static str, Counts>,
}

impl RepoStats {
    fn add(&mut self, path: &str, text: &str, bytes: u64) {
        let lines = line_count(text);
        self.total.add(lines, bytes);
        if let Some(lang) = Lang::from_path(path) {
            self.languages
                .entry(lang.as_str())
                .or_default()
                .add(lines, bytes);
        }
    }
}

/// Lines of `text`: newlines, plus one for a last line without one.
pub fn line_count(text: &str) -> usize {
    let newlines = bytecount(text.as_bytes());
    newlines + usize::from(!text.is_empty() && !text.ends_with('\n'))
}

fn bytecount(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b == b'\n').count()
}

/// Statistics of files handed in as `(path, content)`.
///
/// Errors (`invalid_request`): more than [`MAX_FILES`] files.
pub fn files_stats<'a>(
    files: impl ExactSizeIterator<Item = (&'a str, &'a str)>,
) -> Result<RepoStats> {
    if files.len() > MAX_FILES {
        return Err(Error::invalid_request(format!(
            "files must hold at most {MAX_FILES} entries"
        )));
    }
    let mut stats = RepoStats::default();
    for (path, text) in files {
        stats.add(path, text, text.len() as u64);
    }
    Ok(stats)
}

/// Statistics of the files under `root` (an absolute directory).
///
/// Errors (`invalid_request`): `root` not an absolute, existing directory.
pub fn root_stats(root: &Path) -> Result<RepoStats> {
    let scope = Scope::new(root)?;
    let listing = crate::retrieve::index::walk::list(scope.root(), MAX_FILES, &mut None);
    let limits = ReadLimits {
        max_bytes: crate::retrieve::index::walk::MAX_FILE_BYTES,
        max_line_chars: 0,
        allow_binary: false,
    };
    let counted = crate::symbols::parallel_map(&listing.files, |f| {
        let file = scope.read_text(&f.rel, &limits).ok()?;
        Some((line_count(&file.text), file.size))
    });
    let mut stats = RepoStats::default();
    for (f, c) in listing.files.iter().zip(counted) {
        let Some((lines, bytes)) = c else { continue };
        stats.total.add(lines, bytes);
        if let Some(lang) = Lang::from_path(&f.rel) {
            stats
                .languages
                .entry(lang.as_str())
                .or_default()
                .add(lines, bytes);
        }
    }
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_files_lines_bytes_per_language() {
        let files = [
            ("src/a.rs", "fn a() {}\nfn b() {}\n"),
            ("src/b.rs", "fn c() {}"),
            ("web/x.ts", "export const x = 1\n"),
            ("README.md", "# hi\n\ntext\n"),
            ("empty.py", ""),
        ];
        let s = files_stats(files.iter().map(|(p, c)| (*p, *c))).unwrap();
        assert_eq!(
            s.total,
            Counts {
                files: 5,
                lines: 7,
                bytes: 59
            }
        );
        assert_eq!(
            s.languages["rust"],
            Counts {
                files: 2,
                lines: 3,
                bytes: 29
            }
        );
        assert_eq!(
            s.languages["typescript"],
            Counts {
                files: 1,
                lines: 1,
                bytes: 19
            }
        );
        assert_eq!(
            s.languages["python"],
            Counts {
                files: 1,
                lines: 0,
                bytes: 0
            }
        );
        assert_eq!(s.languages.len(), 3);
    }

    #[test]
    fn a_root_is_walked_like_retrieval_walks_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join(".gitignore"), "ignored.rs\n").unwrap();
        std::fs::write(root.join("main.go"), "package main\n\nfunc main() {}\n").unwrap();
        std::fs::write(root.join("ignored.rs"), "fn x() {}\n").unwrap();
        std::fs::create_dir(root.join("node_modules")).unwrap();
        std::fs::write(root.join("node_modules/dep.js"), "x\n").unwrap();
        std::fs::write(root.join("notes.txt"), "a\nb").unwrap();
        let s = root_stats(root).unwrap();
        assert_eq!(
            s.total,
            Counts {
                files: 2,
                lines: 5,
                bytes: 32
            }
        );
        assert_eq!(
            s.languages["go"],
            Counts {
                files: 1,
                lines: 3,
                bytes: 29
            }
        );
        assert!(!s.languages.contains_key("rust"));
        assert!(root_stats(Path::new("relative/dir")).is_err());
    }
}
