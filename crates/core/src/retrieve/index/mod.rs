//! The in-memory inverted index of one root, and its incremental update.
//!
//! Documents are chunks ([`chunk`]); each posting carries the term's frequency
//! in the chunk's text and in the names the chunk defines (the BM25F fields `content` and
//! `symbol`). A third field, `path`, is indexed per file. Ids are never reused: a changed or
//! deleted file's chunks are marked dead and skipped at query time, and posting lists are
//! compacted once dead chunks pile up, so an update costs only the changed files.
//!
//! File contents are not kept: snippets are read again (through the scope) for the few
//! results a query returns, which keeps the index at a few bytes per token.

use rustc_hash::FxHashMap as HashMap;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::SystemTime;

use super::central;
use super::chunk;
use super::rank;
use super::roles::{role_of_text, Role};
use super::tokenize::{for_each_identifier, for_each_term, Tokenizer};
use super::walk::{self, Listed, Stamp, Targets, Verdict};
use super::watch::{DirWatch, Drained};
use crate::engine::Cancel;
use crate::fs_scope::{ReadError, ReadLimits, Scope};
use crate::stamp::racy;
use crate::syntax::split_lines;

pub(super) use super::terms::Posting;
use super::terms::{fingerprint, PathPostings, Postings, Stage, TermDict, TermIds};

/// A chunk of an indexed file.
#[derive(Debug, Clone)]
pub(super) struct ChunkMeta {
    pub file: u32,
    pub start_line: u32,
    pub end_line: u32,
    /// Tokens in the chunk.
    pub len: u32,
    pub alive: bool,
}

/// An indexed file.
#[derive(Debug, Clone)]
pub(super) struct FileMeta {
    pub rel: String,
    pub stamp: Stamp,
    pub chunks: Range<u32>,
    /// Tokens in the whole file.
    pub len: u32,
    pub language: Option<&'static str>,
    /// What the file is for, from its path and text ([`role_of_text`]): kept so that ranking
    /// does not classify every matching file again on each query.
    pub role: Role,
    /// Hashes of the parts of the path a prompt can name ([`rank::FileKeys`]), so that ranking
    /// compares numbers instead of reading every path on each query.
    pub keys: rank::FileKeys,
    /// When the file was read: a file modified within
    /// [`RACY_WINDOW`](crate::stamp::RACY_WINDOW) of it is read again on the next update
    /// even if its stamp is unchanged (a write in the same clock tick).
    pub read_at: SystemTime,
}

/// Why a listed file is not in the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkipReason {
    /// Its content looks binary.
    Binary,
    /// Larger than [`walk::MAX_FILE_BYTES`].
    TooLarge,
    /// It could not be read (permissions, not a regular file, gone, not inside the root).
    Unreadable,
    /// Its head says it is generated code.
    Generated,
    /// Created since the last full walk while the root was at `maxFilesPerRoot`, after every
    /// file that walk kept in path order: it cannot displace one, so it is not read (and a
    /// change to it needs no walk). The next full walk counts it with the others.
    OverLimit,
}

impl SkipReason {
    /// The reason as a byte, for the on-disk index.
    pub(super) fn code(self) -> u8 {
        match self {
            SkipReason::Binary => 0,
            SkipReason::TooLarge => 1,
            SkipReason::Unreadable => 2,
            SkipReason::Generated => 3,
            SkipReason::OverLimit => 4,
        }
    }

    /// The reason of a byte written by [`SkipReason::code`].
    pub(super) fn from_code(b: u8) -> Option<SkipReason> {
        Some(match b {
            0 => SkipReason::Binary,
            1 => SkipReason::TooLarge,
            2 => SkipReason::Unreadable,
            3 => SkipReason::Generated,
            4 => SkipReason::OverLimit,
            _ => return None,
        })
    }

    fn of(e: &ReadError) -> SkipReason {
        match e {
            ReadError::Binary { .. } => SkipReason::Binary,
            ReadError::TooLarge { .. } => SkipReason::TooLarge,
            _ => SkipReason::Unreadable,
        }
    }
}

/// Files of a root the index does not hold, by reason.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SkippedFiles {
    /// Binary content.
    pub binary: usize,
    /// Over the size cap.
    pub too_large: usize,
    /// Could not be read.
    pub unreadable: usize,
    /// Generated code.
    pub generated: usize,
    /// Beyond the per-root file cap (the last ones in path order).
    pub over_limit: usize,
}

/// How an index learns about changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Freshness {
    /// File-system events (inotify): a warm call reads only what changed.
    Watching,
    /// A stat of every known directory and file on each call.
    Polling,
}

impl Freshness {
    /// `"watching" | "polling"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Freshness::Watching => "watching",
            Freshness::Polling => "polling",
        }
    }
}

/// What an index covers of its root, for status reports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Entries hidden by ignore rules (an ignored directory counts once).
    pub ignored: usize,
    /// Listed files not indexed, by reason.
    pub skipped: SkippedFiles,
    /// Things the caller should know, such as ignore rules hiding the whole root.
    pub warnings: Vec<String>,
}

/// A file read, chunked and tokenized, ready to be added (built off the index lock and in
/// parallel), as part of a [`Batch`].
pub(super) struct Prepared {
    rel: String,
    stamp: Stamp,
    read_at: SystemTime,
    language: Option<&'static str>,
    role: Role,
    keys: rank::FileKeys,
    chunks: Vec<PreparedChunk>,
    /// The path's terms, as numbers of the batch's terms.
    path_terms: Vec<u32>,
    /// The terms of the names the file defines ([`central::name_terms`]), as numbers of the
    /// batch's terms.
    names: Vec<u32>,
}

struct PreparedChunk {
    start_line: u32,
    end_line: u32,
    len: u32,
}

/// Files read and tokenized on one thread, to be added in listing order. Their terms are
/// numbered together, in the order first seen (the order in which the index gives new terms
/// their ids), and each term's postings in the batch are one list, so the merging thread looks
/// a term up, and reaches its postings, once per batch instead of once per file and posting
/// (the merge is serial: it was a third of a kernel build's CPU).
pub(super) struct Batch {
    terms: TermDict,
    /// The [`fingerprint`] of each of `terms`, computed on the batch's thread.
    fps: Vec<u64>,
    files: Vec<Result<Prepared, SkipReason>>,
    /// Term `k`'s postings are `postings[starts[k]..starts[k + 1]]`: (chunk number in the
    /// batch, counting the chunks of its files in order; tf; sym), in chunk order.
    starts: Vec<u32>,
    postings: Vec<(u32, u16, u16)>,
}

