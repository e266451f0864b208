//! The optional on-disk copy of an index, so that a restarted app does not re-read a large
//! repository.
//!
//! One file per root in the caller's cache directory, named by a hash of the canonical root
//! path. The format is hand-written little-endian binary: a magic, the format version, the
//! engine version, the root path, then the body (files, chunks, terms with their postings in
//! variable-length numbers with chunk ids as gaps, the directories of the last walk, the
//! skipped files, the coverage counts), then a trailer with the body's length and a
//! checksum of it. Anything that does not match — another version, another root, a short or
//! altered file, an index that refers outside itself, a path that is not a plain relative path
//! inside the root — makes [`load`] return `None`, and the index is built again: a cache file
//! is never an error.
//!
//! The framing (header, trailer, checksum) and the careful file handling are the crate's
//! shared ones ([`crate::cache_file`]): [`load`] opens without following a symlink and without
//! blocking (a FIFO), checks on the open descriptor that it is a regular file no larger than
//! [`MAX_CACHE_BYTES`], and maps it (Unix; see [`super::mapped`]) or reads at most that;
//! [`save`] streams the index into a temporary file with an unpredictable name created
//! exclusively (`O_CREAT | O_EXCL`, so a link planted at that name is never followed), then
//! renames it over the old file.
//!
//! The terms' fingerprints, run starts and posting runs are laid out as the index reads them,
//! so that a loaded or just-saved index reads them from the mapped file instead of the heap.
//!
//! A loaded index is only a starting point: the caller runs the usual freshness check
//! ([`Index::refresh`]), which stats the known files and walks changed directories, so files
//! changed, added or deleted while the app was down are re-read and nothing else is.

use rustc_hash::FxHashMap as HashMap;
use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::chunk;
use super::mapped::{words, Bytes, Map, Region, Seq};
use super::terms::{PackWriter, PackedStarts, PathPostings, Postings, TermIds};
use super::walk::{Stamp, WatchedDir};
use super::{ChunkMeta, FileMeta, Index, Parts, SkipReason};
use crate::cache_file::{self, Header, In, Out};
use crate::fs_scope::Scope;
use crate::retrieve::query::central::Central;
use crate::retrieve::query::{rank, roles};
use std::sync::Arc;

const MAGIC: &[u8; 8] = b"CEIDX\r\n\0";
/// Version of the body layout; bump on any change.
pub const FORMAT_VERSION: u32 = 14;
/// The engine version written in the header; a file from another release is ignored.
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");
/// Largest cache file read; a larger one is ignored (and rebuilt).
pub const MAX_CACHE_BYTES: u64 = 4 << 30;

/// The header of a retrieval cache file written by engine `version`.
fn header(version: &str) -> Header<'_> {
    Header {
        magic: MAGIC,
        format: FORMAT_VERSION,
        version,
    }
}

/// The cache file of `root` in `dir`.
pub fn cache_path(dir: &Path, root: &Path) -> PathBuf {
    let h = crate::retrieve::fnv1a(&[root.as_os_str().as_encoded_bytes()]);
    dir.join(format!("{h:016x}.ceidx"))
}

/// Saves `index` in `dir` (created if needed), replacing the root's previous file atomically.
/// Returns the bytes written.
#[cfg_attr(not(test), allow(dead_code))] // only the tests call it
pub fn save(dir: &Path, index: &Index) -> std::io::Result<u64> {
    save_yielding(dir, index, None).map(|s| s.bytes)
}

/// What a save wrote.
#[derive(Debug)]
pub(crate) struct Saved {
    /// Bytes written.
    #[cfg_attr(not(test), allow(dead_code))] // only the tests' save reads it
    pub bytes: u64,
    /// The written file's fingerprints, runs and run starts, mapped (where mapping is
    /// available) for [`Index::serve_mapped`].
    pub mapped: Option<MappedParts>,
}

/// The parts of a cache file an index can read instead of its heap copies
/// ([`super::mapped`]).
#[derive(Debug)]
pub(crate) struct MappedParts {
    pub fps: Seq<u64>,
    pub runs: Region,
    pub starts: PackedStarts,
}

/// Where the mappable parts of a file being written lie.
#[derive(Clone, Copy, Default)]
struct Layout {
    fps: (u64, u64),
    runs: (u64, u64),
    /// The run starts' blocks and escapes.
    blocks: (u64, u64),
    escapes: (u64, u64),
    terms: usize,
}

impl Layout {
    fn map(self, map: &Arc<Map>) -> Option<MappedParts> {
        let region = |(at, len): (u64, u64)| {
            Region::new(map, usize::try_from(at).ok()?, usize::try_from(len).ok()?)
        };
        let runs = region(self.runs)?;
        // Checked as a load checks them (a pass over 4 MB on the kernel): what is mapped is
        // what was written, and a mapping that read otherwise is not used.
        let starts = PackedStarts::checked(
            Bytes::Mapped(region(self.blocks)?),
            Bytes::Mapped(region(self.escapes)?),
            self.terms,
            runs.len(),
        )?;
        Some(MappedParts {
            fps: Seq::mapped(region(self.fps)?),
            runs,
            starts,
        })
    }
}

/// [`save`], abandoned with [`std::io::ErrorKind::WouldBlock`] (the old file left in place)
/// as soon as `waiting` is non-zero, checked after every block written. The written file is
/// mapped through the descriptor that wrote it (so what is mapped is what this save wrote,
/// whatever replaces the file by name later).
pub(crate) fn save_yielding(
    dir: &Path,
    index: &Index,
    waiting: Option<&std::sync::atomic::AtomicUsize>,
) -> std::io::Result<Saved> {
    let target = cache_path(dir, index.scope().root());
    let ((n, layout), file) = cache_file::write_atomically(dir, &target, |file| {
        let mut w = std::io::BufWriter::with_capacity(1 << 20, Yielding { file, waiting });
        let written = encode_into(index, ENGINE_VERSION, &mut w)?;
        w.flush()?;
        Ok(written)
    })?;
    let mapped = Map::of(&file).and_then(|m| layout.map(&m));
    Ok(Saved { bytes: n, mapped })
}

