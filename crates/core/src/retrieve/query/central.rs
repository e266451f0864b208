//! How central a file is: how many other files use the names it defines.
//!
//! A short question about how something works ("how vitest discovers and runs test files",
//! "how curl resolves and connects to a host") is best answered by the module the rest of the
//! code calls (`core.ts`, `url.c`), which a lexical score alone ranks no higher than a small
//! file that repeats the words. [`Central::of`] gives ranking that prior: the sum `s`, over the
//! names only that file defines, of ln(1 + the other files whose text holds the name), as
//! `s / (s + HALF)`. A name defined in several files (an overloaded word, `init`, `new`) says
//! nothing of which one is used, so it does not count. A name is its whole identifier
//! ([`name_terms`]: `beginRun` is the term `beginrun`, not `begin` and `run`).
//!
//! Nothing is computed for the whole tree. Ranking asks only about the few files the prior can
//! still move into the results (it raises a score by at most a tenth, so a file far below the
//! last shown one cannot reach it: `rank::apply_central`). The indexer records the names each
//! file defines (their term ids, delta-coded: about 2 bytes a name, ~3 MB for the Linux
//! kernel); a name's users come from its posting list when first asked, and are kept until the
//! index changes (the kernel: 0.6 ms p50, 1.0 ms p95 a one-line query). The record is saved
//! with the index, so a restarted index reads no text for it; a file without a record has its
//! names read from its text, the same way, once.
//! Values depend on the files only: sums are fixed-point (so their order does not matter) and
//! nothing depends on ids.

use rustc_hash::FxHashMap as HashMap;

use crate::cancel::Cancel;
use crate::retrieve::index::chunk;
use crate::retrieve::index::terms::{get_var, put_var};
use crate::retrieve::index::Index;
use crate::retrieve::tokenize::{for_each_identifier, Tokenizer};
use crate::Result;

/// Fixed-point unit of a name's contribution, so that a sum does not depend on the order of
/// its names.
const UNIT: f64 = 1024.0 * 1024.0;

/// The sum (in natural units) at which a file's centrality is one half: `s / (s + HALF)`.
/// Small: a file whose names the rest of the tree uses at all is central; a file whose names
/// nobody uses (a test, an example, a leaf) is not. Measured on the DEV sets (semble NDCG@10
/// pooled): 3 → 0.864, 5 → 0.863, 10 → 0.862, 30 → 0.861, 100 → 0.860.
const HALF: f64 = 3.0;

/// Most names whose users are kept (about 13 bytes each, under 2 MB in all); past it they
/// are forgotten. A one-line question about the Linux kernel asks about a thousand names or
/// more: at 32,768 the forty questions of the warm benchmark overflowed it before their second
/// round, and each round walked the lists of the names again (a tenth of a warm query's time).
const MAX_TERMS: usize = 1 << 16;

/// A file's names not recorded yet.
const UNKNOWN: (u32, u32) = (u32::MAX, 0);

/// The names each file defines, and what ranking learned of them (see the module doc).
#[derive(Debug)]
pub(in crate::retrieve) struct Central {
    /// Per file id: where its names are in `bytes` (`UNKNOWN` if not recorded).
    spans: Vec<(u32, u32)>,
    /// Each recorded file's name terms, ascending ids as LEB128 deltas.
    bytes: Vec<u8>,
    /// Per name term asked about: its only live defining file (`u32::MAX` if none or
    /// several) and ln(1 + the other live files holding it) in units of 1/[`UNIT`] (below
    /// 2^25 for any number of files a `u32` counts: 12 bytes an entry).
    terms: HashMap<u32, (u32, u32)>,
    /// The index's change count `terms` is valid for.
    generation: u64,
}

impl Default for Central {
    fn default() -> Central {
        Central {
            spans: Vec::new(),
            bytes: Vec::new(),
            terms: HashMap::default(),
            generation: u64::MAX,
        }
    }
}

impl Central {
    /// Records the terms of the names file `fid` defines (any order, repeats allowed).
    pub(in crate::retrieve) fn record(&mut self, fid: u32, terms: &mut Vec<u32>) {
        terms.sort_unstable();
        terms.dedup();
        let start = self.bytes.len() as u32;
        let mut prev = 0u32;
        for &t in terms.iter() {
            put_var(&mut self.bytes, u64::from(t - prev));
            prev = t;
        }
        let i = fid as usize;
        if self.spans.len() <= i {
            self.spans.resize(i + 1, UNKNOWN);
        }
        self.spans[i] = (start, self.bytes.len() as u32);
    }

