//! Optional file watching: drop cache entries as soon as the OS reports a change.
//!
//! The cache is already never stale (every hit is revalidated), so watching only frees memory
//! early and saves the revalidation miss. Each watched root has one recursive OS watcher
//! (inotify, `FSEvents`, `ReadDirectoryChangesW` through the `notify` crate); at most
//! [`MAX_WATCHED_ROOTS`] roots are watched at once, and dropping the cache (or
//! [`Watches::unwatch`]) stops them. A queue overflow (the OS lost events) drops every entry
//! under that root.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, Weak};

use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};

use super::cache::Shared;
use crate::Error;

/// Most roots watched at once by one cache.
pub const MAX_WATCHED_ROOTS: usize = 16;

/// The watchers of one cache, by canonical root.
pub struct Watches {
    cache: Weak<Shared>,
    roots: Mutex<BTreeMap<PathBuf, RecommendedWatcher>>,
}

impl Watches {
    pub(crate) fn new(cache: Weak<Shared>) -> Watches {
        Watches {
            cache,
            roots: Mutex::new(BTreeMap::new()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, BTreeMap<PathBuf, RecommendedWatcher>> {
        self.roots
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Starts watching the canonical directory `root` (recursively). Returns false if it was
    /// already watched.
    ///
    /// Errors: [`ErrorKind::InvalidRequest`](crate::ErrorKind::InvalidRequest) when
    /// [`MAX_WATCHED_ROOTS`] roots are watched already;
    /// [`ErrorKind::Unavailable`](crate::ErrorKind::Unavailable) when the OS refuses (for
    /// example the inotify watch limit is reached).
    pub fn watch(&self, root: &Path) -> crate::Result<bool> {
        let mut roots = self.lock();
        if roots.contains_key(root) {
            return Ok(false);
        }
        if roots.len() >= MAX_WATCHED_ROOTS {
            return Err(Error::invalid_request(format!(
                "at most {MAX_WATCHED_ROOTS} directories can be watched at once"
            )));
        }
        let cache = self.cache.clone();
        let watched_root = root.to_path_buf();
        let mut watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
            let Some(shared) = cache.upgrade() else {
                return;
            };
            match res {
                Ok(event) if event.need_rescan() => {
                    shared.invalidate_tree(&watched_root);
                }
                Ok(event) => {
                    if matches!(event.kind, EventKind::Access(_)) {
                        return;
                    }
                    for path in &event.paths {
                        shared.invalidate_tree(path);
                    }
                }
                // An error from the backend may mean lost events: be safe.
                Err(_) => {
                    shared.invalidate_tree(&watched_root);
                }
            }
        })
        .map_err(|e| Error::unavailable("file watching is unavailable").with_source(e))?;
        watcher.watch(root, RecursiveMode::Recursive).map_err(|e| {
            Error::unavailable(
                "the directory could not be watched (the system's watch limit may be reached)",
            )
            .with_source(e)
        })?;
        roots.insert(root.to_path_buf(), watcher);
        Ok(true)
    }

    /// Stops watching `root`; false if it was not watched.
    pub fn unwatch(&self, root: &Path) -> bool {
        self.lock().remove(root).is_some()
    }

    /// Stops every watcher; returns how many there were.
    pub fn unwatch_all(&self) -> usize {
        let mut roots = self.lock();
        let n = roots.len();
        roots.clear();
        n
    }

    /// The watched roots, sorted.
    pub fn roots(&self) -> Vec<PathBuf> {
        self.lock().keys().cloned().collect()
    }
}
