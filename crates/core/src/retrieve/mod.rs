//! Retrieval: given a prompt and a repository root, the ranked snippets an agent needs
//! (Context Retrieval Contract v1).
//!
//! Two halves, and what they share:
//! - [`index`]: building and storing the index of one root: [`walk`](index::walk) (the files
//!   worth indexing: gitignore-aware, no symlinks followed, vendored, generated, lock, binary
//!   and oversized files skipped), [`chunk`](index::chunk) (each file split into
//!   structure-aware line ranges with the names they define), the terms and posting lists, the
//!   incremental update from file-system events (or, where watching is not available, a stat
//!   walk), and [`persist`](index::persist) (the cache file, saved and mapped back);
//! - [`query`]: answering a prompt from an index: [`prompt`](query::prompt) (what a prompt
//!   asks for: weighted terms, named files, modules, identifiers), [`roles`](query::roles)
//!   (what each file is for: source, test, docs, example..., from its path, and type
//!   declarations from the text), [`rank`](query::rank) (BM25F over content, symbols and
//!   paths, definitions, prompt mentions, file roles and centrality, per-file aggregation, each
//!   part kept as the file's [`Signals`]);
//! - [`tokenize`]: code-aware terms (identifiers whole and split, light stemming), the same
//!   for indexed text and prompts;
//! - [`Retrieval`] (here): the indexes of several roots, least recently used evicted, each
//!   built once even under concurrent first calls, and the snippets cut from ranked chunks.
//!
//! Every file is read through [`fs_scope`](crate::fs_scope); snippet text is redacted with
//! [`secrets::redact`](crate::secrets::redact) before it leaves the engine.

pub(crate) mod index;
mod multi;
mod query;
mod tokenize;

#[cfg(test)]
mod tests;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::cancel::Cancel;
use crate::fs_scope::Scope;
use crate::{Error, Result};

pub(crate) use index::Index;
pub use index::{Coverage, Freshness, IndexStats, SkippedFiles};
pub use multi::{check_roots, RootSnippet, RootsRequest, MAX_ROOTS_PER_CALL};
pub(crate) use query::rank::Query;
pub use query::rank::Signals;
pub use query::roles::Role;
pub use query::snippet::snippet_id;

/// Snippets returned when the request has no `limit`.
pub const DEFAULT_LIMIT: usize = 20;
/// Most snippets one request returns; a larger `limit` is capped to it.
pub const MAX_LIMIT: usize = 100;
/// Longest prompt accepted, in bytes (a long stack trace fits; a whole file does not).
pub const MAX_PROMPT_BYTES: usize = 256 * 1024;
/// Longest `spaceId` / `sessionId`, in bytes.
pub const MAX_ID_BYTES: usize = 1024;
/// Most lines of one snippet's content.
pub const MAX_SNIPPET_LINES: usize = 60;
/// Most characters of one snippet's content.
pub const MAX_SNIPPET_CHARS: usize = 4000;

/// Settings of the retrieval state of an engine.
#[derive(Debug, Clone)]
pub struct RetrievalOptions {
    /// Roots whose indexes are kept; the least recently used is dropped beyond. Default 8.
    pub max_roots: usize,
    /// Files indexed per root at most (the first ones in path order). Default 200 000.
    pub max_files: usize,
    /// Directory where each root's index is saved and loaded from across restarts (see
    /// [`persist`](index::persist)); `None` (the default) keeps nothing across restarts (see
    /// [`RetrievalOptions::spill_min_bytes`] for where a large index lives meanwhile).
    pub cache_dir: Option<PathBuf>,
    /// Watch indexed trees for changes (default `true`); `false` stats every known directory
    /// and file on each call instead (for trees where events are not trusted).
    pub watch: bool,
    /// Most bytes all indexes together may hold (their own estimate); the least recently used
    /// roots are dropped beyond it, never the one just used. `None` (the default): no budget.
    pub max_index_bytes: Option<usize>,
    /// Without `cache_dir`: an index whose posting runs and term fingerprints take at least
    /// this many heap bytes is written, in the background after a build or change, to an
    /// unnamed file in the system's temporary folder (on Linux, unless that folder is held in
    /// memory) and those parts are read from the file's mapped pages from then on, as a saved
    /// index's are (file pages, which the system may drop and read again): the process keeps
    /// only the pages queries touched. `usize::MAX` keeps every index on the
    /// heap. Default [`SPILL_MIN_BYTES`].
    pub spill_min_bytes: usize,
}