    /// File `fid`'s recorded names as the record holds them (ascending term ids as LEB128
    /// deltas), or `None` if not recorded: what the cache file stores.
    pub(in crate::retrieve) fn recorded(&self, fid: u32) -> Option<&[u8]> {
        let (a, b) = self.spans.get(fid as usize).copied().unwrap_or(UNKNOWN);
        ((a, b) != UNKNOWN).then(|| &self.bytes[a as usize..b as usize])
    }

    /// The record of a cache file: per file id, its names as [`Central::recorded`] gave
    /// them. `None` unless each is well formed: ascending term ids below `n_terms`.
    pub(in crate::retrieve) fn restored(runs: &[Option<&[u8]>], n_terms: usize) -> Option<Central> {
        let mut c = Central {
            spans: vec![UNKNOWN; runs.len()],
            ..Central::default()
        };
        for (fid, run) in runs.iter().enumerate() {
            let Some(run) = run else { continue };
            let (mut at, mut prev, mut first) = (0usize, 0u64, true);
            while at < run.len() {
                let gap = crate::retrieve::index::terms::checked_var(run, &mut at)?;
                if gap == 0 && !first {
                    return None;
                }
                prev = prev.checked_add(gap)?;
                if prev >= n_terms as u64 {
                    return None;
                }
                first = false;
            }
            let start = u32::try_from(c.bytes.len()).ok()?;
            c.bytes.extend_from_slice(run);
            c.spans[fid] = (start, u32::try_from(c.bytes.len()).ok()?);
        }
        c.bytes.shrink_to_fit();
        Some(c)
    }

    /// Forgets file `fid`'s names (it was removed; its bytes go at the next [`Central::remap`]).
    pub(in crate::retrieve) fn forget(&mut self, fid: u32) {
        if let Some(s) = self.spans.get_mut(fid as usize) {
            *s = UNKNOWN;
        }
    }

    /// Renumbers the files (`map[old]`, `u32::MAX` for a dropped one) and drops the rest.
    pub(in crate::retrieve) fn remap(&mut self, map: &[u32], files: usize) {
        let old = std::mem::take(&mut self.bytes);
        let spans = std::mem::replace(&mut self.spans, vec![UNKNOWN; files]);
        for (fid, &(a, b)) in spans.iter().enumerate() {
            let new = map.get(fid).copied().unwrap_or(u32::MAX);
            if (a, b) == UNKNOWN || new == u32::MAX {
                continue;
            }
            let start = self.bytes.len() as u32;
            self.bytes.extend_from_slice(&old[a as usize..b as usize]);
            self.spans[new as usize] = (start, self.bytes.len() as u32);
        }
        self.bytes.shrink_to_fit();
        self.terms = HashMap::default();
    }

    /// Releases spare capacity (after a build).
    pub(in crate::retrieve) fn shrink(&mut self) {
        self.bytes.shrink_to_fit();
        self.spans.shrink_to_fit();
    }

    /// Heap bytes held.
    pub(in crate::retrieve) fn heap_bytes(&self) -> usize {
        self.bytes.capacity()
            + self.spans.capacity() * 8
            + self.terms.capacity() * (std::mem::size_of::<(u32, (u32, u32))>() + 1)
    }

    /// The name terms of file `fid`, from the record or (then recorded) its text.
    fn names(&mut self, index: &Index, fid: u32) -> Vec<u32> {
        let (a, b) = self.spans.get(fid as usize).copied().unwrap_or(UNKNOWN);
        if (a, b) == UNKNOWN {
            let mut terms = names_from_text(index, fid);
            self.record(fid, &mut terms);
            return terms;
        }
        let run = &self.bytes[a as usize..b as usize];
        let (mut out, mut prev, mut at) = (Vec::new(), 0u32, 0usize);
        while at < run.len() {
            prev += get_var(run, &mut at) as u32;
            out.push(prev);
        }
        out
    }

    /// The centrality of file `fid` of `index`, 0 to 1 (0 when none of the names it alone
    /// defines is used by another file).
    pub(in crate::retrieve) fn of(&mut self, index: &Index, fid: u32) -> f32 {
        if self.generation != index.generation || self.terms.len() > MAX_TERMS {
            self.terms.clear();
            self.generation = index.generation;
        }
        let mut sum = 0u64;
        for t in self.names(index, fid) {
            let (definer, value) = *self.terms.entry(t).or_insert_with(|| term_users(index, t));
            if definer == fid {
                sum += u64::from(value);
            }
        }
        let s = sum as f64 / UNIT;
        (s / (s + HALF)) as f32
    }
}

/// Calls `f` with the term that names each identifier of a defined name (`Plug.Conn` has
/// two): a compound identifier's whole term (`beginrun`), or a simple one's word.
pub(in crate::retrieve) fn name_terms(
    tokenizer: &mut Tokenizer,
    name: &str,
    mut f: impl FnMut(&str),
) {
    let mut first = String::new();
    for_each_identifier(name, |ident| {
        let mut n = 0;
        let mut whole = false;
        first.clear();
        tokenizer.identifier(ident, &mut |t: &str, w: bool| {
            if n == 0 {
                first.push_str(t);
                whole = w;
            }
            n += 1;
        });
        if n > 0 && (whole || n == 1) {
            f(&first);
        }
    });
}

