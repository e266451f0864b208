//! The symbol index on disk: one file per repository in the cache directory, named by a hash
//! of the repository's name (`<16 hex digits>.cesym`), so that indexing one repository
//! rewrites its file alone.
//!
//! The framing is the crate's cache-file framing ([`crate::cache_file`]): magic `CESYM`, the
//! body layout version [`FORMAT_VERSION`], the engine version, the repository's name as the
//! key, the body, and a trailer with the body's length and checksum. The body, little-endian
//! with variable-length numbers (`var`) and strings as a `var` length and UTF-8 bytes:
//!
//! ```text
//! var files
//! per file, by path:  path, hash of the content (2 × u64), u8 language (its index in
//!                     Lang::ALL; high bit: the parse did not finish), var symbols,
//!                     per symbol: u8 kind, name, var line, var end_line - line, var column,
//!                                 signature and scope (var 0 when absent, else length + 1)
//! ```
//!
//! The repository name and file path are stored once, not per symbol. Loading checks
//! everything a search relies on: the key hashes to the file's name, paths are valid, strictly
//! increasing and of the language recorded, kinds and languages are known, counts fit in what
//! is left, lines start at 1, and nothing follows the last file. A file that fails any check —
//! another engine version or layout, another repository's file under this name, a short or
//! altered file, not a regular file — is ignored: that repository is parsed again when next
//! indexed, and its file rewritten.
//!
//! Bump [`FORMAT_VERSION`] on any change of the layout, or of what the registry's grammars
//! and definition rules extract (`syntax::defs`), so that symbols saved by an older build are
//! parsed again rather than served.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{check_repo, FileEntry, Repo, Symbol, SymbolKind, MAX_FILES, MAX_NAME_BYTES};
use crate::cache_file::{self, Header, In, Out};
use crate::syntax::Lang;

const MAGIC: &[u8; 8] = b"CESYM\r\n\0";
/// Version of the body layout and of the definitions it holds; bump on any change.
pub const FORMAT_VERSION: u32 = 1;
/// Largest file read; a larger one is ignored.
const MAX_CACHE_BYTES: u64 = 1 << 30;
const SUFFIX: &str = ".cesym";
/// The high bit of the language byte: the file's parse did not finish.
const INCOMPLETE: u8 = 0x80;

fn header() -> Header<'static> {
    Header {
        magic: MAGIC,
        format: FORMAT_VERSION,
        version: env!("CARGO_PKG_VERSION"),
    }
}

/// The file name of `repo`'s saved copy.
fn file_name(repo: &str) -> String {
    format!(
        "{:016x}{SUFFIX}",
        xxhash_rust::xxh3::xxh3_64(repo.as_bytes())
    )
}

/// True for names [`file_name`] gives.
fn is_cache_name(name: &str) -> bool {
    name.strip_suffix(SUFFIX)
        .is_some_and(|h| h.len() == 16 && h.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The path of `repo`'s saved copy in `dir`.
pub(super) fn path_of(dir: &Path, repo: &str) -> PathBuf {
    dir.join(file_name(repo))
}

/// Writes `repo` (named `name`) to `dir` atomically; returns the bytes written.
pub(super) fn save(dir: &Path, name: &str, repo: &Repo) -> std::io::Result<u64> {
    let (n, _) = cache_file::write_atomically(dir, &path_of(dir, name), |file| {
        let mut w = std::io::BufWriter::with_capacity(1 << 16, file);
        let n = encode_into(name, repo, &mut w)?;
        w.flush()?;
        Ok(n)
    })?;
    Ok(n)
}

/// Removes `repo`'s saved copy from `dir`, if any.
pub(super) fn remove(dir: &Path, repo: &str) {
    let _ = std::fs::remove_file(path_of(dir, repo));
}

/// Every usable repository saved in `dir`, by name (read on up to `threads` threads); nothing
/// when `dir` cannot be read.
pub(super) fn load_all(dir: &Path, threads: usize) -> Vec<(Arc<str>, Repo)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| is_cache_name(n))
        .collect();
    names.sort_unstable();
    let loaded = super::parallel::parallel_map_on(
        threads,
        &names,
        |_| 0,
        |n| {
            let file = cache_file::open_regular(&dir.join(n), MAX_CACHE_BYTES)?;
            decode(&cache_file::read_limited(file, MAX_CACHE_BYTES)?, n)
        },
    );
    let mut out: Vec<(Arc<str>, Repo)> = loaded.into_iter().flatten().collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn opt<W: Write>(b: &mut Out<'_, W>, s: Option<&str>) {
    match s {
        None => b.var(0),
        Some(s) => {
            b.var(s.len() as u64 + 1);
            b.raw(s.as_bytes());
        }
    }
}

/// Writes the file of `repo` (named `name`) to `w`; returns the bytes written.
pub(super) fn encode_into<W: Write>(name: &str, repo: &Repo, w: &mut W) -> std::io::Result<u64> {
    let at = header().write(w, name.as_bytes())?;
    let mut b = Out::at(w, at);
    b.var(repo.files.len() as u64);
    for (path, f) in &repo.files {
        if b.err.is_some() {
            break;
        }
        b.var_bytes(path.as_bytes());
        b.u64(f.hash as u64);
        b.u64((f.hash >> 64) as u64);
        let lang = f.lang.index() as u8;
        b.u8(if f.complete { lang } else { lang | INCOMPLETE });
        b.var(f.symbols.len() as u64);
        for s in &f.symbols {
            b.u8(s.kind as u8);
            b.var_bytes(s.name.as_bytes());
            b.var(s.line as u64);
            b.var((s.end_line - s.line) as u64);
            b.var(s.column as u64);
            opt(&mut b, s.signature.as_deref());
            opt(&mut b, s.scope.as_deref());
        }
    }
    let body = cache_file::write_trailer(b)?;
    Ok(at + body + 16)
}

impl In<'_> {
    /// A string written by `opt`: `Some(None)` when absent, `None` when malformed.
    #[allow(clippy::option_option)]
    fn opt_str(&mut self) -> Option<Option<&str>> {
        let n = usize::try_from(self.var()?).ok()?;
        if n == 0 {
            return Some(None);
        }
        Some(Some(std::str::from_utf8(self.take(n - 1)?).ok()?))
    }
    fn var_usize(&mut self) -> Option<usize> {
        usize::try_from(self.var()?).ok()
    }
}