/// The default [`RetrievalOptions::spill_min_bytes`]: 32 MiB (about 15,000 files of C; the
/// Linux kernel's 78k files take 150 MB), below which writing the file costs more than the
/// memory it returns.
pub const SPILL_MIN_BYTES: usize = 32 << 20;

impl Default for RetrievalOptions {
    fn default() -> Self {
        RetrievalOptions {
            max_roots: 8,
            max_files: 200_000,
            cache_dir: None,
            watch: true,
            max_index_bytes: None,
            spill_min_bytes: SPILL_MIN_BYTES,
        }
    }
}

/// A retrieval request, validated (the contract's `ContextRetrievalRequest` minus the fields
/// the engine only echoes).
#[derive(Debug, Clone)]
pub struct Request {
    /// What the agent is asked to do.
    pub prompt: String,
    /// Absolute path of the repository root.
    pub root: String,
    /// Snippets wanted; capped to [`MAX_LIMIT`].
    pub limit: usize,
}

/// How snippets are returned: what [`Retrieval::retrieve_with`] adds to or takes from them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SnippetOptions {
    /// Each snippet carries the [`Signals`] that scored its file. Default false.
    pub explain: bool,
    /// Secrets in snippet text are replaced by `[REDACTED:<kind>]` and reported. Default true.
    pub redact: bool,
}

impl Default for SnippetOptions {
    fn default() -> Self {
        SnippetOptions {
            explain: false,
            redact: true,
        }
    }
}

/// A ranked snippet.
#[derive(Debug, Clone, PartialEq)]
pub struct Snippet {
    /// Stable id: a hash of the path, the line range and the content.
    pub id: String,
    /// Path relative to the root, `'/'`-separated.
    pub path: String,
    /// `path:start-end`, for traceability.
    pub source: String,
    /// The lines of the snippet, secrets redacted, at most [`MAX_SNIPPET_LINES`] lines and
    /// [`MAX_SNIPPET_CHARS`] characters.
    pub content: String,
    /// Relevance: finite, positive, comparable within one response.
    pub score: f64,
    /// First line, 1-based.
    pub start_line: u32,
    /// Last line, 1-based, inclusive.
    pub end_line: u32,
    /// Language from the file name, if known.
    pub language: Option<&'static str>,
    /// The signals that scored the snippet's file, when the request asked to explain.
    pub signals: Option<Signals>,
    /// The secrets replaced by `[REDACTED:<kind>]` in `content`: kind and 1-based line of
    /// the file (within `start_line..=end_line`), never the value.
    pub redactions: Vec<crate::secrets::Redaction>,
}

/// Files [`Retrieval::file_ranks`] returns when no limit is given.
pub const DEFAULT_RANKED_FILES: usize = 100;
/// Most files [`Retrieval::file_ranks`] returns; a larger limit is capped to it.
pub const MAX_RANKED_FILES: usize = 5000;
/// Most folders [`Retrieval::file_ranks`] returns (the biggest).
pub const MAX_RANKED_FOLDERS: usize = 1000;

/// What [`Retrieval::file_ranks`] is asked for.
#[derive(Debug, Clone, Default)]
pub struct FileRankOptions {
    /// Files wanted; capped to [`MAX_RANKED_FILES`].
    pub limit: usize,
    /// Only the files under this folder (relative to the root, `/`-separated); `None` or empty
    /// for the whole root.
    pub path: Option<String>,
}

/// One file of a root, as the index knows it.
#[derive(Debug, Clone, PartialEq)]
pub struct FileRank {
    /// Path relative to the root, `'/'`-separated.
    pub path: String,
    /// What the file is for ([`Role`]).
    pub role: Role,
    /// How much the rest of the tree uses the names only this file defines, 0 to 1 (the
    /// prior ranking gives a one-line prompt).
    pub centrality: f32,
    /// Language from the file name, if known.
    pub language: Option<&'static str>,
}

/// A folder of a root: its indexed files (at any depth) and the role most of them have.
#[derive(Debug, Clone, PartialEq)]
pub struct FolderRank {
    /// Path relative to the root, `'/'`-separated.
    pub path: String,
    /// Indexed files under it, at any depth.
    pub files: usize,
    /// The most common role of those files (ties: the first in [`Role`]'s order).
    pub role: Role,
}