/// Gives the allocator's free pages back to the system (glibc keeps what a thread freed in
/// that thread's arena; a no-op elsewhere): after a build, whose reading threads allocated and
/// freed the tokenized form of every file, and after a background save (the kernel's left
/// ~11 MB behind).
pub(super) fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free memory to the system.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Whether a file skipped for `reason` was listed, so counts toward the cap (a file too large
/// is not listed; one over the cap is the cap).
fn kept_for_content(reason: SkipReason) -> bool {
    matches!(
        reason,
        SkipReason::Binary | SkipReason::Unreadable | SkipReason::Generated
    )
}

/// Files per [`Batch`]: read and tokenized together before they are added to the index.
const BATCH_FILES: usize = 64;

/// Counts of an index, for status and memory reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IndexStats {
    /// Files indexed.
    pub files: usize,
    /// Live chunks.
    pub chunks: usize,
    /// Distinct terms.
    pub terms: usize,
    /// Postings held (live and dead).
    pub postings: usize,
    /// Approximate heap bytes held by the index.
    pub bytes: usize,
    /// Bytes read from the index's memory-mapped cache file instead of the heap
    /// ([`super::mapped`]).
    pub mapped_bytes: usize,
}

/// The index of one root.
#[derive(Debug)]
pub struct Index {
    pub(super) scope: Scope,
    pub(super) terms: TermIds,
    pub(super) postings: Postings,
    pub(super) path_postings: PathPostings,
    pub(super) chunks: Vec<ChunkMeta>,
    pub(super) files: Vec<Option<FileMeta>>,
    /// Tokens of each file by id (0 for a removed one): what ranking reads of a file for
    /// every posting, kept dense so that a common term does not visit every [`FileMeta`].
    pub(super) file_lens: Vec<u32>,
    pub(super) by_path: HashMap<String, u32>,
    pub(super) live_chunks: u64,
    pub(super) live_chunk_tokens: u64,
    pub(super) live_files: u64,
    pub(super) live_file_tokens: u64,
    pub(super) dead_chunks: u64,
    pub(super) max_files: usize,
    /// Directories of the last full walk, and when it started.
    pub(super) dirs: Vec<walk::WatchedDir>,
    pub(super) walked_at: Option<SystemTime>,
    /// Listed files that were not indexed and why, re-checked by stamp (an unchanged one is
    /// not read again).
    pub(super) skipped: HashMap<String, (Stamp, SkipReason)>,
    /// Files beyond the cap, entries hidden by ignore rules, and warnings of the last walk.
    pub(super) over_limit: usize,
    pub(super) ignored: usize,
    pub(super) warnings: Vec<String>,
    /// File-system events of the walked directories, when watching works here.
    watch: Option<DirWatch>,
    /// Whether to try watching at all (polling only when false).
    watching: bool,
    /// Watching was tried since the last full walk and failed: poll until the next one.
    watch_failed: bool,
    /// Texts of recently shown files (by file id, so a changed file is never served stale),
    /// at most [`TEXT_CACHE_BYTES`] in all.
    texts: std::collections::VecDeque<(u32, std::sync::Arc<str>)>,
    text_bytes: usize,
    /// Full walks and quick (stat-only) updates done, for tests and status.
    pub(super) full_walks: u64,
    /// Files added or removed so far: what a cache of values that depend on the live files
    /// compares to know whether they may have changed.
    pub(super) generation: u64,
    /// What ranking learned of files' [centrality](super::central) (ranking holds `&Index`).
    pub(super) central: std::sync::Mutex<super::central::Central>,
    /// Bounds the resident pages of the mapped cache file (see [`Index::bound_residency`]).
    residency: super::mapped::Residency,
}

/// Counters of an update in progress: files read of files to read.
#[derive(Clone, Copy)]
struct Progress<'a> {
    read: &'a AtomicUsize,
    found: &'a AtomicUsize,
    /// Checked between files: a cancelled refresh stops early.
    cancel: &'a Cancel,
}

/// The contents of an index restored from disk ([`persist`](super::persist)), already checked
/// for consistency there; [`Index::from_parts`] derives the counters.
pub(super) struct Parts {
    pub central: central::Central,
    pub terms: TermIds,
    pub postings: Postings,
    pub path_postings: PathPostings,
    pub chunks: Vec<ChunkMeta>,
    pub files: Vec<Option<FileMeta>>,
    pub by_path: HashMap<String, u32>,
    pub dirs: Vec<walk::WatchedDir>,
    pub walked_at: Option<SystemTime>,
    pub skipped: HashMap<String, (Stamp, SkipReason)>,
    pub over_limit: usize,
    pub ignored: usize,
    pub warnings: Vec<String>,
    pub full_walks: u64,
}

/// Most bytes of file text kept for snippets per index.
pub const TEXT_CACHE_BYTES: usize = 8 * 1024 * 1024;

/// Read limits for indexed files.
fn read_limits() -> ReadLimits {
    ReadLimits {
        max_bytes: walk::MAX_FILE_BYTES,
        ..ReadLimits::default()
    }
}

/// True if the head of a file says it is generated.
fn looks_generated(text: &str) -> bool {
    text.lines().take(5).any(|l| {
        l.contains("@generated") || l.contains("DO NOT EDIT") || l.contains("Code generated by")
    })
}

/// The path terms of a file: directory names and the file name without its extension.
fn path_terms(rel: &str) -> Vec<String> {
    let stemless = match rel.rsplit_once('.') {
        Some((head, ext)) if !ext.contains('/') && !head.ends_with('/') && !head.is_empty() => head,
        _ => rel,
    };
    let mut out: Vec<String> = Vec::new();
    for_each_term(stemless, |t, _| {
        if !out.iter().any(|o| o == t) {
            out.push(t.to_owned());
        }
    });
    out
}

/// The token counts of `files` by id, 0 for a removed file.
fn file_lens(files: &[Option<FileMeta>]) -> Vec<u32> {
    files
        .iter()
        .map(|f| f.as_ref().map_or(0, |m| m.len))
        .collect()
}

/// The current stamps of `files`, on several threads for large trees.
fn stat_all(root: &std::path::Path, files: &[&FileMeta]) -> Vec<Option<Stamp>> {
    let stat = |f: &&FileMeta| walk::stamp_of(&root.join(&f.rel));
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .clamp(1, 4)
        .min(files.len() / 2048 + 1);
    if threads <= 1 {
        return files.iter().map(stat).collect();
    }
    let per = files.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = files
            .chunks(per)
            .map(|part| s.spawn(move || part.iter().map(stat).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    })
}

