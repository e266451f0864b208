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

pub(crate) mod chunk;
mod idents;
mod mapped;
pub(crate) mod persist;
mod read;
mod refresh;
pub(super) mod terms;
mod update;
pub(crate) mod walk;
mod watch;

use rustc_hash::FxHashMap as HashMap;
use std::ops::Range;
use std::sync::atomic::AtomicUsize;
use std::time::SystemTime;

use super::query::central;
use super::query::rank;
use super::query::roles::Role;
use crate::cancel::Cancel;
use crate::fs_scope::{ReadError, Scope};
use walk::Stamp;
use watch::DirWatch;

pub(super) use terms::Posting;
use terms::{PathPostings, Postings, TermIds};

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
    /// What the file is for, from its path and text
    /// ([`role_of_text`](super::query::roles::role_of_text)): kept so that ranking does not
    /// classify every matching file again on each query.
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
    /// ([`mapped`]).
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
    /// What ranking learned of files' [centrality](super::query::central) (ranking holds `&Index`).
    pub(super) central: std::sync::Mutex<central::Central>,
    /// What pruned ranking knows of the posting lists in this generation
    /// ([`prune`](super::query::prune)).
    pub(super) summaries: std::sync::Mutex<super::query::prune::Summaries>,
    /// What ranking reads of every file, dense, for this generation
    /// ([`FileTable`](super::query::rank::FileTable)).
    pub(super) file_table: std::sync::Mutex<super::query::rank::FileTable>,
    /// What the exact definitions of short prompts found in the files they read, for this
    /// generation ([`DefinitionMemo`](super::query::rank::DefinitionMemo)).
    pub(super) definitions: super::query::rank::DefinitionMemo,
    /// What the definition lines of one-line questions held of their words, for this
    /// generation ([`FileMemo`](super::query::rank::FileMemo)).
    pub(super) definition_words: super::query::rank::FileMemo<f32>,
    /// Bounds the resident pages of the mapped cache file (see [`Index::bound_residency`]).
    residency: mapped::Residency,
}

/// Counters of an update in progress: files read of files to read.
#[derive(Clone, Copy)]
struct Progress<'a> {
    read: &'a AtomicUsize,
    found: &'a AtomicUsize,
    /// Checked between files: a cancelled refresh stops early.
    cancel: &'a Cancel,
}

/// The contents of an index restored from disk ([`persist`]), already checked
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

/// The token counts of `files` by id, 0 for a removed file.
fn file_lens(files: &[Option<FileMeta>]) -> Vec<u32> {
    files
        .iter()
        .map(|f| f.as_ref().map_or(0, |m| m.len))
        .collect()
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
            summaries: std::sync::Mutex::default(),
            file_table: std::sync::Mutex::default(),
            definitions: super::query::rank::FileMemo::default(),
            definition_words: super::query::rank::FileMemo::default(),
            residency: mapped::Residency::default(),
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

    /// Heap bytes of the parts a mapped cache file can serve instead (posting runs and their
    /// starts, postings waiting to be merged, term fingerprints): what writing the index to a
    /// file and mapping it would release.
    pub(super) fn spillable_bytes(&self) -> usize {
        self.postings.bytes() + self.terms.fingerprint_heap_bytes()
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
            + self.definitions.bytes()
            + self.definition_words.bytes()
            + self.central_bytes()
            + self.summaries.lock().map_or(0, |s| s.heap_bytes());
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
}