/// Writes `index` as a cache file would hold it to a new unnamed temporary file
/// ([`cache_file::unnamed_temp_file`]) and maps it, for an index without a cache directory:
/// its fingerprints, runs and run starts are then read from the file's pages
/// ([`Index::serve_mapped`]) as a saved index's are, instead of from the heap. Nothing is
/// kept after the process: the file has no name. Gives way to a waiting request as
/// [`save_yielding`] does; `Unsupported` where such a file cannot be made (or would live in
/// memory).
pub(crate) fn spill_yielding(
    index: &Index,
    waiting: Option<&std::sync::atomic::AtomicUsize>,
) -> std::io::Result<Saved> {
    let mut file = cache_file::unnamed_temp_file()?;
    let (n, layout) = {
        let mut w = std::io::BufWriter::with_capacity(
            1 << 20,
            Yielding {
                file: &mut file,
                waiting,
            },
        );
        let written = encode_into(index, ENGINE_VERSION, &mut w)?;
        w.flush()?;
        written
    };
    let mapped = Map::of(&file).and_then(|m| layout.map(&m));
    Ok(Saved { bytes: n, mapped })
}

/// A file writer that fails with `WouldBlock` once someone is waiting (not `Interrupted`,
/// which `write_all` retries).
struct Yielding<'a> {
    file: &'a mut std::fs::File,
    waiting: Option<&'a std::sync::atomic::AtomicUsize>,
}

impl Write for Yielding<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self
            .waiting
            .is_some_and(|w| w.load(std::sync::atomic::Ordering::Acquire) > 0)
        {
            return Err(std::io::Error::from(std::io::ErrorKind::WouldBlock));
        }
        self.file.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// The saved index of `scope`'s root in `dir`, or `None` if there is none or it cannot be
/// used (any mismatch or damage, or not a regular file). Where mapping is available, the
/// file is mapped, checked in full, and its fingerprints, runs and run starts are then read
/// from the mapping ([`super::mapped`]); elsewhere it is read.
pub fn load(dir: &Path, scope: &Scope, max_files: usize) -> Option<Index> {
    let file = cache_file::open_regular(&cache_path(dir, scope.root()), MAX_CACHE_BYTES)?;
    if let Some(map) = Map::of(&file) {
        if map.bytes().len() as u64 > MAX_CACHE_BYTES {
            return None;
        }
        let index = decode_in(
            map.bytes(),
            Some(&map),
            scope.clone(),
            max_files,
            ENGINE_VERSION,
        );
        // The check read every page: only what queries read stays mapped.
        map.release_pages();
        return index;
    }
    let bytes = cache_file::read_limited(file, MAX_CACHE_BYTES)?;
    decode(&bytes, scope.clone(), max_files, ENGINE_VERSION)
}

/// The bytes of `index`, with `version` as the engine version (a parameter for tests).
#[cfg(test)]
pub(crate) fn encode(index: &Index, version: &str) -> Vec<u8> {
    let mut v = Vec::new();
    encode_into(index, version, &mut v).expect("writing to memory");
    v
}

/// Writes `index` to `w`; returns the bytes written and where the mappable parts are.
fn encode_into<W: Write>(
    index: &Index,
    version: &str,
    w: &mut W,
) -> std::io::Result<(u64, Layout)> {
    let root = index.scope().root().as_os_str().as_encoded_bytes();
    let header = header(version).write(w, root)?;
    let mut b = Out::at(w, header);
    write_files(&mut b, index);
    let layout = write_terms(&mut b, index)?;
    write_names(&mut b, index);
    write_walk(&mut b, index);
    let body = cache_file::write_trailer(b)?;
    Ok((header + body + 16, layout))
}

/// The files, then the chunks. Read only at load and decoded once into the heap, so they are
/// written small: each path as the length of the prefix it shares with the previous file's
/// and the rest, stamps and counts as variable-length numbers, and each chunk as differences
/// from the previous one ([`write_chunk`]). On the kernel this took the 27 MB of fixed-width
/// records to 11.
fn write_files<W: Write>(b: &mut Out<'_, W>, index: &Index) {
    b.len(index.files.len());
    let mut prev: &str = "";
    for f in &index.files {
        if b.err.is_some() {
            return;
        }
        match f {
            None => b.u8(0),
            Some(f) => {
                // 2: a role its text gave it ([`roles::role_of_text`]), not its path. The only
                // such role is declarations, so the path is classified for those alone.
                let from_text =
                    f.role == roles::Role::Declarations && roles::role_of(&f.rel) != f.role;
                b.u8(if from_text { 2 } else { 1 });
                let shared = shared_prefix(prev, &f.rel);
                b.var(shared as u64);
                b.var_bytes(&f.rel.as_bytes()[shared..]);
                prev = &f.rel;
                b.stamp(&f.stamp);
                b.var(u64::from(f.chunks.start));
                b.var(u64::from(f.chunks.end.saturating_sub(f.chunks.start)));
                b.var(u64::from(f.len));
                b.time(Some(f.read_at));
            }
        }
    }
    b.len(index.chunks.len());
    let (mut file, mut end) = (0u32, 0u32);
    for c in &index.chunks {
        write_chunk(b, c, file, end);
        (file, end) = (c.file, c.end_line);
    }
}

/// The bytes `a` and `b` share at their start, cut back to a character boundary.
fn shared_prefix(a: &str, b: &str) -> usize {
    let mut n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !b.is_char_boundary(n) {
        n -= 1;
    }
    n
}

/// `v` with its sign in the low bit, so that small differences either way are small numbers.
fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    (v >> 1) as i64 ^ -((v & 1) as i64)
}

/// A chunk after one of file `file` ending at line `end`: the file's difference (its sign in
/// the low bit) with the chunk's liveness below it, the first line's difference from `end`,
/// the lines after the first, the tokens; each a variable-length number (4-5 bytes a chunk
/// instead of 17).
fn write_chunk<W: Write>(b: &mut Out<'_, W>, c: &ChunkMeta, file: u32, end: u32) {
    b.var(zigzag(i64::from(c.file) - i64::from(file)) << 1 | u64::from(c.alive));
    b.var(zigzag(i64::from(c.start_line) - i64::from(end)));
    b.var(u64::from(c.end_line.wrapping_sub(c.start_line)));
    b.var(u64::from(c.len));
}