/// Reads and tokenizes `listed` (files to add in this order) into one [`Batch`]; `progress`
/// counts files read.
pub(super) fn prepare_batch(scope: &Scope, listed: &[Listed], progress: &AtomicUsize) -> Batch {
    // A kernel batch of 64 files has ~8k distinct terms (9.6M over 1,216 batches) and about
    // as many identifiers: room for them up front instead of growing (rehashing) both tables
    // from empty in every batch.
    let mut counts = ChunkCounts {
        terms: TermDict::with_capacity(8192),
        idents: TermDict::with_capacity(8192),
        ..ChunkCounts::default()
    };
    // (term, chunk number in the batch, tf, sym), in chunk order.
    let mut raw: Vec<(u32, u32, u16, u16)> = Vec::new();
    let mut chunk_no = 0u32;
    let mut files = Vec::with_capacity(listed.len());
    for l in listed {
        let p = prepare(scope, l, &mut counts, |terms| {
            raw.extend(terms.iter().map(|&(t, tf, sym)| (t, chunk_no, tf, sym)));
            chunk_no += 1;
        });
        progress.fetch_add(1, Ordering::Relaxed);
        files.push(p);
    }
    // Group by term (a counting sort keeps chunk order within each term).
    let n = counts.terms.len();
    let mut starts = vec![0u32; n + 1];
    for &(t, ..) in &raw {
        starts[t as usize + 1] += 1;
    }
    for k in 0..n {
        starts[k + 1] += starts[k];
    }
    let mut fill: Vec<u32> = starts[..n].to_vec();
    let mut postings = vec![(0u32, 0u16, 0u16); raw.len()];
    for (t, c, tf, sym) in raw {
        let at = &mut fill[t as usize];
        postings[*at as usize] = (c, tf, sym);
        *at += 1;
    }
    let fps = (0..n as u32)
        .map(|k| fingerprint(counts.terms.term(k)))
        .collect();
    Batch {
        terms: counts.terms,
        fps,
        files,
        starts,
        postings,
    }
}

/// Reads and tokenizes one listed file; why not if it cannot be read or is not worth
/// indexing. Its terms are numbered in `counts.terms` (shared by a batch), and `chunk` receives
/// each kept chunk's (term, tf, sym) in turn.
fn prepare(
    scope: &Scope,
    listed: &Listed,
    counts: &mut ChunkCounts,
    mut chunk: impl FnMut(&[(u32, u16, u16)]),
) -> Result<Prepared, SkipReason> {
    let read_at = SystemTime::now();
    let file = scope
        .read_text(&listed.rel, &read_limits())
        .map_err(|e| SkipReason::of(&e))?;
    if looks_generated(&file.text) {
        return Err(SkipReason::Generated);
    }
    let language = chunk::language(&listed.rel);
    let text = file.text.as_str();
    // The lines the chunker cuts; a chunk's lines are one slice of the text (no term spans a
    // line break, so tokenizing the slice gives the terms of its lines).
    let (lines, n) = split_lines(text);
    let offset = |line: &str| line.as_ptr() as usize - text.as_ptr() as usize;
    let mut chunks = Vec::new();
    let mut names = Vec::new();
    for c in chunk::chunk_lines(&listed.rel, &lines, n) {
        let mut len = 0u32;
        let (a, b) = (
            c.start_line as usize - 1,
            (c.end_line as usize).min(lines.len()),
        );
        if a < b {
            let last = lines[b - 1];
            len = counts.add_text(&text[offset(lines[a])..offset(last) + last.len()], false);
        }
        for s in &c.symbols {
            counts.add_text(s, true);
            let (tokenizer, terms) = (&mut counts.tokenizer, &mut counts.terms);
            central::name_terms(tokenizer, s, |t| names.push(terms.intern(t).0));
        }
        counts.take();
        if len == 0 {
            continue;
        }
        chunk(&counts.chunk);
        chunks.push(PreparedChunk {
            start_line: c.start_line,
            end_line: c.end_line,
            len,
        });
    }
    let path_terms = path_terms(&listed.rel)
        .iter()
        .map(|t| counts.terms.intern(t).0)
        .collect();
    Ok(Prepared {
        rel: listed.rel.clone(),
        stamp: listed.stamp,
        read_at,
        language,
        role: role_of_text(&listed.rel, text),
        keys: rank::FileKeys::of(&listed.rel),
        path_terms,
        chunks,
        names,
    })
}

/// A batch's terms as [`prepare`] counts them, chunk by chunk.
#[derive(Default)]
struct ChunkCounts {
    terms: TermDict,
    /// Counts (tf, sym) in the chunk being read, by term number, and the numbers it has.
    counts: Vec<(u16, u16)>,
    seen: Vec<u32>,
    /// The last chunk's (term, tf, sym), from [`ChunkCounts::take`].
    chunk: Vec<(u32, u16, u16)>,
    /// The identifiers met in the batch, and the terms each gives (`ids[spans[i]]`): an
    /// identifier seen again (most are: keywords, types, a file's own names) is counted by
    /// one look-up instead of being split, lowered, stemmed and looked up part by part.
    idents: TermDict,
    spans: Vec<(u32, u32)>,
    ids: Vec<u32>,
    tokenizer: Tokenizer,
}

impl ChunkCounts {
    /// Counts the terms of `text` (content, or the names a chunk defines if `sym`), as
    /// [`for_each_term`] gives them; returns how many.
    fn add_text(&mut self, text: &str, sym: bool) -> u32 {
        let mut n = 0u32;
        for_each_identifier(text, |ident| {
            let (i, new) = self.idents.intern(ident);
            if new {
                let start = self.ids.len() as u32;
                let (terms, ids) = (&mut self.terms, &mut self.ids);
                self.tokenizer
                    .identifier(ident, &mut |t, _| ids.push(terms.intern(t).0));
                self.spans.push((start, self.ids.len() as u32));
            }
            let (a, b) = self.spans[i as usize];
            for k in a..b {
                self.add(self.ids[k as usize], sym);
            }
            n += b - a;
        });
        n
    }

    fn add(&mut self, id: u32, sym: bool) {
        if id as usize >= self.counts.len() {
            self.counts.resize(id as usize + 1, (0, 0));
        }
        let e = &mut self.counts[id as usize];
        if *e == (0, 0) {
            self.seen.push(id);
        }
        if sym {
            e.1 = e.1.saturating_add(1);
        } else {
            e.0 = e.0.saturating_add(1);
        }
    }

    /// Moves the chunk's (term, tf, sym) to `self.chunk`, in the order first seen (term ids
    /// follow it; nothing in a result depends on them: ties are broken by query order and
    /// paths), and starts a fresh count for the next chunk.
    fn take(&mut self) {
        let counts = &mut self.counts;
        self.chunk.clear();
        self.chunk.extend(self.seen.drain(..).map(|id| {
            let (tf, sym) = std::mem::take(&mut counts[id as usize]);
            (id, tf, sym)
        }));
    }
}