/// The repository saved in `bytes` (read from the file called `stored_as`), checked in full,
/// or `None`.
pub(super) fn decode(bytes: &[u8], stored_as: &str) -> Option<(Arc<str>, Repo)> {
    let (key, mut r) = cache_file::checked_body(bytes, &header())?;
    let name = std::str::from_utf8(key).ok()?;
    if check_repo(name).is_err() || file_name(name) != stored_as {
        return None;
    }
    let repo: Arc<str> = Arc::from(name);
    // A file is at least its path, hash, language and count: 20 bytes.
    let n_files = r.var_len(20)?;
    if n_files > MAX_FILES {
        return None;
    }
    let mut files = BTreeMap::new();
    let mut symbols = 0usize;
    let mut previous: Option<Arc<str>> = None;
    for _ in 0..n_files {
        let path = r.var_str()?;
        if path.is_empty()
            || path.len() > MAX_NAME_BYTES
            || path.contains('\0')
            || previous.as_deref().is_some_and(|p| p >= path)
        {
            return None;
        }
        let hash = u128::from(r.u64()?) | (u128::from(r.u64()?) << 64);
        let code = r.u8()?;
        let lang = *Lang::ALL.get(usize::from(code & !INCOMPLETE))?;
        if Lang::from_path(path) != Some(lang) {
            return None;
        }
        let file: Arc<str> = Arc::from(path);
        // A symbol is at least its kind, name, lines, column and two absent strings: 7 bytes.
        let n = r.var_len(7)?;
        let mut list = Vec::with_capacity(n);
        for _ in 0..n {
            let kind = *SymbolKind::ALL.get(usize::from(r.u8()?))?;
            let name = r.var_str()?;
            if name.is_empty() || name.len() > MAX_NAME_BYTES {
                return None;
            }
            let line = r.var_usize()?;
            let end_line = line.checked_add(r.var_usize()?)?;
            let column = r.var_usize()?;
            let signature = r.opt_str()?.map(str::to_owned);
            let scope = r.opt_str()?.map(str::to_owned);
            if line == 0 || u32::try_from(end_line).is_err() || u32::try_from(column).is_err() {
                return None;
            }
            list.push(Symbol {
                repo: repo.clone(),
                file: file.clone(),
                line,
                end_line,
                column,
                kind,
                lower: name.to_lowercase(),
                name: name.to_owned(),
                signature,
                scope,
                language: lang,
            });
        }
        symbols += list.len();
        let entry = FileEntry {
            hash,
            lang,
            complete: code & INCOMPLETE == 0,
            symbols: list,
        };
        files.insert(file.clone(), Arc::new(entry));
        previous = Some(file);
    }
    if !r.b.is_empty() {
        return None;
    }
    Some((repo, Repo { files, symbols }))
}
