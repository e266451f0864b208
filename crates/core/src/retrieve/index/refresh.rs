//! Bringing the index up to date: what changed since the last update, from file-system
//! events, a stat of the known directories and files, or a full walk of the tree.

use rustc_hash::FxHashMap as HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::SystemTime;

use super::read::BATCH_FILES;
use super::walk::{self, Listed, Stamp, Targets, Verdict};
use super::watch;
use super::watch::{DirWatch, Drained};
use super::{FileMeta, Index, Progress, SkipReason};
use crate::cancel::Cancel;
use crate::stamp::racy;

/// Whether a file skipped for `reason` was listed, so counts toward the cap (a file too large
/// is not listed; one over the cap is the cap).
fn kept_for_content(reason: SkipReason) -> bool {
    matches!(
        reason,
        SkipReason::Binary | SkipReason::Unreadable | SkipReason::Generated
    )
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

impl Index {
    /// Brings the index up to date: new and changed files are (re)indexed, deleted ones
    /// dropped. Returns how many files changed (by stamp: a file re-read only because it was
    /// written in the same clock tick as its last read does not count). `progress` counts
    /// files read.
    ///
    /// Watching, only the paths the file-system events name are looked at. Polling, when no
    /// directory and no ignore file changed since the last full walk (and that walk is not
    /// racy), no file can have been added or deleted: only the known files are stat'ed.
    /// Otherwise, and whenever events were lost, the whole tree is walked again.
    #[cfg_attr(not(test), allow(dead_code))] // only the tests call it
    pub fn refresh(&mut self, progress: &AtomicUsize) -> usize {
        self.refresh_with(progress, &AtomicUsize::new(0))
    }

    /// [`Index::refresh`], counting in `found` the files it is going to read (so `progress`
    /// of `found` is the progress of a build).
    #[cfg_attr(not(test), allow(dead_code))] // only the tests call it
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
        self.full_refresh(p, true)
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
            watch::add_or_give_up(&mut watch, &d.path);
        }
        self.watch_failed = watch.is_none();
        self.watch = watch;
    }

    /// Walks the whole tree (watching each directory as it is reached) and reconciles.
    /// A first build (nothing indexed yet) reads files while the walk goes on
    /// ([`Index::first_build`]) when `streaming`; otherwise, and for every later walk, the
    /// walk lists the tree first.
    fn full_refresh(&mut self, progress: Progress<'_>, streaming: bool) -> usize {
        let started = SystemTime::now();
        self.watch = None;
        let mut watch = if self.watching {
            DirWatch::new(self.scope.root()).ok()
        } else {
            None
        };
        if streaming && self.by_path.is_empty() && self.skipped.is_empty() {
            let threads = std::thread::available_parallelism()
                .map_or(2, std::num::NonZero::get)
                .clamp(1, 8);
            return self.first_build(started, watch, progress, threads);
        }
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

    /// A full walk of an index that holds nothing yet: every file the walk lists is read,
    /// so reading starts as soon as the walk has listed a batch instead of after the whole
    /// tree ([`walk::list_streaming`] on its own thread, [`Index::apply_stream`] here). The
    /// files arrive in path order, as [`walk::list`] sorts them, so the index is the one a
    /// walk first and reading after would build.
    fn first_build(
        &mut self,
        started: SystemTime,
        mut watch: Option<DirWatch>,
        progress: Progress<'_>,
        threads: usize,
    ) -> usize {
        let root = self.scope.root().to_path_buf();
        let max_files = self.max_files;
        let (tx, rx) = std::sync::mpsc::channel::<Vec<Listed>>();
        let (listing, watch, listed, complete) = std::thread::scope(|s| {
            let walker = s.spawn(move || {
                let mut batch: Vec<Listed> = Vec::with_capacity(BATCH_FILES);
                let mut listed = 0usize;
                let listing = walk::list_streaming(&root, max_files, &mut watch, |l| {
                    progress.found.fetch_add(1, Ordering::Relaxed);
                    listed += 1;
                    batch.push(l);
                    if batch.len() == BATCH_FILES && tx.send(std::mem::take(&mut batch)).is_err() {
                        return false;
                    }
                    !progress.cancel.is_cancelled()
                });
                if !batch.is_empty() {
                    // An error means reading stopped (cancelled): nothing left to hand over.
                    let _ = tx.send(batch);
                }
                (listing, watch, listed)
            });
            let complete = self.apply_stream(rx, progress, threads);
            let (listing, watch, listed) = walker
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e));
            (listing, watch, listed, complete)
        });
        self.watch_failed = self.watching && watch.is_none();
        self.watch = watch;
        self.dirs = listing.dirs;
        // Files not read are unknown to the index: walk fully next time.
        self.walked_at = complete.then_some(started);
        self.full_walks += 1;
        self.over_limit = listing.over_limit;
        self.ignored = listing.ignored;
        self.warnings = listing.warnings;
        let changed = listed + listing.too_large.len();
        for l in listing.too_large {
            self.skipped.insert(l.rel, (l.stamp, SkipReason::TooLarge));
        }
        self.maybe_compact();
        self.shrink();
        changed
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs_scope::Scope;
    use std::fs;
    use std::path::Path;
    use std::time::{Duration, UNIX_EPOCH};

    /// A tree whose path order differs from a walk in name order (`a` and `a.c`, `a-b`,
    /// `a b`), with ignored, empty, binary, generated and too-large files, and enough files for
    /// several batches.
    fn tree(root: &Path) {
        let old = SystemTime::now() - Duration::from_secs(3600);
        let write = |rel: &str, text: &[u8]| {
            let p = root.join(rel);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(&p, text).unwrap();
            let f = fs::File::options().write(true).open(&p).unwrap();
            f.set_modified(old).unwrap();
        };
        for (k, dir) in ["a", "a-b", "a.d", "a b", "ab", "a0", "z/a", "z/a/a", "z"]
            .iter()
            .enumerate()
        {
            for i in 0..37 {
                let text = format!(
                    "fn handler_{k}_{i}(request: Request) -> Response {{\n    parse_{i}(request)\n}}\n\n\
                     struct State{k}x{i} {{\n    count_{k}: u32,\n}}\n"
                );
                write(&format!("{dir}/f{i}.rs"), text.as_bytes());
            }
            write(
                &format!("{dir}.c"),
                format!("int main_{k}(void) {{ return {k}; }}\n").as_bytes(),
            );
            write(
                &format!("{dir}-x.py"),
                format!("def run_{k}():\n    return {k}\n").as_bytes(),
            );
        }
        write("a/a", b"plain text in a file named like its directory\n");
        write("a/a.c", b"int inner(void) { return 1; }\n");
        write(".gitignore", b"ignored/\n*.tmp\n");
        write("ignored/x.rs", b"fn ignored() {}\n");
        write("z/scratch.tmp", b"fn scratch() {}\n");
        write("z/empty.rs", b"");
        write("z/bin.rs", b"\x00\x01\x02binary\x00");
        write("z/gen.rs", b"// @generated\nfn generated() {}\n");
        write("z/large.txt", &vec![b'x'; 1024 * 1024 + 1]);
    }

    /// The index's cache-file bytes, with the times of reading and walking (which differ from
    /// one build to the next) left out.
    fn bytes(index: &mut Index) -> Vec<u8> {
        for f in index.files.iter_mut().flatten() {
            f.read_at = UNIX_EPOCH;
        }
        index.walked_at = index.walked_at.map(|_| UNIX_EPOCH);
        super::super::persist::encode(index, "test")
    }

    fn progress_of<'a>(
        read: &'a AtomicUsize,
        found: &'a AtomicUsize,
        cancel: &'a Cancel,
    ) -> Progress<'a> {
        Progress {
            read,
            found,
            cancel,
        }
    }

    /// Built the way every full walk but a first one goes: the whole tree listed, then read.
    fn walk_first(root: &Path, max_files: usize) -> (Index, usize, usize) {
        let mut index = Index::new(Scope::new(root).unwrap(), max_files);
        index.set_watching(false);
        let (read, found, cancel) = (AtomicUsize::new(0), AtomicUsize::new(0), Cancel::default());
        let changed = index.full_refresh(progress_of(&read, &found, &cancel), false);
        (index, changed, found.into_inner())
    }

    /// Built while the walk goes on, with `threads` reading threads.
    fn streamed(root: &Path, max_files: usize, threads: usize) -> (Index, usize, usize) {
        let mut index = Index::new(Scope::new(root).unwrap(), max_files);
        index.set_watching(false);
        let (read, found, cancel) = (AtomicUsize::new(0), AtomicUsize::new(0), Cancel::default());
        let changed = index.first_build(
            SystemTime::now(),
            None,
            progress_of(&read, &found, &cancel),
            threads,
        );
        (index, changed, found.into_inner())
    }

    #[test]
    fn the_walk_in_path_order_lists_what_the_sorted_walk_lists() {
        let dir = tempfile::tempdir().unwrap();
        tree(dir.path());
        let root = fs::canonicalize(dir.path()).unwrap();
        for max_files in [usize::MAX, 100, 1] {
            let want = walk::list(&root, max_files, &mut None);
            let mut got = Vec::new();
            let listing = walk::list_streaming(&root, max_files, &mut None, |l| {
                got.push(l);
                true
            });
            assert_eq!(got, want.files);
            assert!(want.files.windows(2).all(|w| w[0].rel < w[1].rel));
            if max_files == usize::MAX {
                // The names whose order differs from a walk in plain name order are there.
                assert!(got.iter().any(|l| l.rel == "a.c") && got.iter().any(|l| l.rel == "a/a"));
            }
            assert_eq!(listing.too_large, want.too_large);
            assert_eq!(listing.dirs, want.dirs);
            assert_eq!(listing.over_limit, want.over_limit);
            assert_eq!(listing.ignored, want.ignored);
            assert_eq!(listing.warnings, want.warnings);
        }
    }

    #[test]
    fn a_first_build_while_walking_is_the_walk_first_build_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        tree(dir.path());
        let root = fs::canonicalize(dir.path()).unwrap();
        for max_files in [100_000, 150] {
            let (mut reference, changed, listed) = walk_first(&root, max_files);
            let want = bytes(&mut reference);
            assert!(reference.files.len() > 2 * super::super::read::BATCH_FILES);
            for threads in [1, 2, 3, 8] {
                for _ in 0..2 {
                    let (mut index, got_changed, found) = streamed(&root, max_files, threads);
                    assert_eq!(got_changed, changed);
                    assert_eq!(found, listed);
                    assert_eq!(index.coverage(), reference.coverage());
                    assert!(
                        bytes(&mut index) == want,
                        "{threads} threads, cap {max_files}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_first_build_while_walking_stays_fresh() {
        let dir = tempfile::tempdir().unwrap();
        tree(dir.path());
        let root = fs::canonicalize(dir.path()).unwrap();
        let (mut index, ..) = streamed(&root, 100_000, 2);
        assert!(index.walked_at.is_some());
        let live = index.live_files;
        fs::write(root.join("a/f0.rs"), "fn changed_now() {}\n").unwrap();
        fs::write(root.join("new.rs"), "fn added_now() {}\n").unwrap();
        fs::remove_file(root.join("a.c")).unwrap();
        let read = AtomicUsize::new(0);
        assert_eq!(index.refresh(&read), 3);
        assert_eq!(index.live_files, live);
        assert!(index.by_path.contains_key("new.rs") && !index.by_path.contains_key("a.c"));
    }

    #[test]
    fn a_cancelled_first_build_walks_fully_next_time() {
        let dir = tempfile::tempdir().unwrap();
        tree(dir.path());
        let root = fs::canonicalize(dir.path()).unwrap();
        let mut index = Index::new(Scope::new(&root).unwrap(), 100_000);
        index.set_watching(false);
        let (read, found, cancel) = (AtomicUsize::new(0), AtomicUsize::new(0), Cancel::default());
        cancel.cancel();
        index.first_build(
            SystemTime::now(),
            None,
            progress_of(&read, &found, &cancel),
            2,
        );
        assert!(index.walked_at.is_none());
        assert!(index.live_files < 10);
        index.refresh(&AtomicUsize::new(0));
        assert!(index.walked_at.is_some());
        let (reference, ..) = walk_first(&root, 100_000);
        let paths = |i: &Index| {
            let mut p: Vec<String> = i.by_path.keys().cloned().collect();
            p.sort();
            p
        };
        assert_eq!(paths(&index), paths(&reference));
        assert_eq!(index.coverage(), reference.coverage());
    }
}