impl Index {
    /// An empty index for `scope` that will hold at most `max_files` files. It watches the
    /// tree for changes where it can ([`Index::set_watching`] turns that off).
    pub fn new(scope: Scope, max_files: usize) -> Index {
        Index {
            scope,
            terms: TermIds::default(),
            postings: Postings::default(),
            path_postings: PathPostings::default(),
            chunks: Vec::new(),
            files: Vec::new(),
            file_lens: Vec::new(),
            by_path: HashMap::default(),
            live_chunks: 0,
            live_chunk_tokens: 0,
            live_files: 0,
            live_file_tokens: 0,
            dead_chunks: 0,
            max_files,
            dirs: Vec::new(),
            walked_at: None,
            skipped: HashMap::default(),
            over_limit: 0,
            ignored: 0,
            warnings: Vec::new(),
            watch: None,
            watching: true,
            watch_failed: false,
            texts: std::collections::VecDeque::new(),
            text_bytes: 0,
            full_walks: 0,
            generation: 0,
            central: std::sync::Mutex::default(),
            residency: super::mapped::Residency::default(),
        }
    }

    /// An index from restored parts (see [`Parts`]).
    pub(super) fn from_parts(scope: Scope, max_files: usize, p: Parts) -> Index {
        let mut index = Index::new(scope, max_files);
        for f in p.files.iter().flatten() {
            index.live_files += 1;
            index.live_file_tokens += u64::from(f.len);
        }
        for c in &p.chunks {
            if c.alive {
                index.live_chunks += 1;
                index.live_chunk_tokens += u64::from(c.len);
            } else {
                index.dead_chunks += 1;
            }
        }
        index.central = std::sync::Mutex::new(p.central);
        index.terms = p.terms;
        index.postings = p.postings;
        index.path_postings = p.path_postings;
        index.chunks = p.chunks;
        index.file_lens = file_lens(&p.files);
        index.files = p.files;
        index.by_path = p.by_path;
        index.dirs = p.dirs;
        index.walked_at = p.walked_at;
        index.skipped = p.skipped;
        index.over_limit = p.over_limit;
        index.ignored = p.ignored;
        index.warnings = p.warnings;
        index.full_walks = p.full_walks;
        index
    }

    /// The scope files are read through.
    pub fn scope(&self) -> &Scope {
        &self.scope
    }

    /// Turns file-system watching on (the default) or off (every update stats the known
    /// directories and files instead).
    pub fn set_watching(&mut self, on: bool) {
        self.watching = on;
        if !on {
            self.watch = None;
        }
    }

    /// How this index learns about changes now.
    pub fn freshness(&self) -> Freshness {
        if self.watch.is_some() {
            Freshness::Watching
        } else {
            Freshness::Polling
        }
    }

    /// What the index does not hold of its root, and warnings.
    pub fn coverage(&self) -> Coverage {
        let mut skipped = SkippedFiles {
            over_limit: self.over_limit,
            ..SkippedFiles::default()
        };
        for (_, reason) in self.skipped.values() {
            match reason {
                SkipReason::Binary => skipped.binary += 1,
                SkipReason::TooLarge => skipped.too_large += 1,
                SkipReason::Unreadable => skipped.unreadable += 1,
                SkipReason::Generated => skipped.generated += 1,
                SkipReason::OverLimit => skipped.over_limit += 1,
            }
        }
        Coverage {
            ignored: self.ignored,
            skipped,
            warnings: self.warnings.clone(),
        }
    }

    /// Brings the index up to date: new and changed files are (re)indexed, deleted ones
    /// dropped. Returns how many files changed (by stamp: a file re-read only because it was
    /// written in the same clock tick as its last read does not count). `progress` counts
    /// files read.
    ///
    /// Watching, only the paths the file-system events name are looked at. Polling, when no
    /// directory and no ignore file changed since the last full walk (and that walk is not
    /// racy), no file can have been added or deleted: only the known files are stat'ed.
    /// Otherwise, and whenever events were lost, the whole tree is walked again.
    pub fn refresh(&mut self, progress: &AtomicUsize) -> usize {
        self.refresh_with(progress, &AtomicUsize::new(0))
    }

    /// [`Index::refresh`], counting in `found` the files it is going to read (so `progress`
    /// of `found` is the progress of a build).
    pub fn refresh_with(&mut self, progress: &AtomicUsize, found: &AtomicUsize) -> usize {
        self.refresh_cancellable(progress, found, &Cancel::default())
    }

    /// [`Index::refresh_with`] that stops between files once `cancel` is set or past its
    /// deadline; the index is then consistent but may miss files (the next refresh walks
    /// fully). The caller checks `cancel` afterwards.
    pub fn refresh_cancellable(
        &mut self,
        progress: &AtomicUsize,
        found: &AtomicUsize,
        cancel: &Cancel,
    ) -> usize {
        let p = Progress {
            read: progress,
            found,
            cancel,
        };
        if self.walked_at.is_some() {
            let quick = if self.watch.is_some() {
                self.event_refresh(p)
            } else {
                self.watch_known_dirs();
                self.quick_refresh(p)
            };
            if let Some(changed) = quick {
                return changed;
            }
        }
        self.full_refresh(p)
    }

    /// Starts watching the directories of the last walk (an index loaded from disk), unless
    /// watching is off or failed since the last walk. The stat pass that follows covers
    /// whatever changed before the watches existed.
    fn watch_known_dirs(&mut self) {
        if !self.watching || self.watch_failed || self.watch.is_some() {
            return;
        }
        let mut watch = DirWatch::new(self.scope.root()).ok();
        for d in &self.dirs {
            super::watch::add_or_give_up(&mut watch, &d.path);
        }
        self.watch_failed = watch.is_none();
        self.watch = watch;
    }

