//! The optional on-disk copy of an index, so that a restarted app does not re-read a large
//! repository.
//!
//! One file per root in the caller's cache directory, named by a hash of the canonical root
//! path, written atomically (a temporary file, then a rename). The format is hand-written
//! little-endian binary: a magic, the format version, the engine version, the root path, the
//! body length and an FNV-1a hash of the body, then the body (files, chunks, terms with their
//! postings, the directories of the last walk and the skipped files). Anything that does not
//! match — another version, another root, a short or altered file, an index that refers
//! outside itself, a path that is not a plain relative path inside the root — makes
//! [`load`] return `None`, and the index is built again: a cache file is never an error.
//!
//! A loaded index is only a starting point: the caller runs the usual freshness check
//! ([`Index::refresh`]), which stats the known files and walks changed directories, so files
//! changed, added or deleted while the app was down are re-read and nothing else is.

use rustc_hash::FxHashMap as HashMap;
use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::chunk;
use super::index::{ChunkMeta, FileMeta, Index, Posting};
use super::walk::{Listed, Stamp, WatchedDir};
use crate::fs_scope::Scope;

const MAGIC: &[u8; 8] = b"CEIDX\r\n\0";
/// Version of the body layout; bump on any change.
pub const FORMAT_VERSION: u32 = 1;
/// The engine version written in the header; a file from another release is ignored.
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The cache file of `root` in `dir`.
pub fn cache_path(dir: &Path, root: &Path) -> PathBuf {
    let h = super::fnv1a(&[root.as_os_str().as_encoded_bytes()]);
    dir.join(format!("{h:016x}.ceidx"))
}

/// Saves `index` in `dir` (created if needed), replacing the root's previous file atomically.
/// Returns the bytes written.
pub fn save(dir: &Path, index: &Index) -> std::io::Result<u64> {
    let bytes = encode(index, ENGINE_VERSION);
    std::fs::create_dir_all(dir)?;
    let target = cache_path(dir, index.scope().root());
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let tmp = dir.join(format!(
        ".{}.{}.{}.tmp",
        target
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("index"),
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(&bytes)?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, &target)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map(|()| bytes.len() as u64)
}

/// The saved index of `scope`'s root in `dir`, or `None` if there is none or it cannot be
/// used (any mismatch or damage).
pub fn load(dir: &Path, scope: &Scope, max_files: usize) -> Option<Index> {
    let bytes = std::fs::read(cache_path(dir, scope.root())).ok()?;
    decode(&bytes, scope.clone(), max_files, ENGINE_VERSION)
}

struct Out(Vec<u8>);

impl Out {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u16(&mut self, v: u16) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn len(&mut self, n: usize) {
        self.u64(n as u64);
    }
    fn bytes(&mut self, b: &[u8]) {
        self.len(b.len());
        self.0.extend_from_slice(b);
    }
    fn time(&mut self, t: Option<SystemTime>) {
        match t.and_then(|t| t.duration_since(UNIX_EPOCH).ok()) {
            Some(d) => {
                self.u8(1);
                self.u64(d.as_secs());
                self.u32(d.subsec_nanos());
            }
            None => self.u8(0),
        }
    }
    fn stamp(&mut self, s: &Stamp) {
        self.u64(s.size);
        self.time(s.modified);
        self.u64(s.ino);
    }
    fn path(&mut self, p: &Path) {
        self.bytes(p.as_os_str().as_encoded_bytes());
    }
}

/// The bytes of `index`, with `version` as the engine version (a parameter for tests).
pub(crate) fn encode(index: &Index, version: &str) -> Vec<u8> {
    let mut b = Out(Vec::with_capacity(1 << 16));
    b.len(index.files.len());
    for f in &index.files {
        match f {
            None => b.u8(0),
            Some(f) => {
                b.u8(1);
                b.bytes(f.rel.as_bytes());
                b.stamp(&f.stamp);
                b.u32(f.chunks.start);
                b.u32(f.chunks.end);
                b.u32(f.len);
                b.time(Some(f.read_at));
            }
        }
    }
    b.len(index.chunks.len());
    for c in &index.chunks {
        b.u32(c.file);
        b.u32(c.start_line);
        b.u32(c.end_line);
        b.u32(c.len);
        b.u8(u8::from(c.alive));
    }
    let mut terms: Vec<(&str, u32)> = index.terms.iter().map(|(k, &v)| (&**k, v)).collect();
    terms.sort_unstable_by_key(|&(_, id)| id);
    b.len(terms.len());
    for (t, id) in terms {
        b.bytes(t.as_bytes());
        let list = &index.postings[id as usize];
        b.len(list.len());
        for p in list {
            b.u32(p.chunk);
            b.u16(p.tf);
            b.u16(p.sym);
        }
        let paths = &index.path_postings[id as usize];
        b.len(paths.len());
        for &f in paths {
            b.u32(f);
        }
    }
    b.len(index.dirs.len());
    for d in &index.dirs {
        b.path(&d.path);
        b.stamp(&d.stamp);
        b.len(d.ignore_files.len());
        for (p, s) in &d.ignore_files {
            b.path(p);
            b.stamp(s);
        }
    }
    b.time(index.walked_at);
    b.len(index.skipped.len());
    for l in &index.skipped {
        b.bytes(l.rel.as_bytes());
        b.stamp(&l.stamp);
    }
    b.u64(index.full_walks);
    let body = b.0;

    let mut h = Out(Vec::with_capacity(body.len() + 256));
    h.0.extend_from_slice(MAGIC);
    h.u32(FORMAT_VERSION);
    h.bytes(version.as_bytes());
    h.path(index.scope().root());
    h.len(body.len());
    h.u64(super::fnv1a(&[&body]));
    h.0.extend_from_slice(&body);
    h.0
}

struct In<'a> {
    b: &'a [u8],
}

