//! Several roots in one call: the indexes of a list of roots (the folders of a multi-root
//! workspace, the roots an MCP client lists, the packages of a monorepo) ranked as one
//! collection, with one merged list of snippets, each with its root.
//!
//! Each root keeps its own index, built, refreshed, saved and evicted as a single-root call
//! would; only the ranking is shared. So that a score in one root compares with a score in
//! another, the statistics BM25 reads (chunk and file counts, average lengths, every query
//! term's document frequencies over chunks, files, paths and definitions) are summed over all
//! the roots of the call ([`Collection`]) and every root is scored with them: the ranking is
//! the one a single index over the union of the roots would give, the priors that only read
//! a file's own root (its role, its centrality in its root, a companion header beside it)
//! aside. The steps that lift files relative to the top one (the exact definition of a short
//! prompt's symbol, a pasted message) use the merged ranking's best score and window.
//!
//! Ties across roots go by the roots' canonical paths, then as within one root (path, line),
//! so equal inputs give the same order whatever order the roots were listed in.

use std::path::PathBuf;
use std::sync::{Arc, MutexGuard};

use super::index::Index;
use super::query::rank::{self, idf, Collection, FileHit, Query, SharedIdf};
use super::{query, Retrieval, Slot, Snippet, SnippetOptions, MAX_LIMIT, MAX_PROMPT_BYTES};
use crate::cancel::Cancel;
use crate::fs_scope::Scope;
use crate::{Error, Result};

/// Most roots one call may list.
pub const MAX_ROOTS_PER_CALL: usize = 64;

/// A retrieval request over several roots, validated.
#[derive(Debug, Clone)]
pub struct RootsRequest {
    /// What the agent is asked to do.
    pub prompt: String,
    /// Absolute paths of the roots, at least one, at most [`MAX_ROOTS_PER_CALL`].
    pub roots: Vec<String>,
    /// Snippets wanted in all; capped to [`MAX_LIMIT`].
    pub limit: usize,
}

/// A snippet of one of the roots of a [`RootsRequest`].
#[derive(Debug, Clone, PartialEq)]
pub struct RootSnippet {
    /// The root, as the request listed it.
    pub root: String,
    /// The snippet; its path is relative to `root`.
    pub snippet: Snippet,
}

/// The roots of a request that are searched: their scopes, canonical roots and the strings
/// the caller gave, sorted by canonical root. A root listed twice (the same directory after
/// following symlinks) counts once, as first listed; a root inside another root of the list
/// is dropped (the outer root holds its files, which are ranked once, under it).
pub(crate) struct Roots {
    pub scopes: Vec<(Scope, String)>,
}

/// Checks the length of a list of roots: at least one, at most [`MAX_ROOTS_PER_CALL`].
pub fn check_roots(roots: &[String]) -> Result<()> {
    if roots.is_empty() {
        return Err(Error::invalid_request(
            "rootPaths must list at least one root",
        ));
    }
    if roots.len() > MAX_ROOTS_PER_CALL {
        return Err(Error::invalid_request(format!(
            "rootPaths lists too many roots (at most {MAX_ROOTS_PER_CALL})"
        )));
    }
    Ok(())
}

/// Checks `roots` (count, each an absolute path of a directory) and resolves them (see
/// [`Roots`]). `max_kept`: the roots the engine keeps indexes of; a list needing more is
/// refused rather than evicting its own indexes on every call.
pub(crate) fn resolve(roots: &[String], max_kept: usize) -> Result<Roots> {
    check_roots(roots)?;
    let mut scopes: Vec<(Scope, String)> = Vec::with_capacity(roots.len());
    for (i, root) in roots.iter().enumerate() {
        let scope = Scope::new(root).map_err(|e| renamed(&e, i))?;
        if scopes.iter().any(|(s, _)| s.root() == scope.root()) {
            continue;
        }
        scopes.push((scope, root.clone()));
    }
    // Drop the roots inside another (a canonical path is a prefix of another's by whole
    // components: `Path::starts_with`).
    let all: Vec<PathBuf> = scopes.iter().map(|(s, _)| s.root().to_path_buf()).collect();
    scopes.retain(|(s, _)| {
        !all.iter()
            .any(|other| other != s.root() && s.root().starts_with(other))
    });
    if scopes.len() > max_kept {
        return Err(Error::invalid_request(format!(
            "rootPaths lists {} roots but the engine keeps the indexes of {} (raise maxRoots)",
            scopes.len(),
            max_kept
        )));
    }
    scopes.sort_by(|a, b| a.0.root().cmp(b.0.root()));
    Ok(Roots { scopes })
}