/// The name terms of file `fid` from its text, as the indexer records them (the chunks'
/// symbols); empty if it cannot be read.
fn names_from_text(index: &Index, fid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let Some(meta) = index.files.get(fid as usize).and_then(Option::as_ref) else {
        return out;
    };
    let Some(text) = index.read_text(fid) else {
        return out;
    };
    let mut tokenizer = Tokenizer::default();
    for c in chunk::chunk_file(&meta.rel, &text) {
        for s in &c.symbols {
            name_terms(&mut tokenizer, s, |t| {
                if let Some(id) = index.terms.get(t) {
                    out.push(id);
                }
            });
        }
    }
    out
}

/// Term `t`'s only live defining file (`u32::MAX` if none or several) and, for one, ln(1 +
/// the other live files holding it) in units of 1/[`UNIT`]. One pass over its postings, which
/// stops at a second defining file (the chunks of a file are consecutive in a list). Each
/// posting reads its chunk's metadata, scattered over a large index: they are asked for a
/// group ahead ([`PostingIter::for_each_prefetched_while`]), so that the cache misses
/// overlap (a name the kernel uses in thousands of files cost one after another).
///
/// [`PostingIter::for_each_prefetched_while`]: crate::retrieve::index::terms::PostingIter::for_each_prefetched_while
fn term_users(index: &Index, t: u32) -> (u32, u32) {
    let mut definer = u32::MAX;
    let mut several = false;
    let mut files = 0usize;
    let mut last = u32::MAX;
    let chunks = index.chunks.as_ptr();
    index.postings.list(t).for_each_prefetched_while(
        |p| Some(chunks.wrapping_add(p.chunk as usize)),
        |p| {
            let c = &index.chunks[p.chunk as usize];
            if !c.alive {
                return true;
            }
            if c.file != last {
                last = c.file;
                files += 1;
            }
            if p.sym > 0 && definer != c.file {
                if definer != u32::MAX {
                    several = true;
                    return false;
                }
                definer = c.file;
            }
            true
        },
    );
    if several || definer == u32::MAX || files < 2 {
        return (u32::MAX, 0);
    }
    let users = (files - 1) as f64;
    (definer, (users.ln_1p() * UNIT).round() as u32)
}

/// [`term_users`] as one posting after another, without prefetching: what its result must
/// equal.
#[cfg(test)]
fn term_users_reference(index: &Index, t: u32) -> (u32, u32) {
    let mut definer = u32::MAX;
    let mut files = 0usize;
    let mut last = u32::MAX;
    for p in index.postings.list(t) {
        let c = &index.chunks[p.chunk as usize];
        if !c.alive {
            continue;
        }
        if c.file != last {
            last = c.file;
            files += 1;
        }
        if p.sym > 0 && definer != c.file {
            if definer != u32::MAX {
                return (u32::MAX, 0);
            }
            definer = c.file;
        }
    }
    if definer == u32::MAX || files < 2 {
        return (u32::MAX, 0);
    }
    let users = (files - 1) as f64;
    (definer, (users.ln_1p() * UNIT).round() as u32)
}

/// Every live file of `index` whose path lies under the folder `under` (`/`-separated, empty
/// for the whole root), with its centrality ([`Central::of`]): most central first, ties by
/// path, so the order depends on the files only. Asks about every such file, so it costs a
/// pass over the posting list of each name defined there (the whole tree's for `""`); it
/// checks `cancel` between files.
pub(in crate::retrieve) fn ranked(
    index: &Index,
    under: &str,
    cancel: &Cancel,
) -> Result<Vec<(u32, f32)>> {
    let mut central = index
        .central
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut out = Vec::new();
    for (fid, meta) in index.files.iter().enumerate() {
        let Some(meta) = meta else { continue };
        if !is_under(&meta.rel, under) {
            continue;
        }
        if fid % 256 == 0 {
            cancel.check()?;
        }
        let fid = fid as u32;
        out.push((fid, central.of(index, fid)));
    }
    drop(central);
    let path_of = |f: u32| index.files[f as usize].as_ref().map(|m| m.rel.as_str());
    out.sort_by(|a, b| {
        b.1.total_cmp(&a.1)
            .then_with(|| path_of(a.0).cmp(&path_of(b.0)))
    });
    Ok(out)
}

