//! The file cache behind expansion: bounded, expiring, and never stale.
//!
//! Entries are keyed by the canonical absolute path and hold the file's normalized text with
//! its line offsets. Bounds: at most [`CacheConfig::max_files`] files (least recently used
//! evicted first), at most [`CacheConfig::max_bytes`] of text, and only files of at most
//! [`CacheConfig::max_file_lines`] lines (larger files are read every time). An entry expires
//! [`CacheConfig::ttl`] after it was read.
//!
//! Freshness: every hit first compares the file's current metadata (size, modification time
//! and, on Unix, inode, device and change time) with the one recorded when it was read; any
//! difference is a miss. A file modified so soon after it was read that the change might
//! share its modification-time tick (within [`RACY_WINDOW`], the "racy git" problem) is not
//! cached at all, and neither is a file whose metadata changed while it was being read. So an
//! edit that the file system reports is never hidden by the cache.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant, SystemTime};

use lru::LruCache;

use crate::fs_scope::{ReadError, ReadLimits, Resolved, Scope};
use crate::syntax::{self, Definition, Lang};

use crate::secrets::SecretKind;
use crate::stamp::Stamp;
/// A file modified less than this long before it was read is not cached: a later edit could
/// keep the same modification time. The one window shared with retrieval's index.
pub use crate::stamp::RACY_WINDOW;

/// Limits of a [`FileCache`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheConfig {
    /// Most files kept; 0 disables caching. Default 100 (the spec's limit).
    pub max_files: usize,
    /// Files with more lines are not cached. Default 10,000 (the spec's limit).
    pub max_file_lines: usize,
    /// Most bytes of text kept in all. Default 64 MiB.
    pub max_bytes: usize,
    /// How long an entry is served after it was read. Default 5 minutes (the spec's).
    pub ttl: Duration,
}

impl Default for CacheConfig {
    fn default() -> Self {
        CacheConfig {
            max_files: 100,
            max_file_lines: 10_000,
            max_bytes: 64 * 1024 * 1024,
            ttl: Duration::from_secs(5 * 60),
        }
    }
}

/// A file's normalized text, split into lines (`'\n'`-separated, a final newline does not
/// start another line).
#[derive(Debug)]
pub struct FileLines {
    text: String,
    /// Byte offset of the start of each line.
    starts: Vec<usize>,
    definitions: OnceLock<(Lang, Vec<Definition>)>,
    redacted: OnceLock<Option<Box<Redaction>>>,
}

/// A file's text with its secrets redacted ([`crate::secrets::redact`]), which keeps every
/// line where it was.
#[derive(Debug)]
pub struct Redaction {
    /// The redacted lines.
    pub lines: FileLines,
    /// The lines each secret was on (1-based, inclusive; a PEM block spans several) and its
    /// kind.
    pub spans: Vec<(usize, usize, SecretKind)>,
}

impl Redaction {
    /// The secrets that touch lines `start..end` (0-based, end exclusive): kind and the
    /// first 1-based file line of the range they are on.
    pub fn report_in(&self, start: usize, end: usize) -> Vec<crate::secrets::Redaction> {
        self.spans
            .iter()
            .filter(|(a, b, _)| *a <= end && *b > start)
            .map(|&(a, _, kind)| crate::secrets::Redaction {
                kind,
                line: a.max(start + 1),
            })
            .collect()
    }
}

impl FileLines {
    /// Splits `text` into lines.
    pub fn new(text: String) -> FileLines {
        let mut starts = Vec::new();
        if !text.is_empty() {
            starts.push(0);
            starts.extend(
                text.match_indices('\n')
                    .map(|(i, _)| i + 1)
                    .filter(|&i| i < text.len()),
            );
        }
        FileLines {
            text,
            starts,
            definitions: OnceLock::new(),
            redacted: OnceLock::new(),
        }
    }

    /// Number of lines.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// True for an empty file.
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// The whole text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Lines `start..end` (0-based, end exclusive, clamped) joined with `'\n'`, without a
    /// final newline.
    pub fn slice(&self, start: usize, end: usize) -> &str {
        let end = end.min(self.len());
        if start >= end {
            return "";
        }
        let from = self.starts[start];
        let to = if end < self.len() {
            self.starts[end] - 1
        } else if self.text.ends_with('\n') {
            self.text.len() - 1
        } else {
            self.text.len()
        };
        &self.text[from..to]
    }

