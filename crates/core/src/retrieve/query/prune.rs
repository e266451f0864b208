//! Dynamic pruning of ranking's candidate stage: the files that can still reach the top are
//! scored, the others are passed over by a bound, and the result is the exhaustive one.
//!
//! A file's score is not one sum of per-term scores (file BM25, plus a fraction of its best
//! chunk's BM25F, definitions, the path field and mentions, times role and side factors, and
//! the centrality prior near the top: see [`super::rank`]), so the bound is per file: what one
//! term can add to a file of a stretch of its list is at most its file BM25 part, plus
//! [`W_BEST_CHUNK`] × its best chunk part and definition part, plus its definition
//! ([`TermSummary`] keeps the most of that sum over each block of its list); the path field
//! and mentions are computed for every file first (they are cheap) and are one more list; the
//! factors are bounded by the largest any role can have. The best chunk of several terms is
//! at most the sum of their best chunks, and a file's best definition at most the sum of its
//! definitions, so the sum of the terms' bounds bounds the file.
//!
//! The walk is `MaxScore` over files, with block maxima: lists sorted by their largest bound,
//! the smallest ones whose bounds together cannot reach the threshold only looked up for
//! files the others bring (they never bring one); a file, and every file after it up to the
//! nearest block end, is passed over when its blocks' maxima together stay below the
//! threshold (the lists jump over the blocks between, undecoded); else the lists that bring
//! files read their postings in it and count what they add to it exactly, the others their
//! block maxima, and the file is passed over if that stays below; else it is scored exactly,
//! in the exhaustive ranking's own order of additions (the scores are equal to the bit, so
//! ties and the order by path are too). The threshold
//! is the lowest score the exhaustive ranking could still keep: the least of the
//! `wanted`-th best score so far and, when the centrality prior applies, the `shown`-th best
//! divided by the prior's largest factor (a file below it can be neither lifted into the
//! best `shown` nor kept).
//!
//! Document frequencies count live postings only (a changed or deleted file's chunks stay in
//! the lists until a compaction), so each list's summary is made from its live postings and
//! holds for one generation of the index ([`Summaries`]). A list is summarized the first time a
//! pruned ranking meets it in a generation, so building or loading an index pays nothing for
//! them.

use std::collections::BinaryHeap;
use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use super::prompt::Query;
use super::rank::{
    chunk_bm25, file_bm25, file_score, idf, posting_tf, Factors, Mentions, Naming, Scores, Term,
    B_CHUNK, B_FILE, K1_CHUNK, K1_FILE, SPLIT_CHUNKS_PER_FILE, W_BEST_CHUNK, W_CENTRAL, W_DEFINES,
    W_DEFINES_CHUNK, W_PATH,
};
use crate::retrieve::index::terms::{IterState, PostingIter};
use crate::retrieve::index::{Index, Posting};

/// Live postings a block holds at least (it ends where a file's postings end, so a file's
/// postings are never split between blocks).
const BLOCK: u32 = 64;

/// A ranking is pruned when its terms' lists hold at least this many postings together;
/// below, scoring them all costs less than a millisecond.
const PRUNE_MIN_POSTINGS: usize = 16_384;

/// A ranking is pruned only when its longest list holds at least this many times the
/// postings of the others together ([`worth_it`]).
const ONE_LIST_SHARE: usize = 4;

/// Most bytes of summaries an index keeps; past it, a summary is made for the query and
/// dropped.
const SUMMARY_BYTES: usize = 48 << 20;

/// Room for rounding: a file is passed over only when its bound times this is below the
/// threshold (the bound and the score add the same parts in other orders).
const SAFETY: f32 = 1.0 + 1e-3;

/// A stretch of a term's list: the live postings of whole files, at least [`BLOCK`].
#[derive(Debug, Clone, Copy)]
struct Block {
    /// The first and last chunk of a live posting in the block.
    first: u32,
    last: u32,
    /// Where the block's first live posting is read from.
    state: IterState,
    /// The most the term adds to the score of a file of the block, per unit of its weight.
    max: f32,
}

/// What pruning knows of one term's list in one generation of the index: its live document
/// frequencies and its blocks.
#[derive(Debug)]
pub(in crate::retrieve) struct TermSummary {
    /// [`Postings::shape`](crate::retrieve::index::terms::Postings::shape) of the list when
    /// summarized: the blocks' places are valid while it is the same.
    shape: (usize, usize),
    /// Live postings, live files with one, live files with one that defines the term.
    df_chunks: u32,
    df_files: u32,
    df_defs: u32,
    blocks: Vec<Block>,
    /// The largest block maximum.
    max: f32,
}

impl TermSummary {
    fn bytes(&self) -> usize {
        std::mem::size_of::<TermSummary>() + 32 + self.blocks.len() * std::mem::size_of::<Block>()
    }
}