/// Whether the root-relative path `rel` lies under the folder `under` (empty: the root).
pub(in crate::retrieve) fn is_under(rel: &str, under: &str) -> bool {
    under.is_empty()
        || rel
            .strip_prefix(under)
            .is_some_and(|rest| rest.starts_with('/'))
}

impl Index {
    /// What ranking keeps of files' centrality ([`Central`]), to change it (a panic that
    /// poisoned its lock left nothing half-changed that a fresh value would not replace).
    pub(in crate::retrieve) fn central_mut(&mut self) -> &mut Central {
        self.central
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Heap bytes of what ranking keeps of files' centrality ([`Central`]: the names each file
    /// defines, recorded as it is indexed and saved with the index).
    pub(in crate::retrieve) fn central_bytes(&self) -> usize {
        self.central.lock().map_or(0, |c| c.heap_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_record_is_restored_only_when_well_formed() {
        let mut c = Central::default();
        c.record(0, &mut vec![7, 2, 2, 0]);
        c.record(2, &mut Vec::new());
        let runs: Vec<Option<&[u8]>> = (0..3).map(|f| c.recorded(f)).collect();
        assert_eq!(runs, vec![Some(&[0u8, 2, 5][..]), None, Some(&[][..])]);
        let back = Central::restored(&runs, 8).expect("well formed");
        for f in 0..3 {
            assert_eq!(back.recorded(f), c.recorded(f));
        }
        assert!(
            Central::restored(&runs, 7).is_none(),
            "a term id out of range"
        );
        assert!(
            Central::restored(&[Some(&[1, 0][..])], 8).is_none(),
            "a repeated id"
        );
        assert!(
            Central::restored(&[Some(&[0x80][..])], 8).is_none(),
            "a cut number"
        );
    }

    /// Term ids of `index`, and each one's users as [`term_users`] and the posting-by-posting
    /// reference give them (asserted equal).
    fn users_of_every_term(index: &Index) -> Vec<(u32, u32)> {
        (0..index.terms.len() as u32)
            .map(|t| {
                let users = term_users(index, t);
                assert_eq!(users, term_users_reference(index, t), "term {t}");
                users
            })
            .collect()
    }

    fn value(users: usize) -> u32 {
        ((users as f64).ln_1p() * UNIT).round() as u32
    }

    #[test]
    fn users_read_ahead_equal_the_walk_after_adds_rewrites_and_deletes() {
        use crate::fs_scope::Scope;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let write = |rel: &str, text: &str| {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        // More users than a group read ahead, some with several chunks using the name.
        write(
            "core.c",
            "int start_engine(int x)\n{\n\treturn x;\n}\n\nint lonely_helper(void)\n{\n\treturn 1;\n}\n",
        );
        for k in 0..40 {
            let mut text = String::new();
            for f in 0..=(k % 3) {
                text.push_str(&format!(
                    "int user{k}_part{f}(void)\n{{\n\treturn start_engine({f});\n}}\n\n"
                ));
            }
            write(&format!("users/u{k:02}.c"), &text);
        }
        let mut index = Index::new(Scope::new(root).unwrap(), 1000);
        index.set_watching(false);
        index.refresh(&std::sync::atomic::AtomicUsize::new(0));
        let start = index.terms.get("start_engine").expect("a term");
        let lonely = index.terms.get("lonely_helper").expect("a term");
        let core = index.by_path["core.c"];
        let all = users_of_every_term(&index);
        assert_eq!(all[start as usize], (core, value(40)));
        assert_eq!(all[lonely as usize], (u32::MAX, 0), "used by no other file");

        // Rewrites (one user stops using the name), deletes, and a file that uses it.
        std::thread::sleep(std::time::Duration::from_millis(20));
        write("users/u03.c", "int user3_gone(void)\n{\n\treturn 0;\n}\n");
        for k in [5, 17, 29] {
            std::fs::remove_file(root.join(format!("users/u{k:02}.c"))).unwrap();
        }
        write(
            "late.c",
            "int late(void)\n{\n\treturn start_engine(2) + lonely_helper();\n}\n",
        );
        index.refresh(&std::sync::atomic::AtomicUsize::new(0));
        assert!(
            index.dead_chunks > 0,
            "the old chunks are still in the lists"
        );
        let all = users_of_every_term(&index);
        assert_eq!(all[start as usize], (core, value(40 - 4 + 1)));
        assert_eq!(all[lonely as usize], (core, value(1)));

        // A second file defining the name: it says nothing of which one is used.
        std::thread::sleep(std::time::Duration::from_millis(20));
        write(
            "users/u39.c",
            "int start_engine(int y)\n{\n\treturn y + 1;\n}\n",
        );
        index.refresh(&std::sync::atomic::AtomicUsize::new(0));
        let all = users_of_every_term(&index);
        assert_eq!(all[start as usize], (u32::MAX, 0));
    }
}