/// The terms: their fingerprints (8 bytes each, little-endian), the starts of their runs of
/// postings ([`PackedStarts`]: blocks, then the escapes after their length), the runs' length
/// and the runs (in the in-memory encoding of `terms::Postings`, one after another in term
/// order), then the path postings of the terms that have any. The fingerprints, starts and
/// runs are laid out as the index reads them, so that it can read them from the mapped file.
/// Each part is written in blocks, so that a save gives way to a waiting request within one
/// block (no pass over the terms runs without writing).
fn write_terms<W: Write>(b: &mut Out<'_, W>, index: &Index) -> std::io::Result<Layout> {
    const BLOCK: usize = 1 << 16;
    let n = index.terms.len();
    let mut layout = Layout {
        terms: n,
        ..Layout::default()
    };
    b.len(n);
    let mut buf = Vec::with_capacity(BLOCK + 64);
    let block = |b: &mut Out<'_, W>, buf: &mut Vec<u8>, last: bool| {
        if buf.len() >= BLOCK || last {
            b.raw(buf);
            buf.clear();
        }
        // Abandoned (a request is waiting): stop at once, not after millions of no-ops.
        b.err.is_some()
    };
    let at = b.pos();
    for id in 0..n as u32 {
        buf.extend_from_slice(&index.terms.fingerprint(id).to_le_bytes());
        if block(b, &mut buf, false) {
            return Ok(layout);
        }
    }
    block(b, &mut buf, true);
    layout.fps = (at, b.pos() - at);
    let at = b.pos();
    let mut starts = PackWriter::new();
    for (id, run) in index.postings.runs().enumerate() {
        let len = run.len() + index.postings.pending_encoded_len(id as u32);
        if starts.push(len as u64, &mut buf).is_none() {
            return Err(std::io::Error::other(
                "the index is too large for a cache file",
            ));
        }
        if block(b, &mut buf, false) {
            return Ok(layout);
        }
    }
    let (escapes, runs_len) = starts.finish(&mut buf);
    block(b, &mut buf, true);
    layout.blocks = (at, b.pos() - at);
    b.len(escapes.len());
    let at = b.pos();
    b.raw(&escapes);
    layout.escapes = (at, b.pos() - at);
    b.u64(runs_len);
    let at = b.pos();
    for (id, run) in index.postings.runs().enumerate() {
        buf.extend_from_slice(run);
        index.postings.encode_pending(id as u32, &mut buf);
        if block(b, &mut buf, false) {
            return Ok(layout);
        }
    }
    block(b, &mut buf, true);
    layout.runs = (at, b.pos() - at);
    let with_paths = index.path_postings.terms_sorted();
    b.len(with_paths.len());
    for t in with_paths {
        let files = &index.path_postings[t as usize];
        b.var(u64::from(t));
        b.var(files.len() as u64);
        for &f in files {
            b.var(u64::from(f));
        }
    }
    Ok(layout)
}

/// The names each file defines, as ranking's centrality record holds them (per file: 0 if not
/// recorded, else the record's length plus one, then the record).
fn write_names<W: Write>(b: &mut Out<'_, W>, index: &Index) {
    let central = index
        .central
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    b.len(index.files.len());
    for fid in 0..index.files.len() as u32 {
        match central.recorded(fid) {
            Some(run) if index.files[fid as usize].is_some() => {
                b.var(run.len() as u64 + 1);
                b.raw(run);
            }
            _ => b.var(0),
        }
    }
}

fn read_names(r: &mut In<'_>, n_files: usize, n_terms: usize) -> Option<Central> {
    if r.len(1)? != n_files {
        return None;
    }
    let mut runs = Vec::with_capacity(n_files);
    for _ in 0..n_files {
        let n = r.var_len(1)?;
        runs.push(if n == 0 { None } else { Some(r.take(n - 1)?) });
    }
    Central::restored(&runs, n_terms)
}

fn write_walk<W: Write>(b: &mut Out<'_, W>, index: &Index) {
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
    let mut skipped: Vec<(&String, &(Stamp, SkipReason))> = index.skipped.iter().collect();
    skipped.sort_unstable_by(|a, b| a.0.cmp(b.0));
    b.len(skipped.len());
    for (rel, (stamp, reason)) in skipped {
        b.bytes(rel.as_bytes());
        b.stamp(stamp);
        b.u8(reason.code());
    }
    b.u64(index.over_limit as u64);
    b.u64(index.ignored as u64);
    b.len(index.warnings.len());
    for w in &index.warnings {
        b.bytes(w.as_bytes());
    }
    b.u64(index.full_walks);
}

/// The retrieval cache's own records, beside the shared primitives.
impl<W: Write> Out<'_, W> {
    fn path(&mut self, p: &Path) {
        self.bytes(p.as_os_str().as_encoded_bytes());
    }
    /// A time in variable-length numbers: 0 for none (or before 1970), else the seconds since
    /// 1970 plus one, then the nanoseconds.
    fn time(&mut self, t: Option<SystemTime>) {
        match t.and_then(|t| t.duration_since(UNIX_EPOCH).ok()) {
            Some(d) => {
                self.var(d.as_secs().saturating_add(1));
                self.var(u64::from(d.subsec_nanos()));
            }
            None => self.var(0),
        }
    }
    /// A file's stamp (size, modified time, device, inode, status change) in variable-length
    /// numbers.
    fn stamp(&mut self, s: &Stamp) {
        self.var(s.size);
        self.time(s.modified);
        self.var(s.dev);
        self.var(s.ino);
        self.var(zigzag(s.ctime_ns));
    }
}

/// The retrieval cache's own records, beside the shared primitives.
impl In<'_> {
    #[allow(clippy::option_option)] // None: a bad record; Some(None): no time recorded
    fn time(&mut self) -> Option<Option<SystemTime>> {
        match self.var()? {
            0 => Some(None),
            secs => {
                let nanos = self.var_u32()?;
                if nanos >= 1_000_000_000 {
                    return None;
                }
                Some(Some(
                    UNIX_EPOCH.checked_add(Duration::new(secs - 1, nanos))?,
                ))
            }
        }
    }
    fn stamp(&mut self) -> Option<Stamp> {
        Some(Stamp {
            size: self.var()?,
            modified: self.time()?,
            dev: self.var()?,
            ino: self.var()?,
            ctime_ns: unzigzag(self.var()?),
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

/// True if `rel` is a plain `'/'`-separated relative path: no empty, `.` or `..` component,
/// not absolute, no backslash or NUL, and on Windows no `:` (`C:/x` joined to the root would
/// replace it; Windows names cannot hold a colon anyway).
fn plain_relative(rel: &str) -> bool {
    !rel.is_empty()
        && !rel.starts_with('/')
        && !rel.contains(['\\', '\0'])
        && (!cfg!(windows) || !rel.contains(':'))
        && rel
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != "..")
}

/// True if `p` is `root` or below it, without `..`.
fn inside(root: &Path, p: &Path) -> bool {
    p.starts_with(root) && !p.components().any(|c| matches!(c, Component::ParentDir))
}

/// The index in `bytes`, checked in full, or `None`. The steps follow the layout: header and
/// trailer, files, chunks (then their cross-references), terms, the last walk.
pub(crate) fn decode(bytes: &[u8], scope: Scope, max_files: usize, version: &str) -> Option<Index> {
    decode_in(bytes, None, scope, max_files, version)
}

/// [`decode`]; when `bytes` are all of `map`, the index reads its fingerprints, runs and run
/// starts from the mapping instead of heap copies.
fn decode_in(
    bytes: &[u8],
    map: Option<&Arc<Map>>,
    scope: Scope,
    max_files: usize,
    version: &str,
) -> Option<Index> {
    let mut r = checked_body(bytes, &scope, version)?;
    let files = read_files(&mut r)?;
    let chunks = read_chunks(&mut r, files.len())?;
    let by_path = check_references(&files, &chunks)?;
    let whole = map.map(|m| (bytes, m));
    let (terms, postings, path_postings) = read_terms(&mut r, whole, files.len(), chunks.len())?;
    let central = read_names(&mut r, files.len(), terms.len())?;
    let dirs = read_dirs(&mut r, scope.root())?;
    let walked_at = r.time()?;
    let skipped = read_skipped(&mut r)?;
    let over_limit = usize::try_from(r.u64()?).ok()?;
    let ignored = usize::try_from(r.u64()?).ok()?;
    let n_warnings = r.len(8)?;
    let mut warnings = Vec::with_capacity(n_warnings);
    for _ in 0..n_warnings {
        warnings.push(r.str()?.to_owned());
    }
    let full_walks = r.u64()?;
    if !r.b.is_empty() {
        return None;
    }
    Some(Index::from_parts(
        scope,
        max_files,
        Parts {
            central,
            terms,
            postings,
            path_postings,
            chunks,
            files,
            by_path,
            dirs,
            walked_at,
            skipped,
            over_limit,
            ignored,
            warnings,
            full_walks,
        },
    ))
}

/// The body of `bytes` once the header (magic, versions, root) and the trailer (length and
/// hash) match.
fn checked_body<'a>(bytes: &'a [u8], scope: &Scope, version: &str) -> Option<In<'a>> {
    let (root, body) = cache_file::checked_body(bytes, &header(version))?;
    (root == scope.root().as_os_str().as_encoded_bytes()).then_some(body)
}