/// The summaries of an index's lists, for the generation they were made in (any file added
/// or removed changes the document frequencies, so they are all dropped then).
#[derive(Debug, Default)]
pub(in crate::retrieve) struct Summaries {
    generation: u64,
    map: HashMap<u32, Arc<TermSummary>>,
    bytes: usize,
}

impl Summaries {
    /// The summary of `term` if one is kept for this generation and list.
    fn get(&mut self, index: &Index, term: u32) -> Option<Arc<TermSummary>> {
        if self.generation != index.generation {
            *self = Summaries {
                generation: index.generation,
                ..Summaries::default()
            };
        }
        let s = self.map.get(&term)?;
        (s.shape == index.postings.shape(term)).then(|| s.clone())
    }

    fn put(&mut self, term: u32, s: Arc<TermSummary>) {
        if self.bytes + s.bytes() <= SUMMARY_BYTES {
            self.bytes += s.bytes();
            if let Some(old) = self.map.insert(term, s) {
                self.bytes -= old.bytes();
            }
        }
    }

    /// Approximate heap bytes.
    pub(in crate::retrieve) fn heap_bytes(&self) -> usize {
        self.bytes + self.map.len() * 16
    }
}

/// The collection-wide numbers BM25 normalizes by, as [`Scores::new`] derives them.
struct Norms {
    n_chunks: f32,
    n_files: f32,
    avg_chunk: f32,
    avg_file: f32,
}

impl Norms {
    fn of(index: &Index) -> Norms {
        let n_chunks = index.live_chunks.max(1) as f32;
        let n_files = index.live_files.max(1) as f32;
        Norms {
            n_chunks,
            n_files,
            avg_chunk: (index.live_chunk_tokens as f32 / n_chunks).max(1.0),
            avg_file: (index.live_file_tokens as f32 / n_files).max(1.0),
        }
    }
}

/// One live file's postings of a term, while summarizing.
struct FileRun {
    file: u32,
    first: u32,
    last: u32,
    state: IterState,
    postings: u32,
    /// Field-weighted tf summed over the file's chunks.
    tf: f32,
    /// The largest saturated tf of one chunk (BM25F without idf).
    best: f32,
    defines: bool,
}

/// Reads `term`'s list once: its live document frequencies and its blocks' maxima.
fn summarize(index: &Index, term: u32, norms: &Norms) -> TermSummary {
    let shape = index.postings.shape(term);
    let mut it = index.postings.list(term);
    let mut runs: Vec<FileRun> = Vec::new();
    let mut df_chunks = 0u32;
    loop {
        let state = it.state();
        let Some(p) = it.next() else { break };
        let c = &index.chunks[p.chunk as usize];
        if !c.alive {
            continue;
        }
        df_chunks += 1;
        let tf = posting_tf(p);
        let norm = K1_CHUNK * (1.0 - B_CHUNK + B_CHUNK * c.len as f32 / norms.avg_chunk);
        let best = tf * (K1_CHUNK + 1.0) / (tf + norm);
        match runs.last_mut() {
            Some(r) if r.file == c.file => {
                r.last = p.chunk;
                r.postings += 1;
                r.tf += tf;
                r.best = r.best.max(best);
                r.defines |= p.sym > 0;
            }
            _ => runs.push(FileRun {
                file: c.file,
                first: p.chunk,
                last: p.chunk,
                state,
                postings: 1,
                tf,
                best,
                defines: p.sym > 0,
            }),
        }
    }
    let df_files = runs.len() as u32;
    let df_defs = runs.iter().filter(|r| r.defines).count() as u32;
    let idf_c = idf(norms.n_chunks, df_chunks as f32);
    let idf_f = idf(norms.n_files, df_files as f32);
    let idf_d = idf(norms.n_files, df_defs as f32);
    let bound = |r: &FileRun| {
        let len = index.file_lens[r.file as usize] as f32;
        let norm = K1_FILE * (1.0 - B_FILE + B_FILE * len / norms.avg_file);
        let file = r.tf * (K1_FILE + 1.0) / (r.tf + norm);
        let d = if r.defines { idf_d } else { 0.0 };
        idf_f * file + W_BEST_CHUNK * (idf_c * r.best + W_DEFINES_CHUNK * d) + W_DEFINES * d
    };
    let mut blocks: Vec<Block> = Vec::with_capacity(df_chunks as usize / BLOCK as usize + 1);
    let mut held = 0u32;
    for r in &runs {
        let u = bound(r);
        match blocks.last_mut() {
            Some(b) if held < BLOCK => {
                b.last = r.last;
                b.max = b.max.max(u);
                held += r.postings;
            }
            _ => {
                blocks.push(Block {
                    first: r.first,
                    last: r.last,
                    state: r.state,
                    max: u,
                });
                held = r.postings;
            }
        }
    }
    let max = blocks.iter().map(|b| b.max).fold(0.0, f32::max);
    TermSummary {
        shape,
        df_chunks,
        df_files,
        df_defs,
        blocks,
        max,
    }
}