    /// The definitions of the text in `lang`, parsed once per cached file (for the first
    /// language asked; others are parsed on every call).
    pub fn definitions(&self, lang: Lang) -> std::borrow::Cow<'_, [Definition]> {
        let (cached_lang, defs) = self
            .definitions
            .get_or_init(|| (lang, syntax::definitions(&self.text, lang)));
        if *cached_lang == lang {
            std::borrow::Cow::Borrowed(defs)
        } else {
            std::borrow::Cow::Owned(syntax::definitions(&self.text, lang))
        }
    }

    /// The text with its secrets redacted, computed once per cached file version; `None` when
    /// the text has no secrets.
    pub fn redacted(&self) -> Option<&Redaction> {
        self.redacted
            .get_or_init(|| {
                let r = crate::secrets::redact(&self.text);
                if r.findings.is_empty() {
                    return None;
                }
                let spans = r
                    .findings
                    .iter()
                    .map(|f| {
                        let extra = self.text[f.range()].matches('\n').count();
                        (f.line, f.line + extra, f.kind)
                    })
                    .collect();
                Some(Box::new(Redaction {
                    lines: FileLines::new(r.text.into_owned()),
                    spans,
                }))
            })
            .as_deref()
    }

    fn bytes(&self) -> usize {
        self.text.len() + self.starts.len() * std::mem::size_of::<usize>()
    }
}

struct Entry {
    lines: Arc<FileLines>,
    stamp: Stamp,
    loaded: Instant,
}

/// Counters and limits of a [`FileCache`], as reported by [`FileCache::stats`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Files cached now.
    pub entries: usize,
    /// Bytes of text cached now (with line offsets).
    pub bytes: usize,
    /// Reads served from the cache (after revalidation).
    pub hits: u64,
    /// Reads that went to the file system.
    pub misses: u64,
    /// Entries dropped to stay within `max_files` / `max_bytes`.
    pub evictions: u64,
    /// Entries dropped because they were older than the TTL.
    pub expirations: u64,
    /// Entries dropped because the file had changed on disk.
    pub stale: u64,
    /// Reads of files not cached (too many lines, too large for `max_bytes`, changed during
    /// the read or too recently modified).
    pub uncacheable: u64,
    /// Entries dropped by `invalidate_*`, `clear` or the file watcher.
    pub invalidations: u64,
    /// The limits in force.
    pub config: CacheConfig,
}

#[derive(Default)]
struct Counters {
    hits: AtomicU64,
    misses: AtomicU64,
    evictions: AtomicU64,
    expirations: AtomicU64,
    stale: AtomicU64,
    uncacheable: AtomicU64,
    invalidations: AtomicU64,
}

struct Inner {
    lru: LruCache<PathBuf, Entry>,
    bytes: usize,
}

/// The state shared with the file watcher.
pub(crate) struct Shared {
    config: CacheConfig,
    inner: Mutex<Inner>,
    counters: Counters,
}

/// A thread-safe, bounded, self-revalidating cache of file lines.
pub struct FileCache {
    pub(crate) shared: Arc<Shared>,
    watches: super::watch::Watches,
}

impl std::fmt::Debug for FileCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileCache")
            .field("config", &self.shared.config)
            .field("entries", &self.shared.lock().lru.len())
            .finish_non_exhaustive()
    }
}

impl Default for FileCache {
    fn default() -> Self {
        FileCache::new(CacheConfig::default())
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves consistent data (every update is one step).
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn remove_where(&self, mut drop_it: impl FnMut(&Path) -> bool) -> usize {
        let mut inner = self.lock();
        let doomed: Vec<PathBuf> = inner
            .lru
            .iter()
            .filter(|(k, _)| drop_it(k))
            .map(|(k, _)| k.clone())
            .collect();
        for key in &doomed {
            if let Some(e) = inner.lru.pop(key) {
                inner.bytes -= e.lines.bytes();
            }
        }
        self.counters
            .invalidations
            .fetch_add(doomed.len() as u64, Ordering::Relaxed);
        doomed.len()
    }

    /// Drops the entry for `path` and every entry under it (by whole path components).
    pub(crate) fn invalidate_tree(&self, path: &Path) -> usize {
        self.remove_where(|k| k.starts_with(path))
    }
}

impl FileCache {
    /// An empty cache with the given limits.
    pub fn new(config: CacheConfig) -> FileCache {
        let shared = Arc::new(Shared {
            config,
            inner: Mutex::new(Inner {
                lru: LruCache::unbounded(),
                bytes: 0,
            }),
            counters: Counters::default(),
        });
        FileCache {
            watches: super::watch::Watches::new(Arc::downgrade(&shared)),
            shared,
        }
    }

    /// The file watchers that drop entries of changed files early.
    pub fn watches(&self) -> &super::watch::Watches {
        &self.watches
    }

    /// The limits in force.
    pub fn config(&self) -> &CacheConfig {
        &self.shared.config
    }