impl<'a> In<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if n > self.b.len() {
            return None;
        }
        let (head, tail) = self.b.split_at(n);
        self.b = tail;
        Some(head)
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    fn u16(&mut self) -> Option<u16> {
        Some(u16::from_le_bytes(self.take(2)?.try_into().ok()?))
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    /// A count of items of at least `min` bytes each, refused if the rest cannot hold them
    /// (so a damaged count never allocates much).
    fn len(&mut self, min: usize) -> Option<usize> {
        let n = usize::try_from(self.u64()?).ok()?;
        (n.checked_mul(min.max(1))? <= self.b.len()).then_some(n)
    }
    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.len(1)?;
        self.take(n)
    }
    fn str(&mut self) -> Option<&'a str> {
        std::str::from_utf8(self.bytes()?).ok()
    }
    fn time(&mut self) -> Option<Option<SystemTime>> {
        match self.u8()? {
            0 => Some(None),
            1 => {
                let secs = self.u64()?;
                let nanos = self.u32()?;
                if nanos >= 1_000_000_000 {
                    return None;
                }
                Some(Some(UNIX_EPOCH.checked_add(Duration::new(secs, nanos))?))
            }
            _ => None,
        }
    }
    fn stamp(&mut self) -> Option<Stamp> {
        Some(Stamp {
            size: self.u64()?,
            modified: self.time()?,
            ino: self.u64()?,
        })
    }
    fn path(&mut self) -> Option<PathBuf> {
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            Some(PathBuf::from(std::ffi::OsStr::from_bytes(self.bytes()?)))
        }
        #[cfg(not(unix))]
        {
            Some(PathBuf::from(self.str()?))
        }
    }
}

/// True for a plain relative `'/'`-separated path: no root, no `.`/`..`/empty component, no
/// backslash or NUL. Loaded paths must be this; they are resolved through the scope anyway.
fn plain_relative(rel: &str) -> bool {
    !rel.is_empty()
        && !rel.contains(['\\', '\0'])
        && rel
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != "..")
}

/// True if `p` is `root` or below it, without `..`.
fn inside(root: &Path, p: &Path) -> bool {
    p.starts_with(root) && !p.components().any(|c| matches!(c, Component::ParentDir))
}