fn read_files(r: &mut In<'_>) -> Option<Vec<Option<FileMeta>>> {
    let n_files = r.len(1)?;
    let mut files: Vec<Option<FileMeta>> = Vec::with_capacity(n_files);
    let mut prev: Vec<u8> = Vec::new();
    for _ in 0..n_files {
        match r.u8()? {
            0 => files.push(None),
            tag @ (1 | 2) => {
                let shared = r.var_len(0)?;
                if shared > prev.len() {
                    return None;
                }
                let rest = r.var_len(1)?;
                prev.truncate(shared);
                prev.extend_from_slice(r.take(rest)?);
                let rel = std::str::from_utf8(&prev).ok()?;
                if !plain_relative(rel) {
                    return None;
                }
                let stamp = r.stamp()?;
                let start = r.var_u32()?;
                let end = start.checked_add(r.var_u32()?)?;
                let len = r.var_u32()?;
                let read_at = r.time()??;
                // The only role a file's text gives is declarations, and only to a source file.
                let role = match (tag, roles::role_of(rel)) {
                    (1, r) => r,
                    (_, roles::Role::Source) => roles::Role::Declarations,
                    _ => return None,
                };
                files.push(Some(FileMeta {
                    rel: rel.to_owned(),
                    stamp,
                    chunks: start..end,
                    len,
                    language: chunk::language(rel),
                    role,
                    keys: rank::FileKeys::of(rel),
                    read_at,
                }));
            }
            _ => return None,
        }
    }
    Some(files)
}

fn read_chunks(r: &mut In<'_>, n_files: usize) -> Option<Vec<ChunkMeta>> {
    let n_chunks = r.len(4)?;
    let mut chunks: Vec<ChunkMeta> = Vec::with_capacity(n_chunks);
    let (mut file, mut end) = (0u32, 0u32);
    for _ in 0..n_chunks {
        let head = r.var()?;
        file = u32::try_from(i64::from(file).checked_add(unzigzag(head >> 1))?).ok()?;
        let start_line = u32::try_from(i64::from(end).checked_add(unzigzag(r.var()?))?).ok()?;
        end = start_line.checked_add(r.var_u32()?)?;
        let c = ChunkMeta {
            file,
            start_line,
            end_line: end,
            len: r.var_u32()?,
            alive: head & 1 == 1,
        };
        if c.start_line == 0 || c.end_line < c.start_line || c.file as usize >= n_files {
            return None;
        }
        chunks.push(c);
    }
    Some(chunks)
}

/// Cross-references: a live file's chunks are its own and alive, with the file's token count;
/// every alive chunk belongs to a live file; paths are unique. Returns the path map.
fn check_references(
    files: &[Option<FileMeta>],
    chunks: &[ChunkMeta],
) -> Option<HashMap<String, u32>> {
    let mut by_path: HashMap<String, u32> = HashMap::default();
    for (fid, f) in files.iter().enumerate() {
        let Some(f) = f else { continue };
        if f.chunks.end as usize > chunks.len() {
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
    }
    for (cid, c) in chunks.iter().enumerate() {
        if c.alive {
            match &files[c.file as usize] {
                Some(f) if f.chunks.contains(&(cid as u32)) => {}
                _ => return None,
            }
        }
    }
    Some(by_path)
}

type Terms = (TermIds, Postings, PathPostings);

/// The terms as `write_terms` lays them out. With `whole` (all the file's bytes, and their
/// mapping), the fingerprints, runs and run starts are read from the mapping once checked.
fn read_terms(
    r: &mut In<'_>,
    whole: Option<(&[u8], &Arc<Map>)>,
    n_files: usize,
    n_chunks: usize,
) -> Option<Terms> {
    let n_terms = r.len(8)?;
    let fps = r.take(n_terms * 8)?;
    let blocks = r.take(PackedStarts::blocks_len(n_terms)?)?;
    let escapes = r.bytes()?;
    let runs_len = usize::try_from(r.u64()?).ok()?;
    let runs = r.take(runs_len)?;
    let mut path_postings = PathPostings::default();
    let n_paths = r.len(3)?;
    let mut next = 0u64;
    for _ in 0..n_paths {
        let t = r.var()?;
        if t < next || t >= n_terms as u64 {
            return None;
        }
        next = t + 1;
        let n = r.var_len(1)?;
        let mut list = Vec::with_capacity(n);
        for _ in 0..n {
            let f = r.var_u32()?;
            if f as usize >= n_files {
                return None;
            }
            list.push(f);
        }
        path_postings.insert(u32::try_from(t).ok()?, list);
    }
    // The term table (random writes over tens of megabytes) is filled on a second thread
    // while this one checks the runs: the two are independent and each took about a third of
    // a restart's load on the kernel. Repeated terms are refused there.
    std::thread::scope(|s| {
        let table = std::thread::Builder::new()
            .spawn_scoped(s, || TermIds::from_fingerprints(words(fps)))
            .ok();
        let postings = check_postings(runs, (blocks, escapes), whole, n_terms, n_chunks);
        let mut terms = match table {
            Some(t) => t.join().ok()??,
            None => TermIds::from_fingerprints(words(fps))?,
        };
        let postings = postings?;
        if let Some((all, map)) = whole {
            let at = (fps.as_ptr() as usize).checked_sub(all.as_ptr() as usize)?;
            terms.map_fingerprints(Seq::mapped(Region::new(map, at, fps.len())?));
        }
        Some((terms, postings, path_postings))
    })
}

/// The runs and their starts (blocks and escapes) checked ([`PackedStarts::checked`],
/// [`Postings::checked`]), read from the mapping when `whole` (all the file's bytes, and
/// their mapping) is given.
fn check_postings(
    runs: &[u8],
    (blocks, escapes): (&[u8], &[u8]),
    whole: Option<(&[u8], &Arc<Map>)>,
    n_terms: usize,
    n_chunks: usize,
) -> Option<Postings> {
    let part = |b: &[u8]| -> Option<Bytes> {
        match whole {
            Some((all, map)) => {
                let at = (b.as_ptr() as usize).checked_sub(all.as_ptr() as usize)?;
                Some(Bytes::Mapped(Region::new(map, at, b.len())?))
            }
            None => Some(Bytes::Heap(b.to_vec())),
        }
    };
    let starts = PackedStarts::checked(part(blocks)?, part(escapes)?, n_terms, runs.len())?;
    Postings::checked(part(runs)?, starts, n_chunks)
}

fn read_dirs(r: &mut In<'_>, root: &Path) -> Option<Vec<WatchedDir>> {
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
            if !inside(root, &p) {
                return None;
            }
            ignore_files.push((p, s));
        }
        if !inside(root, &path) {
            return None;
        }
        dirs.push(WatchedDir {
            path,
            stamp,
            ignore_files,
        });
    }
    Some(dirs)
}