    /// Walks the whole tree (watching each directory as it is reached) and reconciles.
    fn full_refresh(&mut self, progress: Progress<'_>) -> usize {
        let started = SystemTime::now();
        self.watch = None;
        let mut watch = if self.watching {
            DirWatch::new(self.scope.root()).ok()
        } else {
            None
        };
        let listing = walk::list(self.scope.root(), self.max_files, &mut watch);
        self.watch_failed = self.watching && watch.is_none();
        self.watch = watch;
        self.dirs = listing.dirs;
        self.walked_at = Some(started);
        self.full_walks += 1;
        self.over_limit = listing.over_limit;
        self.ignored = listing.ignored;
        self.warnings = listing.warnings;
        let mut todo: Vec<Listed> = Vec::new();
        let mut seen = vec![false; self.files.len()];
        let mut still_skipped: HashMap<String, (Stamp, SkipReason)> = HashMap::default();
        let mut changed = 0usize;
        for l in listing.too_large {
            if self.skipped.get(&l.rel).map(|s| s.0) != Some(l.stamp) {
                changed += 1;
            }
            still_skipped.insert(l.rel, (l.stamp, SkipReason::TooLarge));
        }
        for l in listing.files {
            match self.by_path.get(&l.rel) {
                Some(&fid) => {
                    seen[fid as usize] = true;
                    let same = self.files[fid as usize]
                        .as_ref()
                        .is_some_and(|f| f.stamp == l.stamp);
                    if !same {
                        todo.push(l);
                    }
                }
                None => match self.skipped.get(&l.rel) {
                    // Skipped before and unchanged: not read again, not a change (unless it
                    // was over the cap, which this walk decides again).
                    Some(&(stamp, reason))
                        if stamp == l.stamp && reason != SkipReason::OverLimit =>
                    {
                        still_skipped.insert(l.rel, (stamp, reason));
                    }
                    _ => todo.push(l),
                },
            }
        }
        let gone: Vec<u32> = self
            .by_path
            .values()
            .copied()
            .filter(|&fid| !seen[fid as usize])
            .collect();
        changed += todo.len() + gone.len();
        changed += self
            .skipped
            .keys()
            .filter(|k| !still_skipped.contains_key(*k) && !self.by_path.contains_key(*k))
            .count();
        for fid in gone {
            self.remove(fid);
        }
        self.skipped = still_skipped;
        self.apply(todo, progress);
        self.maybe_compact();
        self.shrink();
        changed
    }

    /// Releases spare capacity left by a build, and gives the allocator's freed pages back to
    /// the system (the tokenized form of every file was allocated and freed on the reading
    /// threads; glibc keeps such pages in per-thread arenas, which after a large build held
    /// about as much as the index itself).
    fn shrink(&mut self) {
        self.terms.shrink();
        self.postings.shrink();
        self.chunks.shrink_to_fit();
        self.files.shrink_to_fit();
        self.file_lens.shrink_to_fit();
        self.central_mut().shrink();
        release_free_memory();
    }