/// A root's error named after its place in the list (`rootPaths[2] is not a directory`).
fn renamed(e: &Error, i: usize) -> Error {
    let message = e
        .message()
        .replacen("rootPath", &format!("rootPaths[{i}]"), 1);
    let out = Error::new(e.kind(), message);
    match e.reason() {
        Some(r) => out.with_reason(r),
        None => out,
    }
}

/// The collection statistics of `indexes` for `query` ([`Collection`]): the terms selected
/// as [`rank`]'s `select_terms` selects them in one index, but over the union, and their
/// idfs from the summed counts.
pub(crate) fn collection(indexes: &[&Index], query: &Query) -> Collection {
    let sum = |f: fn(&Index) -> u64| indexes.iter().map(|i| f(i)).sum::<u64>();
    let n_chunks = sum(|i| i.live_chunks).max(1) as f32;
    let n_files = sum(|i| i.live_files).max(1) as f32;
    let avg_chunk = (sum(|i| i.live_chunk_tokens) as f32 / n_chunks).max(1.0);
    let avg_file = (sum(|i| i.live_file_tokens) as f32 / n_files).max(1.0);
    let ids = |t: &str| -> Vec<Option<u32>> { indexes.iter().map(|i| i.terms.get(t)).collect() };
    // The counts of each selected term over every root, as step 2 counts them in one.
    let mut max_idf = 0.0f32;
    let mut terms = Vec::new();
    for (t, weight, path_only, folder_only) in selected_terms(indexes, query) {
        let (mut chunks, mut files, mut paths, mut defs) = (0usize, 0usize, 0usize, 0usize);
        for (index, id) in indexes.iter().zip(ids(&t)) {
            let Some(id) = id else { continue };
            if !path_only {
                let c = counts(index, id);
                chunks += c.0;
                files += c.1;
                defs += c.2;
            }
            paths += index.path_postings[id as usize]
                .iter()
                .filter(|&&f| index.files[f as usize].is_some())
                .count();
        }
        let idfs = SharedIdf {
            chunks: idf(n_chunks, chunks as f32),
            files: idf(n_files, files as f32),
            paths: idf(n_files, paths as f32),
            defs: idf(n_files, defs as f32),
        };
        if chunks > 0 {
            max_idf = max_idf.max(idfs.files);
        }
        if paths > 0 {
            max_idf = max_idf.max(idfs.paths);
        }
        terms.push((t, weight, path_only, folder_only, idfs));
    }
    Collection {
        n_chunks,
        n_files,
        avg_chunk,
        avg_file,
        max_idf,
        terms,
        word_weights: word_weights(indexes, query, n_chunks),
    }
}

