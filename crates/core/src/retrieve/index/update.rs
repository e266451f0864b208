//! Changing the index: prepared files merged in, removed files' chunks marked dead, and
//! posting lists compacted once dead chunks pile up.

use std::sync::atomic::Ordering;

use super::read::{prepare_batch, Batch, Prepared, BATCH_FILES};
use super::terms::Stage;
use super::walk::Listed;
use super::Posting;
use super::{file_lens, release_free_memory};
use super::{ChunkMeta, FileMeta, Index, Progress};

/// Batches merged between two returns of free memory to the system during a build. The
/// peak of a cold build is at its end, and about a third of it was memory already freed: the
/// batches in flight are allocated on the reading threads and freed on this one, and glibc
/// keeps what they leave in per-thread arenas (on the kernel, mallinfo counted ~90 MB free in
/// the arenas against ~95 MB in use there). Returning it every 32 batches (~38 times on the
/// kernel) first took the in-process peak from 328-337 to 298-309 MB. Measured again on the
/// kernel (three alternated runs each, in process): every 32 batches, a peak of 290-298 MB and
/// 2.45-2.54 s of system CPU; every 64, 290-302 MB and 2.06-2.40 s (once 3.04); every 128,
/// 297-303 MB; never, 311-317 MB and 2.12-2.14 s. Each return gives back pages the reading
/// threads fault in again, and halving the returns keeps the peak where it was.
const TRIM_EVERY: usize = 64;

impl Index {
    /// Releases spare capacity left by a build, and gives the allocator's freed pages back to
    /// the system (the tokenized form of every file was allocated and freed on the reading
    /// threads; glibc keeps such pages in per-thread arenas, which after a large build held
    /// about as much as the index itself).
    pub(super) fn shrink(&mut self) {
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
    pub(super) fn apply(&mut self, todo: Vec<Listed>, progress: Progress<'_>) {
        self.apply_batches(todo, progress);
        // The postings the batches deferred, before anything reads them.
        self.postings.settle();
    }

    fn apply_batches(&mut self, todo: Vec<Listed>, progress: Progress<'_>) {
        progress.found.fetch_add(todo.len(), Ordering::Relaxed);
        let threads = std::thread::available_parallelism()
            .map_or(2, std::num::NonZero::get)
            .clamp(1, 8);
        if todo.len() < 64 || threads == 1 {
            for (n, batch) in todo.chunks(BATCH_FILES).enumerate() {
                if progress.cancel.is_cancelled() {
                    // Files not applied are unknown to the index: walk fully next time.
                    self.walked_at = None;
                    return;
                }
                let prepared = prepare_batch(&self.scope, batch, progress.read);
                self.merge(batch, prepared);
                if (n + 1).is_multiple_of(TRIM_EVERY) {
                    release_free_memory();
                }
            }
            return;
        }
        // The pipeline of a streaming build, fed the whole list at once: workers read and
        // tokenize batches in any order while this thread merges them in listing order.
        let (tx, rx) = std::sync::mpsc::channel::<Vec<Listed>>();
        let mut files = todo.into_iter();
        loop {
            let batch: Vec<Listed> = files.by_ref().take(BATCH_FILES).collect();
            if batch.is_empty() || tx.send(batch).is_err() {
                break;
            }
        }
        drop(tx);
        if !self.apply_stream_batches(rx, progress, threads) {
            // Cancelled: the files not merged are unknown to the index.
            self.walked_at = None;
        }
    }

    /// Reads and indexes the files a walk sends while it goes on ([`walk::list_streaming`]):
    /// each message is one batch, [`BATCH_FILES`] files in walk order (the last may be
    /// shorter). As in [`Index::apply`], workers read batches in any order and this thread
    /// merges them in the order they were sent, so ids do not depend on timing; fed the
    /// batches of [`Index::apply`]'s list, the index is the same byte for byte, whatever the
    /// number of reading `threads` (at least one). Returns whether
    /// every batch sent was merged (not when cancelled).
    ///
    /// [`walk::list_streaming`]: super::walk::list_streaming
    pub(super) fn apply_stream(
        &mut self,
        batches: std::sync::mpsc::Receiver<Vec<Listed>>,
        progress: Progress<'_>,
        threads: usize,
    ) -> bool {
        let complete = self.apply_stream_batches(batches, progress, threads);
        self.postings.settle();
        complete
    }

    /// [`Index::apply_stream`] without settling the deferred postings.
    fn apply_stream_batches(
        &mut self,
        batches: std::sync::mpsc::Receiver<Vec<Listed>>,
        progress: Progress<'_>,
        threads: usize,
    ) -> bool {
        let scope = self.scope.clone();
        // The batches with their number in walk order, taken under one lock.
        let source = std::sync::Mutex::new((batches, 0usize));
        let (tx, rx) = std::sync::mpsc::sync_channel::<(usize, Vec<Listed>, Batch)>(threads * 2);
        let mut complete = true;
        std::thread::scope(|s| {
            for _ in 0..threads {
                let tx = tx.clone();
                let (scope, source) = (&scope, &source);
                s.spawn(move || loop {
                    if progress.cancel.is_cancelled() {
                        break;
                    }
                    let next = {
                        let mut source = source
                            .lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner);
                        let (batches, sent) = &mut *source;
                        batches.recv().ok().map(|listed| {
                            *sent += 1;
                            (*sent - 1, listed)
                        })
                    };
                    let Some((i, listed)) = next else { break };
                    let b = prepare_batch(scope, &listed, progress.read);
                    if tx.send((i, listed, b)).is_err() {
                        break;
                    }
                });
            }
            drop(tx);
            let mut pending: std::collections::BTreeMap<usize, (Vec<Listed>, Batch)> =
                std::collections::BTreeMap::new();
            let mut want = 0usize;
            for (i, listed, b) in rx {
                pending.insert(i, (listed, b));
                while let Some((listed, b)) = pending.remove(&want) {
                    self.merge(&listed, b);
                    want += 1;
                    if want.is_multiple_of(TRIM_EVERY) {
                        release_free_memory();
                    }
                }
            }
            // Batches read but not merged, or sent but not read: cancelled.
            let sent = source
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .1;
            complete = pending.is_empty() && want == sent && !progress.cancel.is_cancelled();
        });
        complete
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
            self.postings.defer(
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

    pub(super) fn remove(&mut self, fid: u32) {
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
    pub(super) fn maybe_compact(&mut self) {
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
}