    /// Reads and (re)indexes `todo`, in batches so that the tokenized form of only one batch
    /// is held at a time.
    #[allow(clippy::needless_pass_by_value)] // the worker threads borrow it for the scope
    fn apply(&mut self, todo: Vec<Listed>, progress: Progress<'_>) {
        progress.found.fetch_add(todo.len(), Ordering::Relaxed);
        let threads = std::thread::available_parallelism()
            .map_or(2, std::num::NonZero::get)
            .clamp(1, 8);
        if todo.len() < 64 || threads == 1 {
            for batch in todo.chunks(BATCH_FILES) {
                if progress.cancel.is_cancelled() {
                    // Files not applied are unknown to the index: walk fully next time.
                    self.walked_at = None;
                    return;
                }
                let prepared = prepare_batch(&self.scope, batch, progress.read);
                self.merge(batch, prepared);
            }
            return;
        }
        // A pipeline: workers read and tokenize batches in any order while this thread merges
        // them in listing order (so ids, and therefore results, do not depend on timing).
        // The channel is bounded, so at most a few batches wait at once.
        let scope = self.scope.clone();
        let next = AtomicUsize::new(0);
        let batches: Vec<&[Listed]> = todo.chunks(BATCH_FILES).collect();
        let (tx, rx) = std::sync::mpsc::sync_channel::<(usize, Batch)>(threads * 2);
        std::thread::scope(|s| {
            for _ in 0..threads {
                let tx = tx.clone();
                let (scope, batches, next) = (&scope, &batches, &next);
                s.spawn(move || loop {
                    if progress.cancel.is_cancelled() {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(listed) = batches.get(i) else { break };
                    let b = prepare_batch(scope, listed, progress.read);
                    if tx.send((i, b)).is_err() {
                        break;
                    }
                });
            }
            drop(tx);
            let mut pending: std::collections::BTreeMap<usize, Batch> =
                std::collections::BTreeMap::new();
            let mut want = 0usize;
            for (i, b) in rx {
                pending.insert(i, b);
                while let Some(b) = pending.remove(&want) {
                    self.merge(batches[want], b);
                    want += 1;
                }
            }
            if want < batches.len() {
                // Cancelled: the files not merged are unknown to the index.
                self.walked_at = None;
            }
        });
    }

    /// Puts a prepared batch of `listed` (or the reasons its files were skipped) into the
    /// index, in order.
    fn merge(&mut self, listed: &[Listed], batch: Batch) {
        let first_chunk = self.chunks.len() as u32;
        let mut added: Vec<(u32, Vec<u32>, Vec<u32>)> = Vec::new();
        for (l, p) in listed.iter().zip(batch.files) {
            if let Some(fid) = self.by_path.get(&l.rel).copied() {
                self.remove(fid);
            }
            match p {
                Ok(mut p) => {
                    self.skipped.remove(&l.rel);
                    let path_terms = std::mem::take(&mut p.path_terms);
                    let names = std::mem::take(&mut p.names);
                    added.push((self.add(p), path_terms, names));
                }
                Err(reason) => {
                    self.skipped.insert(l.rel.clone(), (l.stamp, reason));
                }
            }
        }
        // The batch's terms in the order first seen (a term with neither postings nor a
        // path is not added), each with its postings at once.
        let mut path_term = vec![false; batch.terms.len()];
        for (_, terms, _) in &added {
            for &t in terms {
                path_term[t as usize] = true;
            }
        }
        let used: Vec<(u32, u64)> = (0..batch.terms.len() as u32)
            .filter(|&k| {
                batch.starts[k as usize] < batch.starts[k as usize + 1] || path_term[k as usize]
            })
            .map(|k| (k, batch.fps[k as usize]))
            .collect();
        // What interning reads is asked for ahead (see `TermIds::prefetch`): table slots 16
        // terms ahead, fingerprints 8. (Room is not reserved for all of them: most are known,
        // and reserving could double the table of an index that ends just below a growth; a
        // growth in a batch only wastes the prefetches in flight.)
        let mut ids = vec![u32::MAX; batch.terms.len()];
        for (n, &(k, fp)) in used.iter().enumerate() {
            for (ahead, stage) in [(16, Stage::Slot), (8, Stage::Key)] {
                if let Some(&(_, fp)) = used.get(n + ahead) {
                    self.terms.prefetch(fp, stage);
                }
            }
            let k = k as usize;
            let list = &batch.postings[batch.starts[k] as usize..batch.starts[k + 1] as usize];
            let (id, new) = self.terms.intern(fp);
            if new {
                self.postings.add_term();
            }
            ids[k] = id;
            self.postings.extend(
                id,
                list.iter().map(|&(c, tf, sym)| Posting {
                    chunk: first_chunk + c,
                    tf,
                    sym,
                }),
            );
        }
        for (fid, terms, names) in added {
            for t in terms {
                self.path_postings.push(ids[t as usize], fid);
            }
            // A name whose chunk held no token has no postings (and no id): not one.
            let mut names: Vec<u32> = names
                .into_iter()
                .map(|k| ids[k as usize])
                .filter(|&id| id != u32::MAX)
                .collect();
            self.central_mut().record(fid, &mut names);
        }
        self.postings.maybe_flush();
    }

    /// The update from file-system events, or `None` when a full walk is needed (events lost,
    /// ignore rules changed, the cap reached by new files).
    // One pass over the drained events; its steps share the lists they build.
    #[allow(clippy::too_many_lines, clippy::zero_sized_map_values)]
    fn event_refresh(&mut self, progress: Progress<'_>) -> Option<usize> {
        let changes = match self.watch.as_mut()?.drain() {
            Drained::Rescan => return None,
            Drained::Changes(c) => c,
        };
        if changes.is_empty() {
            return Some(0);
        }
        let kept_before = self.kept();
        let over_before = self.over_cap();
        let root = self.scope.root().to_path_buf();
        let mut targets = Targets::default();
        let mut check: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
        for c in changes {
            let Ok(rest) = c.path.strip_prefix(&root) else {
                continue;
            };
            let rel = walk::rel_string(rest)?;
            if walk::is_ignore_file(&rel) {
                return None;
            }
            if !walk::may_list(&rel) {
                continue;
            }
            let parent = rel.rsplit_once('/').map_or("", |(p, _)| p).to_owned();
            if c.dir {
                targets.shallow.insert(parent);
                targets.deep.insert(rel);
            } else if self.by_path.contains_key(&rel) || self.skipped.contains_key(&rel) {
                check.insert(rel);
            } else if std::fs::symlink_metadata(&c.path).is_ok_and(|m| m.is_dir()) {
                targets.shallow.insert(parent);
                targets.deep.insert(rel);
            } else {
                targets.shallow.insert(parent);
            }
        }
        let mut changed = 0usize;
        let mut todo: Vec<Listed> = Vec::new();
        if !targets.shallow.is_empty() {
            let listing = walk::list_targets(&root, &targets, &mut self.watch);
            // Watching failed while listing (the watch limit): poll from now on.
            self.watch.as_ref()?;
            self.merge_dirs(&targets, listing.dirs);
            let mut listed: HashMap<String, ()> = HashMap::default();
            for l in listing.too_large {
                listed.insert(l.rel.clone(), ());
                if self.skipped.get(&l.rel).map(|s| s.0) != Some(l.stamp) {
                    changed += 1;
                    if let Some(&fid) = self.by_path.get(&l.rel) {
                        self.remove(fid);
                    }
                    self.skipped.insert(l.rel, (l.stamp, SkipReason::TooLarge));
                }
            }
            for l in listing.files {
                listed.insert(l.rel.clone(), ());
                let known = self
                    .by_path
                    .get(&l.rel)
                    .and_then(|&f| self.files[f as usize].as_ref());
                let unchanged = match known {
                    Some(f) => f.stamp == l.stamp && !racy(f.stamp.modified, f.read_at),
                    None => self.skipped.get(&l.rel).is_some_and(|s| s.0 == l.stamp),
                };
                if !unchanged {
                    changed += usize::from(known.is_none_or(|f| f.stamp != l.stamp));
                    todo.push(l);
                }
            }
            // Known files in the listed part of the tree that the walk did not list: gone (or
            // now ignored).
            let gone: Vec<String> = self
                .by_path
                .keys()
                .chain(self.skipped.keys())
                .filter(|k| targets.covers_file(k) && !listed.contains_key(*k))
                .cloned()
                .collect();
            for rel in gone {
                changed += 1;
                self.forget(&rel);
            }
            check.retain(|rel| !targets.covers_file(rel));
        }
        for rel in check {
            let Some(meta) = std::fs::symlink_metadata(root.join(&rel))
                .ok()
                .filter(std::fs::Metadata::is_file)
            else {
                changed += 1;
                self.forget(&rel);
                continue;
            };
            let stamp = Stamp::of(&meta);
            match walk::verdict(meta.len()) {
                Verdict::Empty => {
                    changed += 1;
                    self.forget(&rel);
                }
                Verdict::TooLarge => {
                    if self.skipped.get(&rel).map(|s| s.0) != Some(stamp) {
                        changed += 1;
                        self.forget(&rel);
                        self.skipped.insert(rel, (stamp, SkipReason::TooLarge));
                    }
                }
                Verdict::Index => {
                    let known = self
                        .by_path
                        .get(&rel)
                        .and_then(|&f| self.files[f as usize].as_ref());
                    let unchanged = match known {
                        Some(f) => f.stamp == stamp && !racy(f.stamp.modified, f.read_at),
                        None => self.skipped.get(&rel).is_some_and(|s| s.0 == stamp),
                    };
                    if !unchanged {
                        changed += usize::from(known.is_none_or(|f| f.stamp != stamp));
                        todo.push(Listed { rel, stamp });
                    }
                }
            }
        }
        let new_files = todo
            .iter()
            .filter(|l| !self.by_path.contains_key(&l.rel))
            .count();
        // At the cap the indexed files are the first in path order: a new file may displace
        // one, a removed one lets the next in. Only a full listing knows which, unless every
        // new file comes after all the files the last walk kept (a busy directory at the end
        // of a tree over the cap): those displace none, and the first take what room is left.
        if over_before && self.kept() < kept_before {
            return None;
        }
        if self.kept() + new_files > self.max_files || (over_before && new_files > 0) {
            if !self.after_kept(&todo) {
                return None;
            }
            // The kept files stay; the first new ones in path order take what room is left.
            let (mut new, known): (Vec<Listed>, Vec<Listed>) = std::mem::take(&mut todo)
                .into_iter()
                .partition(|l| !self.by_path.contains_key(&l.rel));
            new.sort_by(|a, b| a.rel.cmp(&b.rel));
            let room = self.max_files.saturating_sub(self.kept());
            let over = new.split_off(room.min(new.len()));
            todo = known;
            todo.extend(new);
            for l in over {
                self.skipped.insert(l.rel, (l.stamp, SkipReason::OverLimit));
            }
        }
        self.apply(todo, progress);
        self.maybe_compact();
        Some(changed)
    }

    /// Whether files of the root are not indexed because of the cap.
    fn over_cap(&self) -> bool {
        self.over_limit > 0
            || self
                .skipped
                .values()
                .any(|(_, r)| *r == SkipReason::OverLimit)
    }

    /// Files a walk would count toward the cap now: indexed, or skipped for their content
    /// (the walk lists them before reading them).
    fn kept(&self) -> usize {
        self.live_files as usize
            + self
                .skipped
                .values()
                .filter(|(_, r)| kept_for_content(*r))
                .count()
    }

    /// Whether every file of `todo` the index does not hold sorts after every file the last
    /// full walk kept (indexed, or skipped for its content), in the walk's path order.
    fn after_kept(&self, todo: &[Listed]) -> bool {
        let Some(first_new) = todo
            .iter()
            .map(|l| l.rel.as_str())
            .filter(|rel| !self.by_path.contains_key(*rel))
            .min()
        else {
            return true;
        };
        let last_kept = self
            .by_path
            .keys()
            .chain(
                self.skipped
                    .iter()
                    .filter(|(_, (_, r))| kept_for_content(*r))
                    .map(|(k, _)| k),
            )
            .max();
        last_kept.is_some_and(|last| last.as_str() < first_new)
    }

    /// Drops `rel` from the index and from the skipped files.
    fn forget(&mut self, rel: &str) {
        if let Some(fid) = self.by_path.get(rel).copied() {
            self.remove(fid);
        }
        self.skipped.remove(rel);
    }

    /// Replaces the recorded directories under `targets` with those a partial walk found.
    fn merge_dirs(&mut self, targets: &Targets, found: Vec<walk::WatchedDir>) {
        let root = self.scope.root().to_path_buf();
        let rel_of = |p: &std::path::Path| {
            p.strip_prefix(&root)
                .ok()
                .and_then(walk::rel_string)
                .unwrap_or_default()
        };
        self.dirs.retain(|d| {
            let rel = rel_of(&d.path);
            !targets
                .deep
                .iter()
                .any(|t| rel == *t || walk::is_under(&rel, t))
        });
        for d in found {
            match self.dirs.iter_mut().find(|e| e.path == d.path) {
                Some(e) => *e = d,
                None => self.dirs.push(d),
            }
        }
    }

    /// The stat-only update, or `None` when a full walk is needed.
    fn quick_refresh(&mut self, progress: Progress<'_>) -> Option<usize> {
        let walked_at = self.walked_at?;
        for d in &self.dirs {
            if walk::stamp_of(&d.path) != Some(d.stamp) || racy(d.stamp.modified, walked_at) {
                return None;
            }
            for (p, s) in &d.ignore_files {
                if walk::stamp_of(p) != Some(*s) {
                    return None;
                }
            }
        }
        let root = self.scope.root().to_path_buf();
        let mut todo: Vec<Listed> = Vec::new();
        let mut changed = 0usize;
        let known: Vec<&FileMeta> = self.files.iter().flatten().collect();
        let stamps = stat_all(&root, &known);
        if stamps.len() != known.len() {
            return None;
        }
        for (f, now) in known.iter().zip(stamps) {
            match now {
                Some(stamp) if stamp == f.stamp && !racy(stamp.modified, f.read_at) => {}
                // Vanished or replaced by something else: the directory would have changed,
                // so this is a race with a writer; walk fully.
                None => return None,
                Some(stamp) => {
                    // A racy file with its stamp unchanged is re-read to be safe, but is not
                    // counted as a change (so it does not make the caller save the index on
                    // every call within the racy window).
                    changed += usize::from(stamp != f.stamp);
                    todo.push(Listed {
                        rel: f.rel.clone(),
                        stamp,
                    });
                }
            }
        }
        let mut skipped_changed = Vec::new();
        for (rel, &(stamp, reason)) in &self.skipped {
            match walk::stamp_of(&root.join(rel)) {
                Some(now) if now == stamp => {}
                None => return None,
                Some(now) => skipped_changed.push((
                    Listed {
                        rel: rel.clone(),
                        stamp: now,
                    },
                    reason,
                )),
            }
        }
        for (l, reason) in skipped_changed {
            changed += 1;
            if reason == SkipReason::OverLimit {
                // Still after the kept files: not read.
                self.skipped.insert(l.rel, (l.stamp, reason));
            } else if walk::verdict(l.stamp.size) == Verdict::TooLarge {
                self.skipped.insert(l.rel, (l.stamp, SkipReason::TooLarge));
            } else {
                todo.push(l);
            }
        }
        self.apply(todo, progress);
        Some(changed)
    }

    /// Adds a prepared file's chunks and metadata (its postings come with its batch's), and
    /// returns its id.
    fn add(&mut self, p: Prepared) -> u32 {
        self.generation += 1;
        let fid = self.files.len() as u32;
        let first = self.chunks.len() as u32;
        let mut file_len = 0u32;
        for c in p.chunks {
            file_len = file_len.saturating_add(c.len);
            self.live_chunks += 1;
            self.live_chunk_tokens += u64::from(c.len);
            self.chunks.push(ChunkMeta {
                file: fid,
                start_line: c.start_line,
                end_line: c.end_line,
                len: c.len,
                alive: true,
            });
        }
        self.live_files += 1;
        self.live_file_tokens += u64::from(file_len);
        self.by_path.insert(p.rel.clone(), fid);
        self.file_lens.push(file_len);
        self.files.push(Some(FileMeta {
            rel: p.rel,
            stamp: p.stamp,
            chunks: first..self.chunks.len() as u32,
            len: file_len,
            language: p.language,
            role: p.role,
            keys: p.keys,
            read_at: p.read_at,
        }));
        fid
    }

    /// The text of an indexed file, from the cache or read again through the scope; `None`
    /// if it cannot be read now.
    pub(super) fn text(&mut self, fid: u32) -> Option<std::sync::Arc<str>> {
        if let Some((_, t)) = self.texts.iter().find(|(f, _)| *f == fid) {
            return Some(t.clone());
        }
        let meta = self.files.get(fid as usize)?.as_ref()?;
        let text: std::sync::Arc<str> = self
            .scope
            .read_text(&meta.rel, &read_limits())
            .ok()?
            .text
            .into();
        if text.len() <= TEXT_CACHE_BYTES / 4 {
            self.text_bytes += text.len();
            self.texts.push_back((fid, text.clone()));
            while self.text_bytes > TEXT_CACHE_BYTES {
                match self.texts.pop_front() {
                    Some((_, t)) => self.text_bytes -= t.len(),
                    None => break,
                }
            }
        }
        Some(text)
    }

    /// The text of an indexed file, from the cache or read again (not kept): for ranking,
    /// which holds the index shared.
    pub(super) fn read_text(&self, fid: u32) -> Option<std::sync::Arc<str>> {
        if let Some((_, t)) = self.texts.iter().find(|(f, _)| *f == fid) {
            return Some(t.clone());
        }
        let meta = self.files.get(fid as usize)?.as_ref()?;
        Some(
            self.scope
                .read_text(&meta.rel, &read_limits())
                .ok()?
                .text
                .into(),
        )
    }

    fn remove(&mut self, fid: u32) {
        let Some(meta) = self.files[fid as usize].take() else {
            return;
        };
        self.generation += 1;
        self.central_mut().forget(fid);
        self.file_lens[fid as usize] = 0;
        if let Some(i) = self.texts.iter().position(|(f, _)| *f == fid) {
            if let Some((_, t)) = self.texts.remove(i) {
                self.text_bytes -= t.len();
            }
        }
        self.by_path.remove(&meta.rel);
        for cid in meta.chunks.clone() {
            let c = &mut self.chunks[cid as usize];
            if c.alive {
                c.alive = false;
                self.live_chunks -= 1;
                self.live_chunk_tokens -= u64::from(c.len);
                self.dead_chunks += 1;
            }
        }
        self.live_files -= 1;
        self.live_file_tokens -= u64::from(meta.len);
    }

    /// Compacts when dead chunks or dead file slots outnumber live ones (past a floor), so
    /// a long-lived index does not drift toward its cap or grow with every edit.
    fn maybe_compact(&mut self) {
        let dead_files = self.files.len() as u64 - self.live_files;
        if (self.dead_chunks > 1024 && self.dead_chunks > self.live_chunks)
            || (dead_files > 64 && dead_files > self.live_files)
        {
            self.compact();
        }
    }

    /// Renumbers live files and chunks densely and drops every posting of a dead one.
    fn compact(&mut self) {
        self.generation += 1;
        let mut file_map: Vec<u32> = vec![u32::MAX; self.files.len()];
        let mut chunk_map: Vec<u32> = vec![u32::MAX; self.chunks.len()];
        let mut files: Vec<Option<FileMeta>> = Vec::with_capacity(self.live_files as usize);
        let mut chunks: Vec<ChunkMeta> = Vec::with_capacity(self.live_chunks as usize);
        for (old, f) in std::mem::take(&mut self.files).into_iter().enumerate() {
            let Some(mut f) = f else { continue };
            let fid = files.len() as u32;
            file_map[old] = fid;
            let first = chunks.len() as u32;
            for cid in f.chunks.clone() {
                let mut c = self.chunks[cid as usize].clone();
                chunk_map[cid as usize] = chunks.len() as u32;
                c.file = fid;
                chunks.push(c);
            }
            f.chunks = first..chunks.len() as u32;
            files.push(Some(f));
        }
        self.postings
            .remap(|c| Some(chunk_map[c as usize]).filter(|&n| n != u32::MAX));
        self.path_postings.retain_mut(|f| {
            let new = file_map[*f as usize];
            *f = new;
            new != u32::MAX
        });
        for fid in self.by_path.values_mut() {
            *fid = file_map[*fid as usize];
        }
        self.central_mut().remap(&file_map, files.len());
        self.texts.clear();
        self.text_bytes = 0;
        self.file_lens = file_lens(&files);
        self.files = files;
        self.chunks = chunks;
        self.dead_chunks = 0;
    }

    /// Reads the term fingerprints, posting runs and run starts from `parts`, the mapped
    /// cache file a save of this index in its present state just wrote, instead of their
    /// heap copies ([`super::mapped`]).
    pub(super) fn serve_mapped(&mut self, parts: super::persist::MappedParts) {
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
    pub(super) fn bound_residency(&mut self) {
        if let Some(map) = self.postings.map() {
            self.residency.after_request(map);
        }
    }

    /// What ranking keeps of files' [centrality](super::central), to change it (a panic that
    /// poisoned its lock left nothing half-changed that a fresh value would not replace).
    fn central_mut(&mut self) -> &mut super::central::Central {
        self.central
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Heap bytes of what ranking keeps of files' [centrality](super::central) (the names
    /// each file defines, recorded as it is indexed and saved with the index).
    pub(super) fn central_bytes(&self) -> usize {
        self.central.lock().map_or(0, |c| c.heap_bytes())
    }

    /// Counts and approximate memory.
    pub fn stats(&self) -> IndexStats {
        let postings = self.postings.total();
        let file_bytes: usize = self
            .files
            .iter()
            .flatten()
            .map(|f| f.rel.len() * 2 + 160)
            .sum();
        let bytes = self.postings.bytes()
            + self.path_postings.bytes()
            + self.terms.bytes()
            + self.chunks.len() * std::mem::size_of::<ChunkMeta>()
            + file_bytes
            + self.text_bytes
            + self.central_bytes();
        IndexStats {
            files: self.live_files as usize,
            chunks: self.live_chunks as usize,
            terms: self.terms.len(),
            postings,
            bytes,
            mapped_bytes: self.terms.mapped_bytes() + self.postings.mapped_bytes(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_skip_reason_survives_the_cache_file_code() {
        use SkipReason::*;
        for r in [Binary, TooLarge, Unreadable, Generated, OverLimit] {
            assert_eq!(SkipReason::from_code(r.code()), Some(r));
        }
        assert_eq!(SkipReason::from_code(5), None);
    }

    proptest::proptest! {
        /// Counting a chunk through the batch's identifier cache gives the terms and counts
        /// that tokenizing it afresh gives, however many texts the cache has seen.
        #[test]
        fn cached_identifiers_count_as_fresh_tokens(
            texts in proptest::collection::vec("[ a-zA-Z0-9_\\n(){}\u{e9}\u{3a3}]{0,60}", 1..8)
        ) {
            let mut counts = ChunkCounts::default();
            for (k, text) in texts.iter().enumerate() {
                let sym = k % 3 == 2;
                let n = counts.add_text(text, sym);
                counts.take();
                let mut got: Vec<(String, u16, u16)> = counts
                    .chunk
                    .iter()
                    .map(|&(t, tf, s)| (counts.terms.term(t).to_owned(), tf, s))
                    .collect();
                let mut want: Vec<(String, u16, u16)> = Vec::new();
                let mut total = 0u32;
                for_each_term(text, |t, _| {
                    total += 1;
                    match want.iter_mut().find(|w| w.0 == t) {
                        Some(w) if sym => w.2 += 1,
                        Some(w) => w.1 += 1,
                        None => want.push((t.to_owned(), u16::from(!sym), u16::from(sym))),
                    }
                });
                got.sort();
                want.sort();
                proptest::prop_assert_eq!(got, want);
                proptest::prop_assert_eq!(n, total);
            }
        }
    }
}