/// The summary of `term`'s list in the index's current generation: kept, or made now (and
/// kept if there is room).
fn summary(index: &Index, term: u32, norms: &Norms) -> Arc<TermSummary> {
    let lock = || {
        index
            .summaries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    };
    if let Some(s) = lock().get(index, term) {
        return s;
    }
    let s = Arc::new(summarize(index, term, norms));
    let mut kept = lock();
    if kept.generation == index.generation {
        kept.put(term, s.clone());
    }
    s
}

/// Whether pruning applies to `terms` and pays: weights it can bound (not negative), lists
/// long enough, and a tree of files with few chunks each (fewer than
/// [`SPLIT_CHUNKS_PER_FILE`] on average, where the exhaustive ranking also stays on one
/// thread). There the exhaustive ranking's pass over the files scores nearly every file a
/// common word touches, and the walk skips most of them: on a tree of 200,000 one-chunk files
/// sharing one vocabulary, 3.6-4.2 ms of CPU a call against 4.5-4.8. On a tree of larger files
/// it did not pay: on the kernel (13 chunks a file) 11.1-12.1 ms pruned on every prompt against
/// 12.0-12.8 exhaustive, within the noise, with the calling thread's 95th percentile at 17.2
/// ms against 13.1-14.7 (the walk is one thread's; the exhaustive ranking splits long lists
/// between two), and pruned only where it would not split, no faster through Node either.
///
/// And only when one list holds most of the postings: the walk then keeps the best files of
/// that list and jumps over the rest of it by its blocks. Where two or more long lists are
/// asked about (the common words of a short prompt on that tree, each in a third of the files),
/// a file needs several of them to reach the threshold, no list can be left to look-ups, and
/// the walk's bookkeeping costs more than the exhaustive pass's plain additions: in-process
/// 5.4-17 ms of candidate stage a call against 4.6-11 exhaustive on those prompts, against
/// 2.7-3.1 ms pruned and 4.6-5.3 exhaustive for a prompt with one long list.
pub(super) fn worth_it(index: &Index, terms: &[Term]) -> bool {
    applies(terms)
        && index.chunks.len() < SPLIT_CHUNKS_PER_FILE * index.files.len()
        && lists_pay(
            &terms
                .iter()
                .filter(|t| !t.path_only)
                .map(|t| index.postings.len(t.id))
                .collect::<Vec<_>>(),
        )
}

/// Whether lists of these lengths are worth a pruned walk: long enough together, and the
/// longest holds at least [`ONE_LIST_SHARE`] times the postings of all the others together.
fn lists_pay(lists: &[usize]) -> bool {
    let total: usize = lists.iter().sum();
    let longest = lists.iter().copied().max().unwrap_or(0);
    total >= PRUNE_MIN_POSTINGS && longest >= ONE_LIST_SHARE * (total - longest)
}

/// Whether every weight is one a bound can scale (finite, not negative).
pub(super) fn applies(terms: &[Term]) -> bool {
    terms
        .iter()
        .all(|t| t.weight.is_finite() && t.weight >= 0.0)
}

/// How many files the ranking keeps: the `wanted` best, and the `shown` best that the
/// centrality prior reorders (0 when it does not apply).
#[derive(Debug, Clone, Copy)]
pub(super) struct Keep {
    pub wanted: usize,
    pub shown: usize,
}

/// The place of the named files' list among the lists of [`scored_files`].
const NAMED: usize = usize::MAX;

/// A term's place in its list during the walk.
struct Cursor<'a> {
    term: u32,
    weight: f32,
    idf_c: f32,
    idf_f: f32,
    idf_d: f32,
    summary: Arc<TermSummary>,
    it: PostingIter<'a>,
    /// The current live posting (`None` past the end).
    cur: Option<Posting>,
    /// No block before this one ends at or after any chunk still asked about.
    block: usize,
    /// Every chunk of the index is alive: a posting's chunk need not be looked up.
    all_alive: bool,
}

impl<'a> Cursor<'a> {
    fn advance(&mut self, index: &'a Index) {
        self.cur = loop {
            match self.it.next() {
                None => break None,
                // With every chunk alive (the usual warm state) no chunk is looked up.
                Some(p) if self.all_alive || index.chunks[p.chunk as usize].alive => break Some(p),
                Some(_) => {}
            }
        };
    }

    /// The first block ending at or after `chunk` (the number of blocks if none).
    fn block_from(&mut self, chunk: u32) -> usize {
        let blocks = &self.summary.blocks;
        if self.block < blocks.len() && blocks[self.block].last < chunk {
            // Galloping: a skip can pass many blocks.
            let mut step = 1;
            let mut lo = self.block + 1;
            while lo + step < blocks.len() && blocks[lo + step].last < chunk {
                lo += step;
                step *= 2;
            }
            let hi = (lo + step + 1).min(blocks.len());
            self.block = lo + blocks[lo..hi].partition_point(|b| b.last < chunk);
        }
        self.block
    }