/// Step 1 of the ranking over the union of `indexes`: the known terms (when there are too
/// many, those [`kept_first`](rank::kept_first)), then the path forms of words no path
/// holds (and the agent forms naming folders of those some path holds, one-line prompts),
/// then the phrases, as (term, weight, path only, folders only).
fn selected_terms(indexes: &[&Index], query: &Query) -> Vec<(String, f32, bool, bool)> {
    let known_anywhere = |t: &str| indexes.iter().any(|i| i.terms.get(t).is_some());
    let in_paths = |t: &str| {
        indexes.iter().any(|i| {
            i.terms
                .get(t)
                .is_some_and(|id| !i.path_postings[id as usize].is_empty())
        })
    };
    let mut known: Vec<(String, f32, usize, usize)> = query
        .terms
        .iter()
        .enumerate()
        .filter_map(|(k, (t, w))| {
            let df: usize = indexes
                .iter()
                .filter_map(|i| {
                    let id = i.terms.get(t.as_str())?;
                    Some(i.postings.len(id) + i.path_postings[id as usize].len())
                })
                .sum();
            (df > 0).then(|| (t.clone(), *w, df, k))
        })
        .collect();
    if known.len() > rank::MAX_QUERY_TERMS {
        known.sort_by(|a, b| rank::kept_first((a.1, a.2, a.3), (b.1, b.2, b.3)));
        known.truncate(rank::MAX_QUERY_TERMS);
        known.sort_by_key(|t| t.3);
    }
    let mut selected: Vec<(String, f32, bool, bool)> = known
        .into_iter()
        .map(|(t, w, _, _)| (t, w, false, false))
        .collect();
    let names_a_folder = |t: &str| {
        indexes
            .iter()
            .any(|i| i.terms.get(t).is_some_and(|id| rank::names_a_folder(i, id)))
    };
    for (t, w) in &query.terms {
        let held = in_paths(t);
        if held && query.lines > 1 {
            continue;
        }
        for (part, form_weight) in rank::weighted_path_forms(t, &query.symbols) {
            if held && (form_weight != rank::W_AGENT_FORM || !names_a_folder(&part)) {
                continue;
            }
            if in_paths(&part) && !selected.iter().any(|s| s.0 == part) {
                selected.push((part.into_owned(), w * form_weight, true, held));
            }
        }
    }
    for (t, w) in &query.synonyms {
        // One look-up per root gives both whether the term is known and its postings.
        let (known, postings) = indexes.iter().fold((false, 0usize), |(known, n), i| {
            match i.terms.get(t.as_str()) {
                Some(id) => (true, n + i.postings.len(id)),
                None => (known, n),
            }
        });
        if known && postings <= rank::MAX_SYNONYM_POSTINGS && !selected.iter().any(|s| s.0 == *t) {
            selected.push((t.clone(), *w, false, false));
        }
    }
    for p in &query.phrases {
        if known_anywhere(p) && !selected.iter().any(|s| s.0 == *p) {
            selected.push((p.clone(), rank::W_PHRASE, false, false));
        }
    }
    selected
}

/// The words of the prompt's messages, weighed over all of `indexes` as `word_weight` weighs
/// them in one index.
fn word_weights(
    indexes: &[&Index],
    query: &Query,
    n_chunks: f32,
) -> rustc_hash::FxHashMap<String, f32> {
    let mut word_weights = rustc_hash::FxHashMap::default();
    for word in query.messages.iter().flatten() {
        if word_weights.contains_key(word.as_str()) {
            continue;
        }
        let mut weight = 0.0f32;
        for t in crate::retrieve::tokenize::terms(word) {
            let lens: Vec<usize> = indexes
                .iter()
                .filter_map(|i| i.terms.get(t.as_str()).map(|id| i.postings.len(id)))
                .collect();
            if !lens.is_empty() {
                weight = weight.max(idf(n_chunks, lens.iter().sum::<usize>() as f32));
            }
        }
        word_weights.insert(word.clone(), weight);
    }
    word_weights
}

/// A term's live chunks, the files they are in, and the files with a chunk that defines it.
/// A posting list is in chunk order and a file's live chunks are consecutive, so a file's
/// postings are too: a file is counted where the file changes.
fn counts(index: &Index, id: u32) -> (usize, usize, usize) {
    let (mut chunks, mut files, mut defs) = (0usize, 0usize, 0usize);
    let (mut last_file, mut last_def) = (u32::MAX, u32::MAX);
    for p in index.postings.list(id) {
        let c = &index.chunks[p.chunk as usize];
        if !c.alive {
            continue;
        }
        chunks += 1;
        if c.file != last_file {
            files += 1;
            last_file = c.file;
        }
        if p.sym > 0 && c.file != last_def {
            defs += 1;
            last_def = c.file;
        }
    }
    (chunks, files, defs)
}

/// How many of each root's hits (each list sorted, best first) are among the best `n` of
/// the merged ranking, and the merged ranking's best score.
fn windows(per_root: &[Vec<FileHit>], n: usize) -> (Vec<usize>, f32) {
    let all = ranked(per_root, n);
    let top = all.first().map_or(0.0, |h| h.2);
    let mut counts = vec![0usize; per_root.len()];
    for &(r, _, _) in &all {
        counts[r] += 1;
    }
    (counts, top)
}

