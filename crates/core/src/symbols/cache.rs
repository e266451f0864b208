//! When the symbol index reads and writes its cache directory.
//!
//! Loading: the first call on an index loads every usable saved repository (`store.rs`) on the
//! index's threads; a repository indexed meanwhile is not overwritten by its saved copy.
//!
//! Saving: a call that changed a repository marks it due [`SAVE_DELAY`] later; a background
//! thread (one at a time, started when something is due, gone when nothing is) writes each
//! repository once it has been left alone that long. A repository sent in batches is therefore
//! written once, after its last batch, not once a batch; a repository whose files came back
//! exactly as saved (a restart with nothing changed) is not written at all: what was last
//! written is remembered and compared first. [`flush`] writes everything due at once. Writes
//! are serialized, and each writes the repository as it is when written, so the files follow
//! the order of the changes. A failed write is skipped (an unwritable directory only costs
//! the next start a parse).

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

use super::{lock, store, Inner, Repo};

/// How long a changed repository waits for further changes before it is written.
pub const SAVE_DELAY: Duration = Duration::from_secs(1);

/// The on-disk side of an index.
#[derive(Debug)]
pub(super) struct Cache {
    dir: PathBuf,
    /// Set once the saved repositories were loaded (by the first call).
    loaded: OnceLock<()>,
    pending: Mutex<Pending>,
    /// Signalled when something is due sooner, and when a write ends.
    wake: Condvar,
    /// Held while a file is written or removed.
    writing: Mutex<()>,
    /// Each repository as last written (or loaded).
    saved: Mutex<HashMap<Arc<str>, Arc<Repo>>>,
}

#[derive(Debug, Default)]
struct Pending {
    /// Repositories to write, and when.
    due: BTreeMap<Arc<str>, Instant>,
    /// A saver thread is running.
    saver: bool,
    /// Repositories taken from `due` and not yet written.
    in_flight: usize,
}

impl Cache {
    pub(super) fn new(dir: PathBuf) -> Cache {
        Cache {
            dir,
            loaded: OnceLock::new(),
            pending: Mutex::default(),
            wake: Condvar::new(),
            writing: Mutex::new(()),
            saved: Mutex::default(),
        }
    }
}

/// Loads the saved repositories into `inner`, once.
pub(super) fn ensure_loaded(inner: &Inner) {
    let Some(cache) = &inner.cache else { return };
    cache.loaded.get_or_init(|| {
        let loaded = store::load_all(&cache.dir, inner.threads);
        let mut repos = inner.write();
        let mut saved = lock(&cache.saved);
        for (name, repo) in loaded {
            let repo = Arc::new(repo);
            saved.insert(name.clone(), repo.clone());
            repos.entry(name).or_insert(repo);
        }
    });
}

/// Marks `name` changed: it is written [`SAVE_DELAY`] from now unless it changes again.
pub(super) fn changed(inner: &Arc<Inner>, name: &Arc<str>) {
    let Some(cache) = &inner.cache else { return };
    let mut pending = lock(&cache.pending);
    pending
        .due
        .insert(name.clone(), Instant::now() + SAVE_DELAY);
    if pending.saver {
        return;
    }
    let owned = inner.clone();
    let started = std::thread::Builder::new()
        .name("context-engine-symbols-save".into())
        .spawn(move || saver(&owned));
    if started.is_ok() {
        pending.saver = true;
    } else {
        // No thread to be had: write now.
        pending.due.remove(name);
        drop(pending);
        save_now(inner, name);
    }
}

/// The saver thread: writes each due repository when its time comes; ends when none is due.
fn saver(inner: &Arc<Inner>) {
    let Some(cache) = &inner.cache else { return };
    let mut pending = lock(&cache.pending);
    loop {
        let now = Instant::now();
        let ready: Vec<Arc<str>> = pending
            .due
            .iter()
            .filter(|(_, &at)| at <= now)
            .map(|(name, _)| name.clone())
            .collect();
        if ready.is_empty() {
            let Some(&next) = pending.due.values().min() else {
                pending.saver = false;
                return;
            };
            pending = cache
                .wake
                .wait_timeout(pending, next - now)
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .0;
            continue;
        }
        for name in &ready {
            pending.due.remove(name);
        }
        pending.in_flight += ready.len();
        drop(pending);
        for name in &ready {
            // A panic here (a bug) must not leave `in_flight` counting forever.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                save_now(inner, name);
            }));
        }
        pending = lock(&cache.pending);
        pending.in_flight -= ready.len();
        cache.wake.notify_all();
    }
}

/// Writes every due repository now and waits for the saver's writes under way.
pub(super) fn flush(inner: &Inner) {
    let Some(cache) = &inner.cache else { return };
    let due: Vec<Arc<str>> = std::mem::take(&mut lock(&cache.pending).due)
        .into_keys()
        .collect();
    for name in &due {
        save_now(inner, name);
    }
    let mut pending = lock(&cache.pending);
    while pending.in_flight > 0 {
        pending = cache
            .wake
            .wait(pending)
            .unwrap_or_else(std::sync::PoisonError::into_inner);
    }
}

/// Writes `name` as it is now (removes its file when it is no longer held), unless it is
/// exactly what was last written.
fn save_now(inner: &Inner, name: &Arc<str>) {
    let Some(cache) = &inner.cache else { return };
    let _writing = lock(&cache.writing);
    let current = inner.read().get(name).cloned();
    let mut saved = lock(&cache.saved);
    if let Some(repo) = current {
        let same = saved
            .get(name)
            .is_some_and(|s| Arc::ptr_eq(s, &repo) || s.same_as(&repo));
        if !same && store::save(&cache.dir, name, &repo).is_ok() {
            saved.insert(name.clone(), repo);
        }
    } else {
        store::remove(&cache.dir, name);
        saved.remove(name);
    }
    drop(saved);
    // The repository is settled: files it no longer holds need not be kept for reuse.
    lock(&inner.bases).remove(name);
}