    /// The lines of the resolved file, from the cache when the entry is fresh and the file is
    /// unchanged, otherwise read through `scope` (and cached when it qualifies).
    pub fn lines(
        &self,
        scope: &Scope,
        resolved: &Resolved,
        limits: &ReadLimits,
    ) -> Result<Arc<FileLines>, ReadError> {
        let shared = &*self.shared;
        let c = &shared.counters;
        let key = &resolved.abs;
        let cached = {
            let mut inner = shared.lock();
            let found = inner
                .lru
                .get(key)
                .map(|e| (e.lines.clone(), e.stamp, e.loaded));
            if let Some((_, _, loaded)) = &found {
                if loaded.elapsed() >= shared.config.ttl {
                    if let Some(e) = inner.lru.pop(key) {
                        inner.bytes -= e.lines.bytes();
                    }
                    c.expirations.fetch_add(1, Ordering::Relaxed);
                }
            }
            found.filter(|(_, _, loaded)| loaded.elapsed() < shared.config.ttl)
        };
        if let Some((lines, stamp, _)) = cached {
            match Stamp::of_path(key) {
                Ok(now) if now == stamp => {
                    c.hits.fetch_add(1, Ordering::Relaxed);
                    return Ok(lines);
                }
                _ => {
                    let mut inner = shared.lock();
                    let same = inner
                        .lru
                        .peek(key)
                        .is_some_and(|e| Arc::ptr_eq(&e.lines, &lines));
                    if same {
                        if let Some(e) = inner.lru.pop(key) {
                            inner.bytes -= e.lines.bytes();
                        }
                        c.stale.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
        }
        c.misses.fetch_add(1, Ordering::Relaxed);
        let read_start = SystemTime::now();
        let before = Stamp::of_path(key).map_err(|e| ReadError::from_io(&resolved.rel, e))?;
        let file = scope.read_resolved(resolved, limits)?;
        let lines = Arc::new(FileLines::new(file.text));
        let after = Stamp::of_path(key).ok();
        let config = &shared.config;
        let cacheable = config.max_files > 0
            && lines.len() <= config.max_file_lines
            && lines.bytes() <= config.max_bytes
            && after == Some(before)
            && !before.is_racy(read_start);
        if !cacheable {
            c.uncacheable.fetch_add(1, Ordering::Relaxed);
            return Ok(lines);
        }
        let mut inner = shared.lock();
        if let Some(old) = inner.lru.put(
            key.clone(),
            Entry {
                lines: lines.clone(),
                stamp: before,
                loaded: Instant::now(),
            },
        ) {
            inner.bytes -= old.lines.bytes();
        }
        inner.bytes += lines.bytes();
        while inner.lru.len() > config.max_files || inner.bytes > config.max_bytes {
            match inner.lru.pop_lru() {
                Some((_, e)) => {
                    inner.bytes -= e.lines.bytes();
                    c.evictions.fetch_add(1, Ordering::Relaxed);
                }
                None => break,
            }
        }
        Ok(lines)
    }

    /// True if `abs` (a canonical path) is cached now, without touching recency or counters.
    pub fn contains(&self, abs: &Path) -> bool {
        self.shared.lock().lru.contains(abs)
    }

    /// Drops every entry; returns how many there were.
    pub fn clear(&self) -> usize {
        self.shared.remove_where(|_| true)
    }

    /// Drops the entry for exactly `path` (an absolute path; its canonical form is tried too).
    /// Returns how many entries were dropped (0 or 1, 2 if both forms were cached).
    pub fn invalidate_file(&self, path: &Path) -> usize {
        let forms = path_forms(path);
        self.shared.remove_where(|k| forms.iter().any(|f| f == k))
    }

    /// Drops the entries of every file under the directory `path` (absolute; its canonical
    /// form is tried too), compared by whole path components: `/a/b` covers `/a/b/c.ts` but
    /// not `/a/bc/d.ts`. Returns how many were dropped.
    pub fn invalidate_directory(&self, path: &Path) -> usize {
        let forms = path_forms(path);
        self.shared
            .remove_where(|k| forms.iter().any(|f| k.starts_with(f)))
    }

    /// Current counters and limits.
    pub fn stats(&self) -> CacheStats {
        let (entries, bytes) = {
            let inner = self.shared.lock();
            (inner.lru.len(), inner.bytes)
        };
        let c = &self.shared.counters;
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        CacheStats {
            entries,
            bytes,
            hits: get(&c.hits),
            misses: get(&c.misses),
            evictions: get(&c.evictions),
            expirations: get(&c.expirations),
            stale: get(&c.stale),
            uncacheable: get(&c.uncacheable),
            invalidations: get(&c.invalidations),
            config: self.shared.config.clone(),
        }
    }
}

/// `path` as given (with `.` and `..` removed lexically) and canonical (the longest existing
/// ancestor canonicalized), deduplicated.
fn path_forms(path: &Path) -> Vec<PathBuf> {
    use std::path::Component;
    let mut lexical = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                lexical.pop();
            }
            other => lexical.push(other.as_os_str()),
        }
    }
    let mut forms = vec![lexical.clone()];
    // Canonicalize the longest existing ancestor, then re-append the rest (the file itself
    // may be gone already).
    let mut existing = lexical.as_path();
    let mut rest: Vec<&std::ffi::OsStr> = Vec::new();
    loop {
        if let Ok(canonical) = std::fs::canonicalize(existing) {
            let mut full = canonical;
            for part in rest.iter().rev() {
                full.push(part);
            }
            if full != lexical {
                forms.push(full);
            }
            break;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name);
                existing = parent;
            }
            _ => break,
        }
    }
    forms
}