/// The index in `bytes`, checked in full, or `None`.
pub(crate) fn decode(bytes: &[u8], scope: Scope, max_files: usize, version: &str) -> Option<Index> {
    let mut r = In { b: bytes };
    if r.take(MAGIC.len())? != MAGIC || r.u32()? != FORMAT_VERSION {
        return None;
    }
    if r.bytes()? != version.as_bytes() {
        return None;
    }
    if r.path()? != scope.root() {
        return None;
    }
    let body_len = usize::try_from(r.u64()?).ok()?;
    let hash = r.u64()?;
    if r.b.len() != body_len || super::fnv1a(&[r.b]) != hash {
        return None;
    }
    let root = scope.root().to_path_buf();
    let mut index = Index::new(scope, max_files);

    let n_files = r.len(1)?;
    let mut files: Vec<Option<FileMeta>> = Vec::with_capacity(n_files);
    for _ in 0..n_files {
        match r.u8()? {
            0 => files.push(None),
            1 => {
                let rel = r.str()?;
                if !plain_relative(rel) {
                    return None;
                }
                let stamp = r.stamp()?;
                let (start, end) = (r.u32()?, r.u32()?);
                let len = r.u32()?;
                let read_at = r.time()??;
                if start > end {
                    return None;
                }
                files.push(Some(FileMeta {
                    rel: rel.to_owned(),
                    stamp,
                    chunks: start..end,
                    len,
                    language: chunk::language(rel),
                    read_at,
                }));
            }
            _ => return None,
        }
    }
    let n_chunks = r.len(17)?;
    let mut chunks: Vec<ChunkMeta> = Vec::with_capacity(n_chunks);
    for _ in 0..n_chunks {
        let c = ChunkMeta {
            file: r.u32()?,
            start_line: r.u32()?,
            end_line: r.u32()?,
            len: r.u32()?,
            alive: match r.u8()? {
                0 => false,
                1 => true,
                _ => return None,
            },
        };
        if c.start_line == 0 || c.end_line < c.start_line || c.file as usize >= n_files {
            return None;
        }
        chunks.push(c);
    }
    // Cross-references: a live file's chunks are its own and alive; every alive chunk belongs
    // to a live file; paths are unique.
    let mut by_path: HashMap<String, u32> = HashMap::default();
    let (mut live_files, mut live_file_tokens) = (0u64, 0u64);
    for (fid, f) in files.iter().enumerate() {
        let Some(f) = f else { continue };
        if f.chunks.end as usize > n_chunks {
            return None;
        }
        let mut tokens = 0u32;
        for cid in f.chunks.clone() {
            let c = &chunks[cid as usize];
            if c.file as usize != fid || !c.alive {
                return None;
            }
            tokens = tokens.saturating_add(c.len);
        }
        if tokens != f.len || by_path.insert(f.rel.clone(), fid as u32).is_some() {
            return None;
        }
        live_files += 1;
        live_file_tokens += u64::from(f.len);
    }
    let (mut live_chunks, mut live_chunk_tokens, mut dead_chunks) = (0u64, 0u64, 0u64);
    for (cid, c) in chunks.iter().enumerate() {
        if c.alive {
            match &files[c.file as usize] {
                Some(f) if f.chunks.contains(&(cid as u32)) => {}
                _ => return None,
            }
            live_chunks += 1;
            live_chunk_tokens += u64::from(c.len);
        } else {
            dead_chunks += 1;
        }
    }

    let n_terms = r.len(17)?;
    let mut terms: HashMap<Box<str>, u32> = HashMap::default();
    terms.reserve(n_terms);
    let mut postings: Vec<Vec<Posting>> = Vec::with_capacity(n_terms);
    let mut path_postings: Vec<Vec<u32>> = Vec::with_capacity(n_terms);
    for id in 0..n_terms {
        let t = r.str()?;
        if t.is_empty() || terms.insert(t.into(), id as u32).is_some() {
            return None;
        }
        let n = r.len(8)?;
        let mut list = Vec::with_capacity(n);
        for _ in 0..n {
            let p = Posting {
                chunk: r.u32()?,
                tf: r.u16()?,
                sym: r.u16()?,
            };
            if p.chunk as usize >= n_chunks {
                return None;
            }
            list.push(p);
        }
        postings.push(list);
        let n = r.len(4)?;
        let mut list = Vec::with_capacity(n);
        for _ in 0..n {
            let f = r.u32()?;
            if f as usize >= n_files {
                return None;
            }
            list.push(f);
        }
        path_postings.push(list);
    }

    let n_dirs = r.len(18)?;
    let mut dirs = Vec::with_capacity(n_dirs);
    for _ in 0..n_dirs {
        let path = r.path()?;
        let stamp = r.stamp()?;
        let n = r.len(18)?;
        let mut ignore_files = Vec::with_capacity(n);
        for _ in 0..n {
            let p = r.path()?;
            let s = r.stamp()?;
            if !inside(&root, &p) {
                return None;
            }
            ignore_files.push((p, s));
        }
        if !inside(&root, &path) {
            return None;
        }
        dirs.push(WatchedDir {
            path,
            stamp,
            ignore_files,
        });
    }
    let walked_at = r.time()?;
    let n_skipped = r.len(18)?;
    let mut skipped = Vec::with_capacity(n_skipped);
    for _ in 0..n_skipped {
        let rel = r.str()?;
        if !plain_relative(rel) {
            return None;
        }
        skipped.push(Listed {
            rel: rel.to_owned(),
            stamp: r.stamp()?,
        });
    }
    let full_walks = r.u64()?;
    if !r.b.is_empty() {
        return None;
    }

    index.terms = terms;
    index.postings = postings;
    index.path_postings = path_postings;
    index.chunks = chunks;
    index.files = files;
    index.by_path = by_path;
    index.live_chunks = live_chunks;
    index.live_chunk_tokens = live_chunk_tokens;
    index.live_files = live_files;
    index.live_file_tokens = live_file_tokens;
    index.dead_chunks = dead_chunks;
    index.dirs = dirs;
    index.walked_at = walked_at;
    index.skipped = skipped;
    index.full_walks = full_walks;
    Some(index)
}