    /// Moves to the first live posting at or after `chunk`, jumping over whole blocks.
    fn seek(&mut self, chunk: u32, index: &'a Index) {
        let Some(p) = self.cur else { return };
        if p.chunk >= chunk {
            return;
        }
        let b = self.block_from(chunk);
        let Some(block) = self.summary.blocks.get(b) else {
            self.cur = None;
            return;
        };
        if p.chunk < block.first {
            self.it = index.postings.list_at(self.term, block.state);
        }
        // Postings before `chunk` are decoded, not looked up: whether their chunk is alive
        // does not matter (a look-up each, scattered over the chunks, was most of a seek).
        self.cur = loop {
            match self.it.next() {
                None => break None,
                Some(p)
                    if p.chunk >= chunk
                        && (self.all_alive || index.chunks[p.chunk as usize].alive) =>
                {
                    break Some(p)
                }
                Some(_) => {}
            }
        };
    }

    /// The most this term adds to file `fid`, whose postings of it are `list` (per unit of
    /// weight): [`summarize`]'s bound of one file.
    fn part(&self, list: &[Posting], fid: u32, index: &Index, norms: &Norms) -> f32 {
        if list.is_empty() {
            return 0.0;
        }
        let (mut tf_sum, mut best, mut defines) = (0.0f32, 0.0f32, false);
        for p in list {
            let tf = posting_tf(*p);
            let len = index.chunks[p.chunk as usize].len as f32;
            let norm = K1_CHUNK * (1.0 - B_CHUNK + B_CHUNK * len / norms.avg_chunk);
            best = best.max(tf * (K1_CHUNK + 1.0) / (tf + norm));
            tf_sum += tf;
            defines |= p.sym > 0;
        }
        let len = index.file_lens[fid as usize] as f32;
        let norm = K1_FILE * (1.0 - B_FILE + B_FILE * len / norms.avg_file);
        let file = tf_sum * (K1_FILE + 1.0) / (tf_sum + norm);
        let d = if defines { self.idf_d } else { 0.0 };
        self.idf_f * file + W_BEST_CHUNK * (self.idf_c * best + W_DEFINES_CHUNK * d) + W_DEFINES * d
    }

    /// The most this term adds to the file of chunks `start..end` (per unit of weight), and
    /// the last chunk up to which that bound holds for every file.
    fn bound(&mut self, start: u32, end: u32) -> (f32, u32) {
        let b = self.block_from(start);
        match self.summary.blocks.get(b) {
            None => (0.0, u32::MAX),
            Some(block) if block.first < end => (block.max, block.last),
            Some(block) => (0.0, block.first - 1),
        }
    }
}

/// The chunks of the file that chunk `at` is of: its neighbours of the same file (a file's
/// chunks are consecutive, and a file id is never given again), read instead of the file's
/// metadata, which most files the walk meets are passed over without.
fn file_chunks(index: &Index, at: u32) -> (u32, u32) {
    let file = index.chunks[at as usize].file;
    let mut start = at as usize;
    while start > 0 && index.chunks[start - 1].file == file {
        start -= 1;
    }
    let mut end = at as usize + 1;
    while end < index.chunks.len() && index.chunks[end].file == file {
        end += 1;
    }
    (start as u32, end as u32)
}

/// The `n` best scores so far, least on top (positive finite floats order as their bits).
struct Best {
    n: usize,
    heap: BinaryHeap<std::cmp::Reverse<u32>>,
}

impl Best {
    fn new(n: usize) -> Best {
        Best {
            n,
            heap: BinaryHeap::with_capacity(n + 1),
        }
    }

    fn push(&mut self, score: f32) {
        if self.n == 0 {
            return;
        }
        self.heap.push(std::cmp::Reverse(score.to_bits()));
        if self.heap.len() > self.n {
            self.heap.pop();
        }
    }

    /// The `n`-th best score, 0 until there are `n`.
    fn nth(&self) -> f32 {
        if self.heap.len() < self.n {
            return 0.0;
        }
        self.heap.peek().map_or(0.0, |k| f32::from_bits(k.0))
    }
}