/// The best `n` files of all the roots as one ranking: (root, position in its list, score).
fn ranked(per_root: &[Vec<FileHit>], n: usize) -> Vec<(usize, usize, f32)> {
    // Positions keep each root's own order for ties.
    let mut all: Vec<(usize, usize, f32)> = per_root
        .iter()
        .enumerate()
        .flat_map(|(r, hits)| hits.iter().enumerate().map(move |(k, h)| (r, k, h.score)))
        .collect();
    // Ties by root (canonical order), then as the root's own list has them (by path): as one
    // index over the union orders them.
    all.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.0.cmp(&b.0)).then(a.1.cmp(&b.1)));
    all.truncate(n);
    all
}

impl Retrieval {
    /// Retrieves the snippets for a prompt over several roots ([`RootsRequest`]): each root's
    /// index is built or brought up to date as [`Retrieval::retrieve_cancellable`] does for
    /// one, and they are ranked as one collection (see the module documentation). The
    /// snippets come best first, at most `limit` in all, each with the root it belongs to.
    ///
    /// Errors: `invalid_request` for an empty or too long list of roots, a root that is not
    /// an absolute path to an existing directory (named by its place, `rootPaths[1]`), more
    /// roots than the engine keeps indexes of, or a prompt over [`MAX_PROMPT_BYTES`].
    pub fn retrieve_roots(
        &self,
        request: &RootsRequest,
        options: &SnippetOptions,
        cancel: &Cancel,
    ) -> Result<Vec<RootSnippet>> {
        if request.prompt.len() > MAX_PROMPT_BYTES {
            return Err(Error::invalid_request(format!(
                "prompt is too large (at most {} KiB)",
                MAX_PROMPT_BYTES / 1024
            )));
        }
        let roots = resolve(&request.roots, self.options.max_roots.max(1))?;
        let limit = request.limit.min(MAX_LIMIT);
        let mut query = Query::parse(&request.prompt);
        query.explain = options.explain;
        if query.terms.is_empty() && query.mentions.is_empty() || limit == 0 {
            return Ok(Vec::new());
        }
        let mut names = Vec::with_capacity(roots.scopes.len());
        let mut slots: Vec<(PathBuf, Arc<Slot>)> = Vec::with_capacity(roots.scopes.len());
        for (scope, name) in &roots.scopes {
            let canonical = scope.root().to_path_buf();
            slots.push((canonical.clone(), self.slot(&canonical)));
            names.push(name.clone());
        }
        // Locked in canonical order (the list is sorted): two calls over overlapping roots
        // cannot wait for each other.
        let mut guards: Vec<MutexGuard<'_, Option<Index>>> =
            slots.iter().map(|(_, s)| s.lock_index()).collect();
        for (k, (scope, _)) in roots.scopes.into_iter().enumerate() {
            if let Err(e) = self.up_to_date(&slots[k].1, &mut guards[k], scope, cancel) {
                // The roots not reached yet have no index either: none may stay behind (its
                // status would say "building" for a build that never runs).
                for (g, (_, s)) in guards.iter().zip(&slots) {
                    if g.is_none() {
                        self.forget(s);
                    }
                }
                return Err(e);
            }
        }
        let mut indexes: Vec<&mut Index> = guards.iter_mut().filter_map(|g| g.as_mut()).collect();
        if indexes.len() != slots.len() {
            return Err(Error::internal("internal error: an index was not built"));
        }
        let per_root = rank_roots(&mut indexes, &query, limit, cancel)?;
        let out = merged_snippets(&mut indexes, per_root, limit, *options);
        drop(indexes);
        drop(guards);
        for (canonical, slot) in &slots {
            self.keep(canonical, slot);
        }
        self.enforce_budget_keeping(&slots.iter().map(|s| s.1.clone()).collect::<Vec<_>>());
        Ok(out
            .into_iter()
            .map(|(r, _, snippet)| RootSnippet {
                root: names[r].clone(),
                snippet,
            })
            .collect())
    }
}