#[cfg(test)]
mod tests {
    use super::super::{Request, Retrieval, RetrievalOptions, Snippet};
    use super::*;
    use std::fs;
    use std::sync::atomic::AtomicUsize;

    /// Writes `text` at `rel` with a modification time `age` seconds ago (old enough not to
    /// count as racy).
    fn write(root: &Path, rel: &str, text: &str, age: u64) {
        let p = root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, text).unwrap();
        let f = fs::File::options().write(true).open(&p).unwrap();
        f.set_modified(SystemTime::now() - Duration::from_secs(age))
            .unwrap();
    }

    fn tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        write(r, "src/router.ts", "export class Router {\n  addRoute(path: string) {\n    this.routes.push(path)\n  }\n}\n", 3600);
        write(
            r,
            "src/cookie.ts",
            "export function parseCookie(header: string) {\n  return header.split(';')\n}\n",
            3600,
        );
        write(
            r,
            "lib/old.py",
            "def legacy_handler(request):\n    return request.cookies\n",
            3600,
        );
        write(r, ".gitignore", "ignored.ts\n", 3600);
        write(r, "ignored.ts", "export function parseCookie() {}\n", 3600);
        write(r, "big.bin", "x", 3600);
        dir
    }

    fn options(cache: &Path) -> RetrievalOptions {
        RetrievalOptions {
            cache_dir: Some(cache.to_path_buf()),
            ..RetrievalOptions::default()
        }
    }

    fn ask(r: &Retrieval, root: &Path, prompt: &str) -> Vec<Snippet> {
        r.retrieve(&Request {
            prompt: prompt.to_owned(),
            root: root.to_str().unwrap().to_owned(),
            limit: 20,
        })
        .unwrap()
    }

    fn built(root: &Path) -> Index {
        let mut index = Index::new(Scope::new(root).unwrap(), 1000);
        index.refresh(&AtomicUsize::new(0));
        index
    }

    #[test]
    fn round_trip_keeps_the_index() {
        let dir = tree();
        let index = built(dir.path());
        let bytes = encode(&index, ENGINE_VERSION);
        let back = decode(&bytes, index.scope().clone(), 1000, ENGINE_VERSION).unwrap();
        assert_eq!(back.stats(), index.stats());
        assert_eq!(back.by_path, index.by_path);
        assert_eq!(back.dirs, index.dirs);
        assert_eq!(back.walked_at, index.walked_at);
        assert_eq!(
            encode(&back, ENGINE_VERSION),
            bytes,
            "re-encoding is identical"
        );
    }

    #[test]
    fn restart_answers_identically_without_rereading() {
        let dir = tree();
        let cache = tempfile::tempdir().unwrap();
        let root = dir.path();
        let first = Retrieval::new(options(cache.path()));
        let before = ask(&first, root, "parse cookie header");
        assert!(!before.is_empty());
        assert_eq!(
            fs::read_dir(cache.path()).unwrap().count(),
            1,
            "one file per root"
        );
        drop(first);

        let second = Retrieval::new(options(cache.path()));
        assert_eq!(ask(&second, root, "parse cookie header"), before);
        let status = second.status(root.to_str().unwrap()).unwrap();
        assert_eq!(status.files_read, 0, "nothing re-read after a restart");
        assert_eq!(status.stats.files, 3);
    }

    #[test]
    fn edits_while_down_are_seen_and_only_they_are_read() {
        let dir = tree();
        let cache = tempfile::tempdir().unwrap();
        let root = dir.path();
        let first = Retrieval::new(options(cache.path()));
        assert!(!ask(&first, root, "legacy handler").is_empty());
        drop(first);

        // While "down": one file changed, one added, one deleted.
        write(root, "src/cookie.ts", "export function serializeCookie(name: string, value: string) {\n  return name + '=' + value\n}\n", 1800);
        write(
            root,
            "src/session.ts",
            "export function loadSession(token: string) {\n  return token\n}\n",
            1800,
        );
        fs::remove_file(root.join("lib/old.py")).unwrap();

        let second = Retrieval::new(options(cache.path()));
        let got = ask(&second, root, "serializeCookie");
        assert_eq!(got[0].path, "src/cookie.ts");
        assert!(got[0].content.contains("serializeCookie"));
        assert!(
            ask(&second, root, "parseCookie header")
                .iter()
                .all(|s| !s.content.contains("parseCookie")),
            "old content gone"
        );
        assert_eq!(ask(&second, root, "loadSession")[0].path, "src/session.ts");
        assert!(
            ask(&second, root, "legacy handler").is_empty(),
            "deleted file gone"
        );
        let status = second.status(root.to_str().unwrap()).unwrap();
        assert_eq!(status.stats.files, 3);
        drop(second);

        // The update was saved: a third start reads nothing.
        let third = Retrieval::new(options(cache.path()));
        assert_eq!(ask(&third, root, "loadSession")[0].path, "src/session.ts");
        assert_eq!(third.status(root.to_str().unwrap()).unwrap().files_read, 0);
    }

    #[test]
    fn damaged_or_foreign_files_are_ignored() {
        let dir = tree();
        let index = built(dir.path());
        let scope = index.scope().clone();
        let bytes = encode(&index, ENGINE_VERSION);
        let ok = |b: &[u8]| decode(b, scope.clone(), 1000, ENGINE_VERSION).is_some();
        assert!(ok(&bytes));
        // Every truncation.
        for n in 0..bytes.len() {
            assert!(!ok(&bytes[..n]), "truncated at {n}");
        }
        // Trailing garbage, flipped bytes anywhere (header fields, lengths, body), garbage.
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(!ok(&longer));
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x5a;
            assert!(!ok(&b), "flipped byte {i}");
        }
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for len in [0usize, 1, 8, 64, 4096] {
            let garbage: Vec<u8> = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    seed as u8
                })
                .collect();
            assert!(!ok(&garbage));
            let mut with_magic = MAGIC.to_vec();
            with_magic.extend_from_slice(&garbage);
            assert!(!ok(&with_magic));
        }
        // Another engine version, another format version, another root.
        assert!(decode(
            &encode(&index, "0.0.0-other"),
            scope.clone(),
            1000,
            ENGINE_VERSION
        )
        .is_none());
        let mut b = bytes.clone();
        b[MAGIC.len()..MAGIC.len() + 4].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
        assert!(!ok(&b));
        let other = tempfile::tempdir().unwrap();
        assert!(decode(
            &bytes,
            Scope::new(other.path()).unwrap(),
            1000,
            ENGINE_VERSION
        )
        .is_none());
    }

    #[test]
    fn a_bad_cache_file_means_a_rebuild_not_an_error() {
        let dir = tree();
        let cache = tempfile::tempdir().unwrap();
        let root = dir.path();
        let canonical = Scope::new(root).unwrap().root().to_path_buf();
        let file = cache_path(cache.path(), &canonical);
        for junk in [&b""[..], b"CEIDX\r\n\0garbage", &[0xffu8; 100][..]] {
            fs::write(&file, junk).unwrap();
            let r = Retrieval::new(options(cache.path()));
            assert_eq!(ask(&r, root, "parseCookie")[0].path, "src/cookie.ts");
            assert_eq!(r.status(root.to_str().unwrap()).unwrap().files_read, 3);
            // ...and the rebuild replaced the bad file with a good one.
            let again = Retrieval::new(options(cache.path()));
            assert_eq!(ask(&again, root, "parseCookie")[0].path, "src/cookie.ts");
            assert_eq!(again.status(root.to_str().unwrap()).unwrap().files_read, 0);
        }
        // An unusable cache directory (a file in its place) does not fail requests.
        let blocked = cache.path().join("not-a-dir");
        fs::write(&blocked, "x").unwrap();
        let r = Retrieval::new(options(&blocked));
        assert_eq!(ask(&r, root, "parseCookie")[0].path, "src/cookie.ts");
    }

    #[test]
    fn paths_leaving_the_root_are_refused() {
        assert!(plain_relative("src/a.ts"));
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../../x",
            "a//b",
            "./a",
            "a\\b",
            "a\0b",
            "a/",
        ] {
            assert!(!plain_relative(bad), "{bad:?}");
        }
        let dir = tree();
        let mut index = built(dir.path());
        let scope = index.scope().clone();
        let fid = index.by_path["src/cookie.ts"] as usize;
        index.files[fid].as_mut().unwrap().rel = "../outside.ts".into();
        assert!(decode(
            &encode(&index, ENGINE_VERSION),
            scope.clone(),
            1000,
            ENGINE_VERSION
        )
        .is_none());
        let mut index = built(dir.path());
        index.dirs[0].path = PathBuf::from("/etc");
        assert!(decode(&encode(&index, ENGINE_VERSION), scope, 1000, ENGINE_VERSION).is_none());
    }
}