/// The files of a root (or of one of its folders), most central first, and its folders.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FileRanks {
    /// The most central files, at most the limit: centrality descending, ties by path.
    pub files: Vec<FileRank>,
    /// Indexed files under the folder asked about (`files` holds the first of them).
    pub total: usize,
    /// The folders one and two levels below the folder asked about that hold indexed files,
    /// most files first (ties by path), at most [`MAX_RANKED_FOLDERS`].
    pub folders: Vec<FolderRank>,
}

/// The state of a root's index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexState {
    /// Not indexed (never asked, or evicted).
    Absent,
    /// Being built now.
    Building,
    /// Built; kept up to date on every request.
    Ready,
}

impl IndexState {
    /// `"absent" | "building" | "ready"`.
    pub fn as_str(self) -> &'static str {
        match self {
            IndexState::Absent => "absent",
            IndexState::Building => "building",
            IndexState::Ready => "ready",
        }
    }
}

/// What [`Retrieval::status`] reports about a root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexStatus {
    /// Absent, building or ready.
    pub state: IndexState,
    /// Files read so far by the current or last build or update.
    pub files_read: usize,
    /// Files to read by the current or last build or update (of those its walk found).
    pub files_total: usize,
    /// Counts of the index when ready.
    pub stats: IndexStats,
    /// How the index learns about changes (`None` when absent).
    pub freshness: Option<Freshness>,
    /// What the index does not hold, and warnings.
    pub coverage: Coverage,
}

/// What the last build or update of a slot left for [`Retrieval::status`].
#[derive(Debug, Clone, Default)]
struct Report {
    stats: IndexStats,
    freshness: Option<Freshness>,
    coverage: Coverage,
}

/// One root's index and its progress counters.
#[derive(Debug, Default)]
struct Slot {
    index: Mutex<Option<Index>>,
    /// An index exists (built or loaded) in this slot.
    ready: AtomicBool,
    building: AtomicBool,
    files_read: AtomicUsize,
    files_total: AtomicUsize,
    report: Mutex<Report>,
    /// A background save of this slot is queued or running.
    saving: AtomicBool,
    /// Requests waiting for the index lock: a background save gives the lock up for them.
    waiting: AtomicUsize,
}

impl Slot {
    /// The index lock, for a request (a background save yields to it).
    fn lock_index(&self) -> MutexGuard<'_, Option<Index>> {
        self.waiting.fetch_add(1, Ordering::AcqRel);
        let guard = lock(&self.index);
        self.waiting.fetch_sub(1, Ordering::AcqRel);
        guard
    }
}

#[derive(Debug)]
struct Entry {
    root: PathBuf,
    slot: Arc<Slot>,
    used: u64,
}

/// The retrieval state of an engine: one index per root, least recently used evicted.
#[derive(Debug, Default)]
pub struct Retrieval {
    options: RetrievalOptions,
    roots: Mutex<Vec<Entry>>,
    clock: AtomicU64,
    /// Background saves still running (joined when the state is dropped).
    saves: Mutex<Vec<std::thread::JoinHandle<()>>>,
}