/// Step 2 to 5 pruned: the scores of a set of files that holds every file the exhaustive
/// ranking could keep (with `keep`), each exactly as the exhaustive ranking scores it, and the
/// files whose mention was dropped ([`Modifiers`](super::rank::Modifiers)), sorted; the
/// signals of those files are left in `scores` for the steps after.
#[allow(clippy::too_many_lines)] // one walk, whose steps share its cursors and bounds
pub(super) fn scored_files(
    index: &Index,
    query: &Query,
    terms: &[Term],
    scores: &mut Scores,
    factors: &Factors<'_>,
    keep: Keep,
) -> (Vec<(u32, f32)>, Vec<u32>) {
    let norms = Norms::of(index);
    let mut cursors: Vec<Option<Cursor<'_>>> = Vec::with_capacity(terms.len());
    for &t in terms {
        let mut cursor = None;
        if !t.path_only {
            let s = summary(index, t.id, &norms);
            if s.df_chunks > 0 {
                let idf_f = idf(scores.n_files, s.df_files as f32);
                scores.max_idf = scores.max_idf.max(idf_f);
                let mut c = Cursor {
                    term: t.id,
                    weight: t.weight,
                    idf_c: idf(scores.n_chunks, s.df_chunks as f32),
                    idf_f,
                    idf_d: idf(scores.n_files, s.df_defs as f32),
                    summary: s,
                    it: index.postings.list(t.id),
                    cur: None,
                    block: 0,
                    all_alive: index.live_chunks as usize == index.chunks.len(),
                };
                c.advance(index);
                cursor = Some(c);
            }
        }
        cursors.push(cursor);
        scores.add_path(index, t, W_PATH);
    }
    // The files the path field scored, then those a mention names.
    let mut named_files: Vec<u32> = Vec::new();
    for &t in terms {
        named_files.extend(
            index.path_postings[t.id as usize]
                .iter()
                .copied()
                .filter(|&f| scores.path[f as usize] > 0.0),
        );
    }
    let mut dropped: Vec<u32> = Vec::new();
    if let Some(m) = Mentions::of(index, scores, query) {
        let mut namings: Vec<(u32, Naming)> = Vec::new();
        let mut mention = |f: u32, meta: &crate::retrieve::index::FileMeta| {
            let (v, naming) = m.score(meta, query, scores.path[f as usize]);
            scores.mention[f as usize] = v;
            // A file with a mention and a chunk is scored above 0 by the exhaustive ranking,
            // which notes how it was named ([`Modifiers`]).
            if v > 0.0 && !meta.chunks.is_empty() {
                namings.push((f, naming));
            }
            v > 0.0
        };
        if m.any_file() {
            for (f, meta) in index.files.iter().enumerate() {
                if let Some(meta) = meta {
                    if mention(f as u32, meta) {
                        named_files.push(f as u32);
                    }
                }
            }
        } else {
            named_files.sort_unstable();
            named_files.dedup();
            for &f in &named_files {
                if let Some(meta) = index.files[f as usize].as_ref() {
                    mention(f, meta);
                }
            }
        }
        // The modifiers' mentions dropped before the walk, as the exhaustive ranking drops
        // them after scoring: the threshold is then never raised by a score about to fall.
        if namings.iter().any(|n| n.1 == Naming::Subject) {
            for &(f, naming) in &namings {
                if naming == Naming::Modifier {
                    scores.mention[f as usize] = 0.0;
                    dropped.push(f);
                }
            }
            dropped.sort_unstable();
            dropped.dedup();
        }
    }
    if keep.wanted == 0 {
        return (Vec::new(), dropped);
    }
    // The files the path field or a mention scored, by their first chunk: one more list.
    let mut named: Vec<(u32, u32)> = named_files
        .iter()
        .filter_map(|&f| {
            let m = index.files[f as usize].as_ref()?;
            (!m.chunks.is_empty()).then_some((m.chunks.start, f))
        })
        .collect();
    named.sort_unstable();
    named.dedup();
    let named_score = |s: &Scores, f: u32| s.path[f as usize] + s.mention[f as usize];
    let named_max = named
        .iter()
        .map(|&(_, f)| named_score(scores, f))
        .fold(0.0, f32::max);
    let mut named_at = 0usize;

    // The lists by their largest bound, least first; the named files' list is `NAMED`.
    let mut order: Vec<(usize, f32)> = cursors
        .iter()
        .enumerate()
        .filter_map(|(k, c)| c.as_ref().map(|c| (k, c.weight * c.summary.max)))
        .collect();
    if !named.is_empty() {
        order.push((NAMED, named_max));
    }
    order.sort_by(|a, b| a.1.total_cmp(&b.1));
    let mut prefix = vec![0.0f32; order.len() + 1];
    for (i, &(_, u)) in order.iter().enumerate() {
        prefix[i + 1] = prefix[i] + u;
    }

    let most = factors.most();
    let mut best = Best::new(keep.wanted);
    let mut best_shown = Best::new(keep.shown);
    let threshold = |best: &Best, best_shown: &Best| {
        let t = best.nth();
        if keep.shown > 0 {
            t.min(best_shown.nth() / (1.0 + W_CENTRAL))
        } else {
            t
        }
    };
    let mut out: Vec<(u32, f32)> = Vec::new();
    let mut defs: Vec<(usize, u32)> = Vec::new();
    // Lists `order[..passive]` bring no file: their bounds together stay below the threshold.
    let mut passive = 0usize;
    let mut active: Vec<bool> = cursors.iter().map(Option::is_some).collect();
    let mut block_bounds = vec![0.0f32; cursors.len()];
    let mut bufs: Vec<Vec<Posting>> = vec![Vec::new(); cursors.len()];
    loop {
        let th = threshold(&best, &best_shown);
        while passive < order.len() && prefix[passive + 1] * most * SAFETY < th {
            if order[passive].0 != NAMED {
                active[order[passive].0] = false;
            }
            passive += 1;
        }
        let mut at = u32::MAX;
        for &(k, _) in &order[passive..] {
            let pos = if k == NAMED {
                named.get(named_at).map_or(u32::MAX, |n| n.0)
            } else {
                cursors[k]
                    .as_ref()
                    .and_then(|c| c.cur)
                    .map_or(u32::MAX, |p| p.chunk)
            };
            at = at.min(pos);
        }
        if at == u32::MAX {
            break;
        }
        let fid = index.chunks[at as usize].file;
        let (start, end) = file_chunks(index, at);
        while named.get(named_at).is_some_and(|n| n.0 < start) {
            named_at += 1;
        }
        let is_named = named.get(named_at).is_some_and(|n| n.0 == start);
        let named_part = if is_named {
            named_score(scores, fid)
        } else {
            0.0
        };
        let mut bound = named_part;
        let mut until = u32::MAX;
        if let Some(&(next, _)) = named.get(named_at + usize::from(is_named)) {
            until = next - 1;
        }
        for (k, c) in cursors.iter_mut().enumerate() {
            let Some(c) = c else { continue };
            let (b, u) = c.bound(start, end);
            block_bounds[k] = c.weight * b;
            bound += block_bounds[k];
            until = until.min(u);
        }
        if bound * most * SAFETY < th {
            // This file and those after it up to `until` stay below: skipped whole (a file
            // that `until` ends inside of is not, the bound may not hold for all of it).
            let mut last = until.max(end - 1);
            if last > end - 1 {
                if let Some(c) = index.chunks.get(last as usize).filter(|c| c.alive) {
                    let r = index.files[c.file as usize]
                        .as_ref()
                        .map_or(0..0, |m| m.chunks.clone());
                    if last + 1 < r.end {
                        last = r.start - 1;
                    }
                }
            }
            let next = last.saturating_add(1);
            for &(k, _) in &order[passive..] {
                if k != NAMED {
                    if let Some(c) = cursors[k].as_mut() {
                        c.seek(next, index);
                    }
                }
            }
            while named.get(named_at).is_some_and(|n| n.0 < next) {
                named_at += 1;
            }
            if next == u32::MAX {
                break;
            }
            continue;
        }
        while named.get(named_at).is_some_and(|n| n.0 < end) {
            named_at += 1;
        }
        // The lists that bring files are at this one (at or after `start`): their postings
        // in it, read once, replace their block maxima by what they add to this file.
        let mut tight = named_part;
        for (k, c) in cursors.iter_mut().enumerate() {
            bufs[k].clear();
            let Some(c) = c else { continue };
            if !active[k] {
                tight += block_bounds[k];
                continue;
            }
            while let Some(p) = c.cur.filter(|p| p.chunk < end) {
                bufs[k].push(p);
                c.advance(index);
            }
            tight += c.weight * c.part(&bufs[k], fid, index, &norms);
        }
        if tight * most * SAFETY < th {
            continue;
        }
        let Some(meta) = index.files[fid as usize].as_ref() else {
            debug_assert!(false, "a live chunk of a removed file");
            break;
        };
        debug_assert_eq!(meta.chunks, start..end);
        if tight * factors.role(meta) * factors.side(fid) * SAFETY < th {
            continue;
        }
        // Scored exactly, with the additions in the exhaustive ranking's order.
        let f = fid as usize;
        defs.clear();
        for (k, c) in cursors.iter_mut().enumerate() {
            let Some(c) = c else { continue };
            if !active[k] {
                c.seek(start, index);
                while let Some(p) = c.cur.filter(|p| p.chunk < end) {
                    bufs[k].push(p);
                    c.advance(index);
                }
            }
            if bufs[k].is_empty() {
                continue;
            }
            let mut tf_sum = 0.0f32;
            for &p in &bufs[k] {
                let tf = posting_tf(p);
                let len = index.chunks[p.chunk as usize].len;
                scores.chunk[p.chunk as usize] +=
                    chunk_bm25(c.weight * c.idf_c, tf, len, scores.avg_chunk);
                tf_sum += tf;
                if p.sym > 0 {
                    defs.push((k, p.chunk));
                }
            }
            scores.bm25[f] += file_bm25(
                c.weight,
                c.idf_f,
                tf_sum,
                index.file_lens[f],
                scores.avg_file,
            );
        }
        for &(k, chunk) in &defs {
            let c = cursors[k].as_ref().expect("a term with postings");
            scores.chunk[chunk as usize] += W_DEFINES_CHUNK * c.weight * c.idf_d;
            scores.symbol[f] = scores.symbol[f].max(W_DEFINES * c.weight * c.idf_d);
        }
        #[cfg(test)]
        note_scored(1);
        let base = scores.bm25[f] + scores.path[f] + scores.symbol[f] + scores.mention[f];
        if let Some(score) = file_score(scores, fid, base, meta, factors) {
            out.push((fid, score));
            best.push(score);
            best_shown.push(score);
        }
    }
    (out, dropped)
}