fn read_skipped(r: &mut In<'_>) -> Option<HashMap<String, (Stamp, SkipReason)>> {
    let n_skipped = r.len(18)?;
    let mut skipped = HashMap::default();
    for _ in 0..n_skipped {
        let rel = r.str()?;
        if !plain_relative(rel) {
            return None;
        }
        let stamp = r.stamp()?;
        let reason = SkipReason::from_code(r.u8()?)?;
        if skipped.insert(rel.to_owned(), (stamp, reason)).is_some() {
            return None;
        }
    }
    Some(skipped)
}

impl Index {
    /// Reads the term fingerprints, posting runs and run starts from `parts`, the mapped
    /// cache file a save of this index in its present state just wrote, instead of their
    /// heap copies ([`mapped`](super::mapped)).
    pub(in crate::retrieve) fn serve_mapped(&mut self, parts: MappedParts) {
        if parts.fps.len() != self.terms.len() || parts.starts.len() != self.postings.terms() + 1 {
            return;
        }
        self.terms.map_fingerprints(parts.fps);
        self.postings.attach(parts.runs, parts.starts);
        self.residency.reset();
    }

    /// Releases the pages of the mapped cache file this index reads from once requests have
    /// made the process's resident file pages grow past [`super::mapped::RESIDENT_BUDGET`]
    /// (call after a request).
    pub(in crate::retrieve) fn bound_residency(&mut self) {
        if let Some(map) = self.postings.map() {
            self.residency.after_request(map);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache_file::{create_exclusive, Checksum};
    use crate::retrieve::query::roles::Role;
    use crate::retrieve::{Query, Request, Retrieval, RetrievalOptions, Snippet};
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

    /// One file of [`tree`] changed (`serializeCookie` returning `name=value` and `more`), one
    /// added, one deleted.
    fn change_tree(root: &Path, more: &str) {
        write(
            root,
            "src/cookie.ts",
            &format!("export function serializeCookie(name: string, value: string) {{\n  return name + '=' + value{more}\n}}\n"),
            1800,
        );
        write(
            root,
            "src/session.ts",
            "export function loadSession(token: string) {\n  return token\n}\n",
            1800,
        );
        fs::remove_file(root.join("lib/old.py")).unwrap();
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
        write(
            dir.path(),
            "src/types.ts",
            "export interface CookieOptions {\n  secure: boolean\n}\n",
            3600,
        );
        let index = built(dir.path());
        let bytes = encode(&index, ENGINE_VERSION);
        let back = decode(&bytes, index.scope().clone(), 1000, ENGINE_VERSION).unwrap();
        // The same counts (the heap bytes differ: the restored run starts are packed as the
        // file stores them). Ranking's record of the names files define is saved too.
        let counts = |i: &Index| super::super::IndexStats {
            bytes: 0,
            ..i.stats()
        };
        assert_eq!(counts(&back), counts(&index));
        assert!(back.stats().bytes < index.stats().bytes);
        for fid in 0..index.files.len() as u32 {
            assert_eq!(
                back.central.lock().unwrap().recorded(fid),
                index.central.lock().unwrap().recorded(fid)
            );
        }
        assert_eq!(back.by_path, index.by_path);
        assert_eq!(back.dirs, index.dirs);
        assert_eq!(back.walked_at, index.walked_at);
        // So are the roles, also the one a file's text gave it.
        let roles = |i: &Index| -> Vec<Option<(String, Role)>> {
            i.files
                .iter()
                .map(|f| f.as_ref().map(|f| (f.rel.clone(), f.role)))
                .collect()
        };
        assert_eq!(roles(&back), roles(&index));
        assert!(roles(&back).contains(&Some(("src/types.ts".to_owned(), Role::Declarations))));
        assert_eq!(
            encode(&back, ENGINE_VERSION),
            bytes,
            "re-encoding is identical"
        );
    }

    /// The files and chunks are written as differences and variable-length numbers: extreme
    /// stamps, a dead chunk far from its neighbours, and paths sharing part of a character
    /// come back exactly.
    #[test]
    fn compact_files_and_chunks_round_trip_at_their_extremes() {
        type File = (String, Stamp, std::ops::Range<u32>, u32, SystemTime);
        let dir = tree();
        let mut index = built(dir.path());
        let live: Vec<usize> = (0..index.files.len())
            .filter(|&i| index.files[i].is_some())
            .collect();
        assert!(live.len() >= 3);
        // 'é' and 'è' share their first byte: the shared prefix stops before it.
        for (fid, name) in live.iter().zip(["src/é.ts", "src/è.ts", "x/ü/y.ts"]) {
            let f = index.files[*fid].as_mut().unwrap();
            index.by_path.remove(&f.rel);
            f.rel = name.to_owned();
            f.role = roles::role_of(name);
            index.by_path.insert(name.to_owned(), *fid as u32);
        }
        let f = index.files[live[0]].as_mut().unwrap();
        f.stamp = Stamp {
            size: u64::MAX,
            modified: None,
            dev: u64::MAX,
            ino: 0,
            ctime_ns: i64::MIN,
        };
        index.files[live[1]].as_mut().unwrap().stamp.ctime_ns = -1;
        index.chunks.push(ChunkMeta {
            file: 0,
            start_line: 1,
            end_line: u32::MAX,
            len: u32::MAX,
            alive: false,
        });
        index.chunks.push(ChunkMeta {
            file: live[2] as u32,
            start_line: u32::MAX,
            end_line: u32::MAX,
            len: 0,
            alive: false,
        });
        let bytes = encode(&index, ENGINE_VERSION);
        let back = decode(&bytes, index.scope().clone(), 1000, ENGINE_VERSION).unwrap();
        let files = |i: &Index| -> Vec<Option<File>> {
            i.files
                .iter()
                .map(|f| {
                    f.as_ref()
                        .map(|f| (f.rel.clone(), f.stamp, f.chunks.clone(), f.len, f.read_at))
                })
                .collect()
        };
        let chunks = |i: &Index| -> Vec<(u32, u32, u32, u32, bool)> {
            i.chunks
                .iter()
                .map(|c| (c.file, c.start_line, c.end_line, c.len, c.alive))
                .collect()
        };
        assert_eq!(files(&back), files(&index));
        assert_eq!(chunks(&back), chunks(&index));
        assert_eq!(encode(&back, ENGINE_VERSION), bytes);
    }

    #[test]
    fn a_text_role_on_a_file_that_is_not_source_by_its_path_is_refused() {
        let dir = tree();
        let mut index = built(dir.path());
        let fid = index.by_path["lib/old.py"] as usize;
        // A test file's role comes from its path; a record saying its text made it
        // declarations is damage.
        index.files[fid].as_mut().unwrap().rel = "tests/old.py".to_owned();
        index.files[fid].as_mut().unwrap().role = Role::Test;
        let bytes = encode(&index, ENGINE_VERSION);
        assert!(decode(&bytes, index.scope().clone(), 1000, ENGINE_VERSION).is_some());
        index.files[fid].as_mut().unwrap().role = Role::Declarations;
        let bytes = encode(&index, ENGINE_VERSION);
        assert!(decode(&bytes, index.scope().clone(), 1000, ENGINE_VERSION).is_none());
    }

    #[test]
    fn restart_answers_identically_without_rereading() {
        let dir = tree();
        let cache = tempfile::tempdir().unwrap();
        let root = dir.path();
        let first = Retrieval::new(options(cache.path()));
        let before = ask(&first, root, "parse cookie header");
        assert!(!before.is_empty());
        drop(first); // waits for the background save
        assert_eq!(
            fs::read_dir(cache.path()).unwrap().count(),
            1,
            "one file per root"
        );

        let second = Retrieval::new(options(cache.path()));
        assert_eq!(ask(&second, root, "parse cookie header"), before);
        let status = second.status(root.to_str().unwrap()).unwrap();
        assert_eq!(status.files_read, 0, "nothing re-read after a restart");
        assert_eq!(status.stats.files, 3);
    }

    /// Waits (up to 20 s) until the root's index reads from a mapped cache file.
    #[cfg(unix)]
    fn wait_mapped(r: &Retrieval, root: &Path) -> usize {
        for _ in 0..400 {
            let m = r.status(root.to_str().unwrap()).unwrap().stats.mapped_bytes;
            if m > 0 {
                return m;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("the saved index was never mapped");
    }

    #[cfg(unix)]
    #[test]
    fn a_mapped_index_answers_as_a_fresh_one_through_edits_saves_and_restarts() {
        let dir = tree();
        let cache = tempfile::tempdir().unwrap();
        let root = dir.path();
        let prompts = [
            "parse cookie header",
            "Router addRoute",
            "legacy handler request cookies",
            "serializeCookie loadSession token",
        ];
        let fresh_answers = || {
            let fresh = Retrieval::new(RetrievalOptions::default());
            prompts.map(|p| ask(&fresh, root, p))
        };
        let r = Retrieval::new(options(cache.path()));
        let before = prompts.map(|p| ask(&r, root, p));
        // The background save maps the file it wrote.
        wait_mapped(&r, root);
        assert_eq!(prompts.map(|p| ask(&r, root, p)), before);
        assert_eq!(before, fresh_answers());

        // Edits to a mapped index: an old term's postings and new terms wait beside the
        // mapping; answers are a fresh build's.
        change_tree(root, " + parseCookie(name)");
        let after = prompts.map(|p| ask(&r, root, p));
        assert_eq!(after, fresh_answers());
        assert!(after[3].iter().any(|s| s.path == "src/session.ts"));
        assert!(after[2].iter().all(|s| s.path != "lib/old.py"));
        // The change is saved and mapped again, and answers stay the same.
        std::thread::sleep(Duration::from_millis(200));
        wait_mapped(&r, root);
        assert_eq!(prompts.map(|p| ask(&r, root, p)), after);
        drop(r);

        // A restart reads the mapped file: same answers, nothing re-read.
        let second = Retrieval::new(options(cache.path()));
        assert_eq!(prompts.map(|p| ask(&second, root, p)), after);
        let status = second.status(root.to_str().unwrap()).unwrap();
        assert_eq!(status.files_read, 0);
        assert!(
            status.stats.mapped_bytes > 0,
            "a loaded index reads its file's pages"
        );
        write(
            root,
            "src/extra.ts",
            "export function extraCookieJar() {}\n",
            1800,
        );
        assert_eq!(prompts.map(|p| ask(&second, root, p)), fresh_answers());
    }

    /// Without a cache directory, an index past `spill_min_bytes` is written to an unnamed
    /// temporary file and read from its mapping; answers stay those of a heap index through
    /// edits (which wait on the heap beside the mapping and are spilled again), and an index
    /// below the threshold is never mapped.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_spilled_index_answers_as_a_heap_one_through_edits() {
        if cache_file::unnamed_temp_file().is_err() {
            return; // A temporary folder in memory: nothing is spilled there.
        }
        let dir = tree();
        let root = dir.path();
        let prompts = [
            "parse cookie header",
            "Router addRoute",
            "legacy handler request cookies",
            "serializeCookie loadSession token",
        ];
        let with = |spill_min_bytes| {
            Retrieval::new(RetrievalOptions {
                spill_min_bytes,
                ..RetrievalOptions::default()
            })
        };
        let heap = with(usize::MAX);
        let spilled = with(0);
        let before = prompts.map(|p| ask(&spilled, root, p));
        assert_eq!(before, prompts.map(|p| ask(&heap, root, p)));
        wait_mapped(&spilled, root);
        assert_eq!(prompts.map(|p| ask(&spilled, root, p)), before);

        change_tree(root, " + parseCookie(name)");
        let after = prompts.map(|p| ask(&spilled, root, p));
        assert_eq!(after, prompts.map(|p| ask(&heap, root, p)));
        assert_ne!(after, before);
        std::thread::sleep(Duration::from_millis(200));
        wait_mapped(&spilled, root);
        assert_eq!(prompts.map(|p| ask(&spilled, root, p)), after);
        let stats = heap.status(root.to_str().unwrap()).unwrap().stats;
        assert_eq!(
            stats.mapped_bytes, 0,
            "an index below the threshold stays on the heap"
        );
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
        change_tree(root, "");

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

    /// Past the hash: bodies mutated at random and then given a matching length and hash (what
    /// a hostile cache directory could hold) decode to `None` or to an index, never a panic or
    /// an allocation driven by a forged count.
    #[test]
    fn forged_bodies_with_a_matching_hash_never_panic() {
        use proptest::prelude::*;
        let dir = tree();
        let index = built(dir.path());
        let scope = index.scope().clone();
        let bytes = encode(&index, ENGINE_VERSION);
        let split = bytes.len() - 16;
        let body_len = usize::try_from(u64::from_le_bytes(
            bytes[split..split + 8].try_into().unwrap(),
        ))
        .unwrap();
        let head = bytes[..split - body_len].to_vec();
        let body = bytes[split - body_len..split].to_vec();
        let seal = |body: &[u8]| {
            let mut out = head.clone();
            out.extend_from_slice(body);
            out.extend_from_slice(&(body.len() as u64).to_le_bytes());
            out.extend_from_slice(&Checksum::of(body).to_le_bytes());
            out
        };
        assert!(decode(&seal(&body), scope.clone(), 1000, ENGINE_VERSION).is_some());
        let config = ProptestConfig {
            cases: 512,
            rng_seed: proptest::test_runner::RngSeed::Fixed(0x0914),
            ..ProptestConfig::default()
        };
        let edits =
            prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..4), 1..8);
        proptest!(config, |(edits in edits, cut in any::<prop::sample::Index>())| {
            let mut b = body.clone();
            for (at, value, how) in edits {
                if b.is_empty() {
                    break;
                }
                let i = at.index(b.len());
                match how {
                    0 => b[i] = value,
                    1 => b[i] ^= 0x80,
                    2 => b.insert(i, value),
                    _ => {
                        // A forged length or count: four bytes of 0xff.
                        for x in b.iter_mut().skip(i).take(4) {
                            *x = 0xff;
                        }
                    }
                }
            }
            if cut.index(4) == 0 {
                b.truncate(cut.index(b.len().max(1)));
            }
            // What a forged body decodes to is only ever used as an index: ranking it (which
            // reads every posting run of the prompt's terms as it was copied from the file)
            // and saving it again must not panic either.
            if let Some(back) = decode(&seal(&b), scope.clone(), 1000, ENGINE_VERSION) {
                for prompt in ["router addRoute", "parseCookie header", "old py split"] {
                    let _ = rank::rank(&back, &Query::parse(prompt), 5);
                }
                let _ = encode(&back, ENGINE_VERSION);
            }
        });
    }

    /// The packed run starts are checked against the runs whatever the hash says: any start,
    /// escape offset or length changed (and the file sealed again) is refused.
    #[test]
    fn run_starts_that_disagree_with_the_runs_are_refused_under_a_matching_hash() {
        let dir = tree();
        // A term in twenty files: a run of more bytes than a nibble holds.
        for i in 0..20 {
            write(
                dir.path(),
                &format!("src/table{i}.ts"),
                "export const routeTable = [router, router, router]\n",
                3600,
            );
        }
        let index = built(dir.path());
        let scope = index.scope().clone();
        let mut bytes = Vec::new();
        let (_, layout) = encode_into(&index, ENGINE_VERSION, &mut bytes).unwrap();
        let split = bytes.len() - 16;
        let body_len = usize::try_from(u64::from_le_bytes(
            bytes[split..split + 8].try_into().unwrap(),
        ))
        .unwrap();
        let sealed = |mut b: Vec<u8>| {
            let sum = Checksum::of(&b[split - body_len..split]);
            b[split + 8..].copy_from_slice(&sum.to_le_bytes());
            b
        };
        let ok = |b: Vec<u8>| decode(&sealed(b), scope.clone(), 1000, ENGINE_VERSION).is_some();
        assert!(ok(bytes.clone()));
        let (at, len) = (layout.blocks.0 as usize, layout.blocks.1 as usize);
        assert!(len > 0 && layout.escapes.1 > 0, "a long run has an escape");
        for i in at..at + len {
            let mut b = bytes.clone();
            b[i] ^= 0x01;
            assert!(!ok(b), "block byte {}", i - at);
        }
        for i in layout.escapes.0 as usize..(layout.escapes.0 + layout.escapes.1) as usize {
            let mut b = bytes.clone();
            b[i] ^= 0x01;
            assert!(!ok(b), "escape byte {i}");
        }
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
        for format in [FORMAT_VERSION - 1, FORMAT_VERSION + 1] {
            let mut b = bytes.clone();
            b[MAGIC.len()..MAGIC.len() + 4].copy_from_slice(&format.to_le_bytes());
            assert!(!ok(&b), "format {format}");
        }
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
            // ...and the rebuild replaced the bad file with a good one (saved in the
            // background; dropping the state waits for it).
            drop(r);
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
            r"..\x",
            r"a\..\..\x",
            r"C:\x",
            r"\\?\C:\x",
            r"\\server\share\x",
        ] {
            assert!(!plain_relative(bad), "{bad:?}");
        }
        // A colon is part of a name on Unix; on Windows it is a drive (`C:/x` joined to the
        // root replaces it) or a data stream.
        for colon in ["C:/x", "c:x", "a/b:c"] {
            assert_eq!(plain_relative(colon), !cfg!(windows), "{colon:?}");
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

    #[cfg(unix)]
    #[test]
    fn a_fifo_or_a_link_to_dev_zero_is_not_read() {
        let dir = tree();
        let cache = tempfile::tempdir().unwrap();
        let root = dir.path();
        let canonical = Scope::new(root).unwrap().root().to_path_buf();
        let file = cache_path(cache.path(), &canonical);
        let c = std::ffi::CString::new(file.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let started = std::time::Instant::now();
        assert!(load(cache.path(), &Scope::new(root).unwrap(), 1000).is_none());
        fs::remove_file(&file).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &file).unwrap();
        assert!(load(cache.path(), &Scope::new(root).unwrap(), 1000).is_none());
        assert!(started.elapsed() < Duration::from_secs(5), "no hang");
        // A request still works, and the save replaces the link, never writes through it.
        let r = Retrieval::new(options(cache.path()));
        assert_eq!(ask(&r, root, "parseCookie")[0].path, "src/cookie.ts");
        drop(r);
        assert!(fs::symlink_metadata(&file).unwrap().is_file());
    }

    #[cfg(unix)]
    #[test]
    fn save_never_writes_through_a_planted_link() {
        let dir = tree();
        let index = built(dir.path());
        let cache = tempfile::tempdir().unwrap();
        let victim_dir = tempfile::tempdir().unwrap();
        let victim = victim_dir.path().join("victim");
        fs::write(&victim, "precious").unwrap();
        // Links at every name the old scheme (pid and a counter) would have used.
        let target = cache_path(cache.path(), index.scope().root());
        let stem = target.file_name().unwrap().to_str().unwrap().to_owned();
        for n in 0..64 {
            let name = format!(".{stem}.{}.{n}.tmp", std::process::id());
            std::os::unix::fs::symlink(&victim, cache.path().join(name)).unwrap();
        }
        for _ in 0..4 {
            save(cache.path(), &index).unwrap();
        }
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
        assert!(load(cache.path(), index.scope(), 1000).is_some());
        // The temporary file is created exclusively: an existing name (even a dangling link)
        // is refused, never followed.
        let planted = cache.path().join("planted");
        std::os::unix::fs::symlink(victim_dir.path().join("new"), &planted).unwrap();
        assert!(create_exclusive(&planted).is_err());
        assert!(!victim_dir.path().join("new").exists());
    }

    /// By hand: the sections of a saved file (`CEIDX_FILE`) and the time each decode step
    /// takes, e.g. `CEIDX_FILE=... cargo test --release -p context-engine-core --lib
    /// sections_of_a_saved_file -- --ignored --nocapture`.
    #[test]
    #[ignore = "by hand, on a saved file named by CEIDX_FILE"]
    fn sections_of_a_saved_file() {
        let Ok(path) = std::env::var("CEIDX_FILE") else {
            return;
        };
        let bytes = fs::read(path).unwrap();
        let t = std::time::Instant::now();
        let total = bytes.len();
        let mut head = In { b: &bytes[..] };
        head.take(MAGIC.len()).unwrap();
        head.u32().unwrap();
        head.bytes().unwrap();
        let root = PathBuf::from(std::str::from_utf8(head.bytes().unwrap()).unwrap());
        let (_, mut r) = cache_file::checked_body(&bytes, &header(ENGINE_VERSION)).unwrap();
        let mut at = total - 16 - r.b.len();
        let mut last = t.elapsed();
        let mut step = |name: &str, r: &In<'_>| {
            let pos = total - 16 - r.b.len();
            let now = t.elapsed();
            eprintln!(
                "{name:<14} {:>12} bytes  {:>8.1} ms",
                pos - at,
                now.saturating_sub(last).as_secs_f64() * 1e3
            );
            at = pos;
            last = now;
        };
        step("header+check", &r);
        let files = read_files(&mut r).unwrap();
        step("files", &r);
        let chunks = read_chunks(&mut r, files.len()).unwrap();
        step("chunks", &r);
        check_references(&files, &chunks).unwrap();
        step("references", &r);
        let n_terms = r.len(8).unwrap();
        let fps = r.take(n_terms * 8).unwrap();
        step("fingerprints", &r);
        let blocks = r.take(PackedStarts::blocks_len(n_terms).unwrap()).unwrap();
        let escapes = r.bytes().unwrap();
        step("run starts", &r);
        let runs_len = usize::try_from(r.u64().unwrap()).unwrap();
        let runs = r.take(runs_len).unwrap();
        step("runs", &r);
        let n_paths = r.len(3).unwrap();
        for _ in 0..n_paths {
            r.var().unwrap();
            let n = r.var_len(1).unwrap();
            for _ in 0..n {
                r.var_u32().unwrap();
            }
        }
        step("path postings", &r);
        TermIds::from_fingerprints(words(fps)).unwrap();
        step("(term table)", &r);
        check_postings(runs, (blocks, escapes), None, n_terms, chunks.len()).unwrap();
        step("(check runs)", &r);
        read_names(&mut r, files.len(), n_terms).unwrap();
        step("names", &r);
        let dirs = read_dirs(&mut r, &root).unwrap();
        r.time().unwrap();
        step("dirs", &r);
        read_skipped(&mut r).unwrap();
        step("skipped+rest", &r);
        eprintln!(
            "total {total} bytes; {} files, {} chunks, {n_terms} terms, {n_paths} path terms, {} dirs",
            files.len(),
            chunks.len(),
            dirs.len()
        );
    }

    #[test]
    fn skipped_files_and_coverage_survive_a_restart() {
        let dir = tree();
        fs::write(dir.path().join("src/blob.ts"), b"\0\x01binary\0").unwrap();
        let index = built(dir.path());
        assert_eq!(index.coverage().skipped.binary, 1);
        let back = decode(
            &encode(&index, ENGINE_VERSION),
            index.scope().clone(),
            1000,
            ENGINE_VERSION,
        )
        .unwrap();
        assert_eq!(back.coverage(), index.coverage());
        assert_eq!(back.skipped, index.skipped);
    }

    #[test]
    fn a_save_gives_way_to_a_waiting_request() {
        let dir = tree();
        let index = built(dir.path());
        let cache = tempfile::tempdir().unwrap();
        save(cache.path(), &index).unwrap();
        let file = cache_path(cache.path(), index.scope().root());
        let before = fs::read(&file).unwrap();
        let waiting = std::sync::atomic::AtomicUsize::new(1);
        let err = save_yielding(cache.path(), &index, Some(&waiting)).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::WouldBlock);
        assert_eq!(
            fs::read(&file).unwrap(),
            before,
            "the old file is untouched"
        );
        assert_eq!(
            fs::read_dir(cache.path()).unwrap().count(),
            1,
            "no temporary left"
        );
        waiting.store(0, std::sync::atomic::Ordering::Relaxed);
        save_yielding(cache.path(), &index, Some(&waiting)).unwrap();
    }
}