/// The ranked files of each root (as `indexes` lists them), scored with the statistics of all
/// of them, then lifted by exact definitions and pasted messages relative to the merged
/// ranking's best file.
fn rank_roots(
    indexes: &mut [&mut Index],
    query: &Query,
    limit: usize,
    cancel: &Cancel,
) -> Result<Vec<Vec<FileHit>>> {
    let shared = {
        let all: Vec<&Index> = indexes.iter().map(|i| &**i).collect();
        collection(&all, query)
    };
    let candidates = if !query.symbols.is_empty() {
        limit.max(rank::EXACT_DEFINITION_CANDIDATES)
    } else if !query.capitals.is_empty() {
        limit.max(rank::EXACT_DEFINITION_FILES)
    } else {
        limit
    };
    let candidates = if query.messages.is_empty() {
        candidates
    } else {
        candidates.max(rank::MESSAGE_FILES)
    };
    let candidates = if query::refs::wanted(query) {
        candidates.max(query::refs::REFERENCE_FILES)
    } else {
        candidates
    };
    let mut per_root: Vec<Vec<FileHit>> = indexes
        .iter()
        .map(|index| rank::rank_shown_in(index, query, candidates, limit, Some(&shared)))
        .collect();
    cancel.check()?;
    let (window, top) = windows(&per_root, rank::EXACT_DEFINITION_FILES);
    for ((index, hits), &w) in indexes.iter_mut().zip(&mut per_root).zip(&window) {
        rank::exact_definitions_in(index, query, hits, top, w);
    }
    let (window, top) = windows(&per_root, rank::MESSAGE_FILES);
    for ((index, hits), &w) in indexes.iter_mut().zip(&mut per_root).zip(&window) {
        rank::message_strings_in(index, query, hits, top, w, Some(&shared));
    }
    // A one-line prompt's best files within reach of a neighbour, over all the roots as one
    // ranking, have their definition lines read.
    let best = ranked(&per_root, rank::DEFINITION_WORDS_FILES);
    let close = rank::within_reach(&best.iter().map(|b| b.2).collect::<Vec<f32>>());
    let mut read: Vec<Vec<bool>> = per_root.iter().map(|h| vec![false; h.len()]).collect();
    for (&(r, k, _), c) in best.iter().zip(close) {
        read[r][k] = c;
    }
    for ((index, hits), read) in indexes.iter_mut().zip(&mut per_root).zip(&read) {
        rank::definition_words_in(index, query, hits, read, Some(&shared));
    }
    // Each root's top files lift the modules they import (a longer prompt).
    for (index, hits) in indexes.iter_mut().zip(&mut per_root) {
        query::refs::references(index, query, hits);
    }
    Ok(per_root)
}

/// The snippets of the best `limit` chunks of all the roots, best first (ties by root, then as
/// the root's own list has them), each with its root's place in `indexes` and in its list.
fn merged_snippets(
    indexes: &mut [&mut Index],
    mut per_root: Vec<Vec<FileHit>>,
    limit: usize,
    options: SnippetOptions,
) -> Vec<(usize, usize, Snippet)> {
    for hits in &mut per_root {
        hits.truncate(limit);
    }
    // Only the chunks among the best `limit` of all the roots are read (as one root reads
    // only its best `limit`): score, then root, then chunk, as the snippets are ordered.
    let mut chunks: Vec<(f32, usize, u32)> = per_root
        .iter()
        .enumerate()
        .flat_map(|(r, hits)| {
            hits.iter()
                .flat_map(move |h| h.chunks.iter().map(move |&(c, s)| (s, r, c)))
        })
        .collect();
    chunks.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    chunks.truncate(limit);
    let mut out: Vec<(usize, usize, Snippet)> = Vec::new();
    for (r, (index, hits)) in indexes.iter_mut().zip(&mut per_root).enumerate() {
        for h in hits.iter_mut() {
            h.chunks
                .retain(|&(c, _)| chunks.iter().any(|&(_, cr, cc)| cr == r && cc == c));
        }
        hits.retain(|h| !h.chunks.is_empty());
        if hits.is_empty() {
            index.bound_residency();
            continue;
        }
        let snippets = query::snippet::snippets(index, hits, limit, options);
        out.extend(snippets.into_iter().enumerate().map(|(k, s)| (r, k, s)));
        index.bound_residency();
    }
    // Best first; ties by root (canonical order), then as the root's own list has them.
    out.sort_by(|a, b| {
        b.2.score
            .total_cmp(&a.2.score)
            .then(a.0.cmp(&b.0))
            .then(a.1.cmp(&b.1))
    });
    out.truncate(limit);
    out
}

#[cfg(test)]
mod tests;