impl Drop for Retrieval {
    fn drop(&mut self) {
        for h in std::mem::take(&mut *lock(&self.saves)) {
            let _ = h.join();
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Retrieval {
    /// Empty state with the given options.
    pub fn new(options: RetrievalOptions) -> Retrieval {
        Retrieval {
            options,
            roots: Mutex::new(Vec::new()),
            clock: AtomicU64::new(0),
            saves: Mutex::new(Vec::new()),
        }
    }

    /// The slot of a canonical root, created if absent; evicts the least recently used roots
    /// beyond the cap (an evicted index still in use by a request lives until it finishes).
    fn slot(&self, root: &std::path::Path) -> Arc<Slot> {
        let now = self.clock.fetch_add(1, Ordering::Relaxed);
        let mut roots = lock(&self.roots);
        if let Some(e) = roots.iter_mut().find(|e| e.root == root) {
            e.used = now;
            return e.slot.clone();
        }
        let slot = Arc::new(Slot::default());
        roots.push(Entry {
            root: root.to_path_buf(),
            slot: slot.clone(),
            used: now,
        });
        while roots.len() > self.options.max_roots.max(1) {
            if let Some((i, _)) = roots.iter().enumerate().min_by_key(|(_, e)| e.used) {
                roots.remove(i);
            }
        }
        slot
    }

    /// Retrieves the snippets for `request`: indexes the root on first use (concurrent first
    /// calls wait for one build), brings the index up to date with a stat walk, ranks, and reads
    /// the snippets. An empty prompt, an empty corpus or no match give `[]`.
    ///
    /// Errors: `invalid_request` for a root that is not an absolute path to an existing
    /// directory, or a prompt over [`MAX_PROMPT_BYTES`].
    pub fn retrieve(&self, request: &Request) -> Result<Vec<Snippet>> {
        self.retrieve_with(request, &SnippetOptions::default())
    }

    /// [`retrieve`](Self::retrieve) with the snippets shaped by `options` (explained, or
    /// not redacted).
    pub fn retrieve_with(
        &self,
        request: &Request,
        options: &SnippetOptions,
    ) -> Result<Vec<Snippet>> {
        self.retrieve_cancellable(request, options, &Cancel::default())
    }

    /// [`Retrieval::retrieve_with`] that stops when `cancel` is set or its deadline passes (an
    /// interrupted first build leaves the root without an index).
    pub fn retrieve_cancellable(
        &self,
        request: &Request,
        options: &SnippetOptions,
        cancel: &Cancel,
    ) -> Result<Vec<Snippet>> {
        if request.prompt.len() > MAX_PROMPT_BYTES {
            return Err(Error::invalid_request(format!(
                "prompt is too large (at most {} KiB)",
                MAX_PROMPT_BYTES / 1024
            )));
        }
        let scope = Scope::new(&request.root)?;
        let limit = request.limit.min(MAX_LIMIT);
        let mut query = Query::parse(&request.prompt);
        query.explain = options.explain;
        if query.terms.is_empty() && query.mentions.is_empty() || limit == 0 {
            return Ok(Vec::new());
        }
        let slot = self.slot(scope.root());
        let mut guard = slot.lock_index();
        let index = self.up_to_date(&slot, &mut guard, scope, cancel)?;
        // A short prompt's symbol is also looked for in files named after it further down;
        // a capitalized word of a longer one only among the files searched for definitions.
        let candidates = if !query.symbols.is_empty() {
            limit.max(query::rank::EXACT_DEFINITION_CANDIDATES)
        } else if !query.capitals.is_empty() {
            limit.max(query::rank::EXACT_DEFINITION_FILES)
        } else {
            limit
        };
        // A pasted message is looked for in the text of the top files.
        let candidates = if query.messages.is_empty() {
            candidates
        } else {
            candidates.max(query::rank::MESSAGE_FILES)
        };
        // A longer prompt's top files are re-ranked by the references between them.
        let candidates = if query::refs::wanted(&query) {
            candidates.max(query::refs::REFERENCE_FILES)
        } else {
            candidates
        };
        let mut hits = query::rank::rank_shown(index, &query, candidates, limit);
        query::rank::exact_definitions(index, &query, &mut hits);
        query::rank::message_strings(index, &query, &mut hits);
        query::rank::definition_words(index, &query, &mut hits);
        query::refs::references(index, &query, &mut hits);
        hits.truncate(limit);
        let out = query::snippet::snippets(index, &hits, limit, *options);
        index.bound_residency();
        drop(guard);
        self.enforce_budget(&slot);
        Ok(out)
    }

    /// Builds or refreshes the index of a slot whose lock is held.
    fn up_to_date<'a>(
        &self,
        slot: &Arc<Slot>,
        guard: &'a mut MutexGuard<'_, Option<Index>>,
        scope: Scope,
        cancel: &Cancel,
    ) -> Result<&'a mut Index> {
        if let Err(e) = cancel.check() {
            // Cancelled before a first build began: no entry may stay behind (its status
            // would say "building" for a build that never runs).
            if guard.is_none() {
                self.forget(slot);
            }
            return Err(e);
        }
        slot.building.store(true, Ordering::Relaxed);
        slot.files_read.store(0, Ordering::Relaxed);
        slot.files_total.store(0, Ordering::Relaxed);
        let cache_dir = self.options.cache_dir.as_deref();
        // A new index starts from the saved copy when there is a usable one; the refresh
        // below then re-reads only what changed since it was saved.
        let mut built = false;
        if guard.is_none() {
            let loaded =
                cache_dir.and_then(|d| index::persist::load(d, &scope, self.options.max_files));
            built = loaded.is_none();
            **guard = loaded;
        }
        let index = guard.get_or_insert_with(|| Index::new(scope, self.options.max_files));
        index.set_watching(self.options.watch);
        // A panic while the index was being changed leaves it poisoned and possibly
        // inconsistent: `lock` recovers the guard, and `refresh` works on stamps, so a file
        // half-added is simply re-read. (Panics are bugs; this only keeps the process alive.)
        let changed = index.refresh_cancellable(&slot.files_read, &slot.files_total, cancel);
        if let Err(e) = cancel.check() {
            // Interrupted: a first build is dropped whole (no half-built index is ever
            // served or reported); a refresh keeps the consistent index it has (files not yet
            // re-read keep their old stamps and are re-read next time).
            if built {
                **guard = None;
                self.forget(slot);
            }
            slot.building.store(false, Ordering::Relaxed);
            return Err(e);
        }
        let Some(index) = guard.as_mut() else {
            slot.building.store(false, Ordering::Relaxed);
            return Err(Error::internal("internal error: the index was not built"));
        };
        if (changed > 0 || built) && self.wants_save(index) {
            self.save_later(slot);
        }
        // The counts walk every posting list (millions on a large tree): only after a change.
        if changed > 0 || built || !slot.ready.load(Ordering::Relaxed) {
            *lock(&slot.report) = Report {
                stats: index.stats(),
                freshness: Some(index.freshness()),
                coverage: index.coverage(),
            };
        } else {
            lock(&slot.report).freshness = Some(index.freshness());
        }
        slot.ready.store(true, Ordering::Relaxed);
        slot.building.store(false, Ordering::Relaxed);
        Ok(index)
    }

    /// Removes `slot` from the kept roots (after an interrupted first build).
    fn forget(&self, slot: &Slot) {
        lock(&self.roots).retain(|e| !std::ptr::eq(Arc::as_ptr(&e.slot), slot));
    }

    /// Saves the slot's index in the cache directory (or, without one, spills it to an unnamed
    /// temporary file: [`index::persist::spill_yielding`]) on a background thread, so the
    /// request that changed it does not wait for the write. Best effort: an unwritable cache
    /// directory only costs the next start a rebuild. One save per slot is queued at a time;
    /// it takes the index lock when no request wants it, and gives it back (abandoning the
    /// partial file, retrying later) as soon as one does, so a save never delays a request by
    /// more than the writing of one block.
    fn save_later(&self, slot: &Arc<Slot>) {
        let dir = self.options.cache_dir.clone();
        let spill_min = self.options.spill_min_bytes;
        if slot.saving.swap(true, Ordering::AcqRel) {
            return;
        }
        let queued = slot.clone();
        let handle = std::thread::Builder::new()
            .name("context-engine-save".into())
            .spawn(move || loop {
                while queued.waiting.load(Ordering::Acquire) > 0 {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                let mut guard = lock(&queued.index);
                let result = match (guard.as_mut(), &dir) {
                    // Still worth it: the heap parts may have been mapped since it was queued.
                    (Some(index), None) if index.spillable_bytes() < spill_min => Ok(()),
                    (Some(index), dir) => match dir {
                        Some(dir) => {
                            index::persist::save_yielding(dir, index, Some(&queued.waiting))
                        }
                        None => index::persist::spill_yielding(index, Some(&queued.waiting)),
                    }
                    .map(|saved| {
                        // The index reads what the file holds from its pages from now
                        // on, instead of the heap copies (the lock is still held: the
                        // file is this index as it is).
                        if let Some(parts) = saved.mapped {
                            index.serve_mapped(parts);
                            lock(&queued.report).stats = index.stats();
                        }
                    }),
                    (None, _) => Ok(()),
                };
                if matches!(&result, Err(e) if e.kind() == std::io::ErrorKind::WouldBlock) {
                    drop(guard);
                    std::thread::sleep(std::time::Duration::from_millis(100));
                    continue;
                }
                // Cleared under the lock: a change after this queues a new save.
                queued.saving.store(false, Ordering::Release);
                drop(guard);
                index::release_free_memory();
                break;
            });
        match handle {
            Ok(h) => {
                let mut saves = lock(&self.saves);
                saves.retain(|h| !h.is_finished());
                saves.push(h);
            }
            Err(_) => slot.saving.store(false, Ordering::Release),
        }
    }

    /// Whether a change to `index` calls for a background write: a save when there is a
    /// cache directory; without one, a spill to an unnamed temporary file when enough of the
    /// index is on the heap ([`RetrievalOptions::spill_min_bytes`]).
    fn wants_save(&self, index: &Index) -> bool {
        self.options.cache_dir.is_some() || index.spillable_bytes() >= self.options.spill_min_bytes
    }

    /// Drops least recently used roots (never `keep`) while all indexes together hold more
    /// than [`RetrievalOptions::max_index_bytes`].
    fn enforce_budget(&self, keep: &Arc<Slot>) {
        self.enforce_budget_keeping(std::slice::from_ref(keep));
    }

    /// [`Retrieval::enforce_budget`] that never drops any of `keep` (the roots of one call).
    fn enforce_budget_keeping(&self, keep: &[Arc<Slot>]) {
        let Some(budget) = self.options.max_index_bytes else {
            return;
        };
        let mut roots = lock(&self.roots);
        loop {
            let total: usize = roots.iter().map(|e| lock(&e.slot.report).stats.bytes).sum();
            if total <= budget {
                return;
            }
            let victim = roots
                .iter()
                .enumerate()
                .filter(|(_, e)| !keep.iter().any(|k| Arc::ptr_eq(&e.slot, k)))
                .min_by_key(|(_, e)| e.used)
                .map(|(i, _)| i);
            match victim {
                Some(i) => {
                    roots.remove(i);
                }
                None => return,
            }
        }
    }

    /// Indexes `root` (or brings its index up to date) without querying. When it returns,
    /// the root's status is `ready`, even if [`Retrieval::evict`] raced with it (the index
    /// just built is kept rather than dropped).
    pub fn prepare(&self, root: &str) -> Result<IndexStats> {
        self.prepare_cancellable(root, &Cancel::default())
    }

    /// [`Retrieval::prepare`] that stops when `cancel` is set or its deadline passes (an
    /// interrupted first build leaves the root `absent`).
    pub fn prepare_cancellable(&self, root: &str, cancel: &Cancel) -> Result<IndexStats> {
        let scope = Scope::new(root)?;
        let canonical = scope.root().to_path_buf();
        let slot = self.slot(&canonical);
        let mut guard = slot.lock_index();
        let stats = self.up_to_date(&slot, &mut guard, scope, cancel)?.stats();
        drop(guard);
        self.keep(&canonical, &slot);
        self.enforce_budget(&slot);
        Ok(stats)
    }

    /// Makes `slot` the root's entry again if an eviction (or a newer, not yet ready slot)
    /// replaced it while it was being built.
    fn keep(&self, root: &std::path::Path, slot: &Arc<Slot>) {
        let now = self.clock.fetch_add(1, Ordering::Relaxed);
        let mut roots = lock(&self.roots);
        match roots.iter_mut().find(|e| e.root == root) {
            Some(e) => {
                if !Arc::ptr_eq(&e.slot, slot) && !e.slot.ready.load(Ordering::Relaxed) {
                    e.slot = slot.clone();
                }
                e.used = now;
            }
            None => roots.push(Entry {
                root: root.to_path_buf(),
                slot: slot.clone(),
                used: now,
            }),
        }
    }

    /// The files of `root` (or of its folder `options.path`), most central first, with
    /// their roles and languages, and its folders with the role most of their files have: a
    /// map of the tree from its index, which is built or brought up to date first (as
    /// [`Retrieval::prepare`] does).
    ///
    /// Errors: `invalid_request` for a root that is not an absolute path to an existing
    /// directory, or a `path` that is not a relative folder path (absolute, or with `.` or
    /// `..` parts).
    pub fn file_ranks(
        &self,
        root: &str,
        options: &FileRankOptions,
        cancel: &Cancel,
    ) -> Result<FileRanks> {
        let under = folder_arg(options.path.as_deref())?;
        let limit = options.limit.min(MAX_RANKED_FILES);
        let scope = Scope::new(root)?;
        let canonical = scope.root().to_path_buf();
        let slot = self.slot(&canonical);
        let mut guard = slot.lock_index();
        let index = self.up_to_date(&slot, &mut guard, scope, cancel)?;
        let ranked = query::central::ranked(index, &under, cancel)?;
        let meta = |fid: u32| index.files[fid as usize].as_ref();
        let files = ranked
            .iter()
            .take(limit)
            .filter_map(|&(fid, centrality)| {
                meta(fid).map(|m| FileRank {
                    path: m.rel.clone(),
                    role: m.role,
                    centrality,
                    language: m.language,
                })
            })
            .collect();
        let folders = folder_ranks(ranked.iter().filter_map(|&(fid, _)| meta(fid)), &under);
        let out = FileRanks {
            files,
            total: ranked.len(),
            folders,
        };
        index.bound_residency();
        drop(guard);
        self.keep(&canonical, &slot);
        self.enforce_budget(&slot);
        Ok(out)
    }

    /// The state of `root`'s index, without waiting for a build in progress.
    pub fn status(&self, root: &str) -> Result<IndexStatus> {
        let scope = Scope::new(root)?;
        let roots = lock(&self.roots);
        let Some(e) = roots.iter().find(|e| e.root == scope.root()) else {
            return Ok(IndexStatus {
                state: IndexState::Absent,
                files_read: 0,
                files_total: 0,
                stats: IndexStats::default(),
                freshness: None,
                coverage: Coverage::default(),
            });
        };
        let slot = &e.slot;
        let report = lock(&slot.report).clone();
        Ok(IndexStatus {
            state: if slot.ready.load(Ordering::Relaxed) {
                IndexState::Ready
            } else {
                IndexState::Building
            },
            files_read: slot.files_read.load(Ordering::Relaxed),
            files_total: slot.files_total.load(Ordering::Relaxed),
            stats: report.stats,
            freshness: report.freshness,
            coverage: report.coverage,
        })
    }

    /// Drops the index of `root`, if kept. Returns whether there was one.
    pub fn evict(&self, root: &str) -> Result<bool> {
        let scope = Scope::new(root)?;
        let mut roots = lock(&self.roots);
        let before = roots.len();
        roots.retain(|e| e.root != scope.root());
        Ok(roots.len() != before)
    }
}

/// A folder argument of [`Retrieval::file_ranks`] as the index writes paths: `/`-separated,
/// relative, without a trailing `/` (empty for the root).
fn folder_arg(path: Option<&str>) -> Result<String> {
    let Some(path) = path else {
        return Ok(String::new());
    };
    let path = path.replace('\\', "/");
    let path = path.trim_end_matches('/');
    if path.is_empty() {
        return Ok(String::new());
    }
    let bad = path.starts_with('/')
        || path.contains(':')
        || path
            .split('/')
            .any(|p| p.is_empty() || p == "." || p == "..");
    if bad || path.len() > 4096 {
        return Err(Error::invalid_request(
            "path must be a folder relative to the root, without . or .. parts",
        ));
    }
    Ok(path.to_owned())
}

/// The folders one and two levels below `under` among `files`, each with its file count and
/// most common role, most files first (ties by path), at most [`MAX_RANKED_FOLDERS`].
fn folder_ranks<'a>(
    files: impl Iterator<Item = &'a index::FileMeta>,
    under: &str,
) -> Vec<FolderRank> {
    let mut counts = std::collections::BTreeMap::<String, [usize; Role::ALL.len()]>::new();
    for meta in files {
        let rest = if under.is_empty() {
            meta.rel.as_str()
        } else {
            meta.rel.get(under.len() + 1..).unwrap_or("")
        };
        let role = meta.role.position();
        let mut parts = rest.split('/');
        let mut end = under.len();
        // The file's own name is not a folder: only the parts before the last.
        let depth = rest.matches('/').count().min(2);
        for _ in 0..depth {
            let Some(part) = parts.next() else { break };
            end += part.len() + usize::from(end > 0 || !under.is_empty());
            let folder = &meta.rel[..end];
            counts.entry(folder.to_owned()).or_default()[role] += 1;
        }
    }
    let mut out: Vec<FolderRank> = counts
        .into_iter()
        .map(|(path, c)| {
            let (mut best, mut files) = (0usize, 0usize);
            for (i, &n) in c.iter().enumerate() {
                files += n;
                if n > c[best] {
                    best = i;
                }
            }
            FolderRank {
                path,
                files,
                role: Role::ALL[best],
            }
        })
        .collect();
    out.sort_by(|a, b| b.files.cmp(&a.files).then_with(|| a.path.cmp(&b.path)));
    out.truncate(MAX_RANKED_FOLDERS);
    out
}

/// FNV-1a, 64 bits: a stable hash for snippet ids (the same on every platform and release).
fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &b in *part {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        h ^= 0xff;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}