/// Counts `n` files scored (tests: how much the pruning prunes).
#[cfg(test)]
pub(super) fn note_scored(n: usize) {
    SCORED.with(|s| s.set(s.get() + n));
}

#[cfg(test)]
thread_local! {
    /// Files scored exactly by the pruned walk on this thread (tests: the pruning prunes).
    static SCORED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

#[cfg(test)]
mod tests {
    use super::super::rank::{rank_with, FileHit, Pruning};
    use super::*;
    use crate::fs_scope::Scope;
    use std::sync::atomic::AtomicUsize;

    /// Shared words: every file is made of them, so every list is long.
    const WORDS: [&str; 40] = [
        "request", "socket", "retry", "timeout", "config", "schema", "validate", "token", "header",
        "encode", "event", "listener", "dispatch", "cache", "result", "buffer", "queue", "flush",
        "session", "user", "load", "parse", "send", "item", "handler", "router", "stream", "error",
        "client", "server", "worker", "thread", "lock", "memory", "page", "index", "query", "rank",
        "score", "file",
    ];

    /// The first words, each also the stem of a file of its own.
    const STEMS: usize = 12;

    use crate::test_rng::Xorshift as Rng;

    /// Draws of the generated corpus's words and names.
    trait Words {
        fn word(&mut self) -> &'static str;
        fn camel(&mut self, parts: usize) -> String;
    }

    impl Words for Rng {
        /// A word, the first ones far more often (as in prose).
        fn word(&mut self) -> &'static str {
            let u = (self.next() % 10_000) as f64 / 10_000.0;
            WORDS[(u * u * WORDS.len() as f64) as usize]
        }
        fn camel(&mut self, parts: usize) -> String {
            let mut s = String::new();
            for k in 0..parts {
                let w = self.word();
                if k == 0 {
                    s.push_str(w);
                } else {
                    s.push_str(&w[..1].to_uppercase());
                    s.push_str(&w[1..]);
                }
            }
            s
        }
    }

    /// A file of shared words: functions with a few lines each (definitions of camel-case
    /// names made of the same words), or prose, or a config.
    fn file_text(rng: &mut Rng, ext: &str) -> String {
        let mut out = String::new();
        match ext {
            "md" => {
                for _ in 0..=rng.below(12) {
                    let line: Vec<&str> = (0..3 + rng.below(10)).map(|_| rng.word()).collect();
                    out.push_str(&line.join(" "));
                    out.push_str("\n\n");
                }
            }
            "json" => {
                for _ in 0..=rng.below(6) {
                    out.push_str(&format!(
                        "\"{}\": \"{} {}\",\n",
                        rng.camel(2),
                        rng.word(),
                        rng.word()
                    ));
                }
            }
            _ => {
                for _ in 0..=rng.below(5) {
                    let parts = 1 + rng.below(3);
                    let name = rng.camel(parts);
                    out.push_str(&format!("export function {name}(a, b) {{\n"));
                    let most = if rng.below(8) == 0 { 60 } else { 8 };
                    for _ in 0..=rng.below(most) {
                        let line: Vec<&str> = (0..=rng.below(7)).map(|_| rng.word()).collect();
                        out.push_str(&format!("  const x = {}\n", line.join(" + ")));
                    }
                    out.push_str("}\n\n");
                }
            }
        }
        out
    }

    /// A path of shared words, sometimes under a folder that gives it a role or a side.
    fn file_path(rng: &mut Rng, i: usize) -> (String, &'static str) {
        // C sources and headers side by side: the companion headers' demotion, and the
        // centrality prior weighed after it, rank them.
        let ext = ["ts", "ts", "ts", "ts", "ts", "md", "json", "d.ts", "c", "h"][rng.below(10)];
        let top = [
            "src", "src", "src", "tests", "docs", "v1", "v2", "client", "server",
        ][rng.below(9)];
        let path = format!(
            "{top}/{}/{}_{}{i}.{ext}",
            rng.word(),
            rng.word(),
            rng.word()
        );
        (path, ext)
    }

    fn write(root: &std::path::Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// Prompts over the shared words: prose of one to eight words, identifiers, a file
    /// named, words that ask for tests, types or one side.
    fn prompts(rng: &mut Rng, paths: &[String]) -> Vec<String> {
        let mut out = Vec::new();
        for k in 0..160 {
            let p = match k % 8 {
                0 => {
                    let parts = 2 + rng.below(2);
                    rng.camel(parts)
                }
                1 => format!(
                    "fix the {} in {}",
                    rng.word(),
                    paths[rng.below(paths.len())]
                ),
                2 => format!("the {} {} types", rng.word(), rng.word()),
                3 => format!("{} {} test", rng.word(), rng.word()),
                4 => format!("server side {} {}", rng.word(), rng.word()),
                // A one-line question whose subject and a modifier both name a file
                // (`lib/request.ts`, `lib/cache.ts`): the modifier's mention is dropped.
                7 => {
                    let [a, b, c] = [0; 3].map(|_| WORDS[rng.below(STEMS)]);
                    format!("{a} {b} and {a} {c} tracking")
                }
                _ => (0..=rng.below(8))
                    .map(|_| rng.word())
                    .collect::<Vec<_>>()
                    .join(" "),
            };
            out.push(p);
        }
        out
    }

    fn same(a: &[FileHit], b: &[FileHit]) -> bool {
        a.len() == b.len()
            && a.iter().zip(b).all(|(x, y)| {
                x.file == y.file
                    && x.score.to_bits() == y.score.to_bits()
                    && x.chunks.len() == y.chunks.len()
                    && x.chunks
                        .iter()
                        .zip(&y.chunks)
                        .all(|(p, q)| p.0 == q.0 && p.1.to_bits() == q.1.to_bits())
                    && x.signals == y.signals
            })
    }

    /// Pruned and exhaustive rankings of every prompt at several depths: the same files, in
    /// the same order, with the same scores to the bit; and the pruned one scored fewer files.
    fn compare(index: &Index, prompts: &[String]) {
        let (mut scored, mut exhaustive, mut dropped) = (0usize, 0usize, 0usize);
        for prompt in prompts {
            let q = Query::parse(prompt);
            for (max, shown) in [(1, 1), (5, 5), (10, 10), (20, 20), (100, 20), (40, 3)] {
                SCORED.with(|s| s.set(0));
                let pruned = rank_with(index, &q, max, shown, None, Pruning::Pruned);
                scored += SCORED.with(std::cell::Cell::get);
                SCORED.with(|s| s.set(0));
                let all = rank_with(index, &q, max, shown, None, Pruning::Exhaustive);
                exhaustive += SCORED.with(std::cell::Cell::get);
                dropped += all.iter().filter(|h| h.signals.modifier_stem).count();

                assert!(
                    same(&pruned, &all),
                    "{prompt:?} at {max}/{shown}: pruned {:?} exhaustive {:?}",
                    pruned.iter().map(|h| (h.file, h.score)).collect::<Vec<_>>(),
                    all.iter().map(|h| (h.file, h.score)).collect::<Vec<_>>()
                );
            }
        }
        // A small corpus has few blocks per list (most hold one of the best files): the
        // pruning skips less here than on a large tree, but it must skip.
        assert!(
            scored * 4 < exhaustive * 3,
            "pruning scored {scored} files of {exhaustive}"
        );
        assert!(dropped > 0, "no question's modifier named a ranked file");
    }

    #[test]
    fn pruned_only_where_one_list_holds_most_postings() {
        // One long list: pruned; with a short one beside it, still.
        assert!(lists_pay(&[66_000]));
        assert!(lists_pay(&[66_000, 1, 1_500]));
        // Too few postings in all.
        assert!(!lists_pay(&[10_000, 100]));
        assert!(!lists_pay(&[]));
        // Two or more long lists (a short prompt's common words): exhaustive.
        assert!(!lists_pay(&[66_000, 66_900, 1]));
        assert!(!lists_pay(&[65_000, 66_000, 66_500, 67_000]));
        assert!(!lists_pay(&[66_000, 20_000]));
    }

    #[test]
    fn pruned_ranking_equals_exhaustive_ranking_across_edits() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut paths = Vec::new();
        for i in 0..1500 {
            let (rel, ext) = file_path(&mut rng, i);
            write(root, &rel, &file_text(&mut rng, ext));
            paths.push(rel);
        }
        // Files named by one word each, for the questions whose words name files.
        for (i, w) in WORDS[..STEMS].iter().enumerate() {
            let rel = format!("lib/{w}.ts");
            write(root, &rel, &file_text(&mut rng, "ts"));
            if i % 3 == 0 {
                write(
                    root,
                    &format!("lib/{w}s/index.md"),
                    &file_text(&mut rng, "md"),
                );
            }
            paths.push(rel);
        }
        let mut index = Index::new(Scope::new(root).unwrap(), 100_000);
        index.set_watching(false);
        index.refresh(&AtomicUsize::new(0));
        let asked = prompts(&mut rng, &paths);
        compare(&index, &asked);
        // Deleted and rewritten files leave dead postings: the live document frequencies
        // change, and with them every idf and bound.
        for (k, rel) in paths.iter().enumerate() {
            match k % 10 {
                0 => std::fs::remove_file(root.join(rel)).unwrap(),
                1 => {
                    let ext = rel.rsplit('.').next().unwrap();
                    let text = format!("{}\n// {}\n", file_text(&mut rng, ext), k);
                    write(root, rel, &text);
                }
                _ => {}
            }
        }
        for i in 0..100 {
            let (rel, ext) = file_path(&mut rng, 2000 + i);
            write(root, &rel, &file_text(&mut rng, ext));
        }
        let progress = AtomicUsize::new(0);
        index.refresh(&progress);
        assert!(index.dead_chunks > 0, "the edits left dead chunks");
        compare(&index, &asked);
    }
}
