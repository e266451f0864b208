//! Ranking: what a prompt asks for, and which files and chunks answer it.
//!
//! A prompt becomes weighted terms ([`Query::parse`]): every word once per occurrence
//! (dampened), identifiers in backticks or written in code style (`camelCase`, `snake_case`,
//! `a.b()`) counted more, plus the file paths, file names and stack-trace frames it names.
//!
//! Scores ([`rank`]):
//! - chunk: BM25F over the chunk's text and the names it defines (a definition counts
//!   [`W_SYMBOL`] times a mention), with chunk-length normalization;
//! - file: BM25 over the whole file (sum of its chunks), plus its best chunk, plus the path
//!   field (directory and file names), plus a boost when the prompt names the file.
//!
//! Files are ranked by that score; each file then contributes its best chunk at the file's
//! score and a few further matching chunks at a fraction of it, so one long file cannot fill
//! the list and the top of the list covers many files.

use super::index::Index;
use super::tokenize::for_each_term;

/// BM25 saturation and length normalization, chunk level.
const K1_CHUNK: f32 = 1.2;
const B_CHUNK: f32 = 0.75;
/// BM25 saturation and length normalization, file level.
const K1_FILE: f32 = 1.2;
const B_FILE: f32 = 0.5;
/// How much a definition's name counts over a mention in the text.
const W_SYMBOL: f32 = 4.0;
/// Weight of the path field relative to the file's content score.
const W_PATH: f32 = 1.2;
/// Weight of a file's best chunk in its score.
const W_BEST_CHUNK: f32 = 0.6;
/// Weight of terms from backticks or code-style identifiers.
const W_CODE: f32 = 2.0;
/// Boosts, as multiples of the strongest term's idf, when the prompt names a file.
const MENTION_PATH: f32 = 6.0;
const MENTION_NAME: f32 = 3.0;
/// Extra chunks of one file that may follow its best one.
const EXTRA_CHUNKS: usize = 2;
/// An extra chunk must score at least this fraction of the file's best chunk.
const EXTRA_MIN_RATIO: f32 = 0.5;
/// Most distinct query terms used (long prompts keep their rarest terms).
const MAX_QUERY_TERMS: usize = 64;

/// A parsed prompt.
#[derive(Debug, Clone, Default)]
pub struct Query {
    /// Terms with their weights, in first-occurrence order.
    pub terms: Vec<(String, f32)>,
    /// Paths and file names the prompt names (lowercase, `/`-separated).
    pub mentions: Vec<String>,
}

fn is_code_style(token: &str) -> bool {
    let has_lower = token.chars().any(|c| c.is_lowercase());
    let inner_upper = token.chars().skip(1).any(|c| c.is_uppercase());
    let snake = token.trim_matches('_').contains('_');
    (has_lower && inner_upper) || snake || token.contains("::") || token.ends_with("()")
}

impl Query {
    /// Parses a prompt into weighted terms and mentions.
    pub fn parse(prompt: &str) -> Query {
        let mut weights: Vec<(String, f32, u32)> = Vec::new();
        let mut seen: rustc_hash::FxHashMap<String, usize> = rustc_hash::FxHashMap::default();
        let mut add = |term: &str, w: f32| match seen.get(term) {
            Some(&i) => {
                let e = &mut weights[i];
                e.1 = e.1.max(w);
                e.2 += 1;
            }
            None => {
                seen.insert(term.to_owned(), weights.len());
                weights.push((term.to_owned(), w, 1));
            }
        };
        // Backticked spans count as code.
        for (k, span) in prompt.split('`').enumerate() {
            let in_tick = k % 2 == 1;
            for token in span.split(|c: char| c.is_whitespace() || "\"'(),;[]{}<>".contains(c)) {
                let code = in_tick || is_code_style(token);
                let w = if code { W_CODE } else { 1.0 };
                for_each_term(token, |t, whole| add(t, if whole { w * 1.5 } else { w }));
            }
        }
        let mut terms: Vec<(String, f32)> = weights
            .into_iter()
            .map(|(t, w, n)| (t, w * (1.0 + (n as f32).ln() * 0.5)))
            .collect();
        terms.truncate(MAX_QUERY_TERMS * 4);
        Query {
            terms,
            mentions: mentions(prompt),
        }
    }
}

/// Paths and file names in a prompt: tokens with a `/` or a file extension, and the files of
/// stack-trace frames (`at f (src/a.ts:3:1)`, `File "a.py", line 3`, `src/a.rs:10:5`).
fn mentions(prompt: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for raw in prompt.split(|c: char| c.is_whitespace() || "\"'`(),;[]{}<>=".contains(c)) {
        let mut token = raw.trim_matches(|c: char| matches!(c, '.' | ':' | '!' | '?' | '#'));
        // Drop a trailing `:line[:col]`.
        while let Some((head, tail)) = token.rsplit_once(':') {
            if !tail.is_empty() && tail.bytes().all(|b| b.is_ascii_digit()) {
                token = head;
            } else {
                break;
            }
        }
        let token = token.trim_start_matches("./").replace('\\', "/");
        if token.len() < 3 || token.len() > 300 || token.contains("://") {
            continue;
        }
        let name = token.rsplit('/').next().unwrap_or(&token);
        let has_ext = name
            .rsplit_once('.')
            .is_some_and(|(stem, _)| stem.len() >= 2)
            && super::chunk::language(name).is_some();
        if !(has_ext || token.contains('/')) {
            continue;
        }
        let lower = token.to_lowercase();
        if !out.contains(&lower) {
            out.push(lower);
        }
    }
    out
}

/// A ranked file and its chunks worth showing, best first.
#[derive(Debug, Clone)]
pub struct FileHit {
    /// File id in the index.
    pub file: u32,
    /// The file's score.
    pub score: f32,
    /// `(chunk id, snippet score)`, best first; the first has the file's score.
    pub chunks: Vec<(u32, f32)>,
}

fn idf(n: f32, df: f32) -> f32 {
    (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
}

/// Ranks the files of `index` for `query`; at most `max_files` files, best first, ties broken
/// by path so that equal inputs always give the same order.
pub fn rank(index: &Index, query: &Query, max_files: usize) -> Vec<FileHit> {
    let n_chunks = index.live_chunks.max(1) as f32;
    let n_files = index.live_files.max(1) as f32;
    let avg_chunk = (index.live_chunk_tokens as f32 / n_chunks).max(1.0);
    let avg_file = (index.live_file_tokens as f32 / n_files).max(1.0);

    // Keep the terms the index knows, rarest first when the prompt is long.
    let mut known: Vec<(u32, f32, usize, usize)> = query
        .terms
        .iter()
        .enumerate()
        .filter_map(|(k, (t, w))| {
            let &tid = index.terms.get(t.as_str())?;
            let df = index.postings[tid as usize].len() + index.path_postings[tid as usize].len();
            (df > 0).then_some((tid, *w, df, k))
        })
        .collect();
    if known.len() > MAX_QUERY_TERMS {
        known.sort_by(|a, b| a.2.cmp(&b.2).then(a.3.cmp(&b.3)));
        known.truncate(MAX_QUERY_TERMS);
        known.sort_by_key(|t| t.3);
    }

    let mut chunk_score = vec![0f32; index.chunks.len()];
    let mut file_score = vec![0f32; index.files.len()];
    let mut file_tf = vec![0f32; index.files.len()];
    let mut touched_files: Vec<u32> = Vec::new();
    let mut max_idf = 0f32;

    for &(tid, w, _, _) in &known {
        let list = &index.postings[tid as usize];
        touched_files.clear();
        let mut df_chunks = 0f32;
        for p in list {
            let c = &index.chunks[p.chunk as usize];
            if !c.alive {
                continue;
            }
            df_chunks += 1.0;
            let tf = f32::from(p.tf) + W_SYMBOL * f32::from(p.sym);
            let slot = &mut file_tf[c.file as usize];
            if *slot == 0.0 {
                touched_files.push(c.file);
            }
            *slot += tf;
        }
        if df_chunks > 0.0 {
            let idf_c = idf(n_chunks, df_chunks);
            for p in list {
                let c = &index.chunks[p.chunk as usize];
                if !c.alive {
                    continue;
                }
                let tf = f32::from(p.tf) + W_SYMBOL * f32::from(p.sym);
                let norm = K1_CHUNK * (1.0 - B_CHUNK + B_CHUNK * c.len as f32 / avg_chunk);
                chunk_score[p.chunk as usize] += w * idf_c * tf * (K1_CHUNK + 1.0) / (tf + norm);
            }
            let idf_f = idf(n_files, touched_files.len() as f32);
            max_idf = max_idf.max(idf_f);
            for &f in &touched_files {
                let tf = file_tf[f as usize];
                file_tf[f as usize] = 0.0;
                let len = index.files[f as usize].as_ref().map_or(0, |m| m.len) as f32;
                let norm = K1_FILE * (1.0 - B_FILE + B_FILE * len / avg_file);
                file_score[f as usize] += w * idf_f * tf * (K1_FILE + 1.0) / (tf + norm);
            }
        }
        // Path field.
        let paths = &index.path_postings[tid as usize];
        let live: Vec<u32> = paths
            .iter()
            .copied()
            .filter(|&f| index.files[f as usize].is_some())
            .collect();
        if !live.is_empty() {
            let idf_p = idf(n_files, live.len() as f32);
            max_idf = max_idf.max(idf_p);
            for f in live {
                file_score[f as usize] += W_PATH * w * idf_p;
            }
        }
    }

    // Named files.
    if !query.mentions.is_empty() {
        let boost = max_idf.max(1.0);
        for (fid, meta) in index.files.iter().enumerate() {
            let Some(meta) = meta else { continue };
            let rel = meta.rel.to_lowercase();
            let name = rel.rsplit('/').next().unwrap_or(&rel);
            for m in &query.mentions {
                let m_name = m.rsplit('/').next().unwrap_or(m);
                let suffix = m.contains('/')
                    && (rel.ends_with(&format!("/{m}")) || m.ends_with(&format!("/{rel}")));
                if rel == *m || suffix {
                    file_score[fid] += MENTION_PATH * boost;
                    break;
                } else if name == m_name {
                    file_score[fid] += MENTION_NAME * boost;
                    break;
                }
            }
        }
    }

    // Combine with the best chunk, collect candidates.
    let mut hits: Vec<FileHit> = Vec::new();
    for (fid, meta) in index.files.iter().enumerate() {
        let Some(meta) = meta else { continue };
        let mut best: Vec<(u32, f32)> = meta
            .chunks
            .clone()
            .filter_map(|c| {
                let s = chunk_score[c as usize];
                (s > 0.0).then_some((c, s))
            })
            .collect();
        let base = file_score[fid];
        if base <= 0.0 && best.is_empty() {
            continue;
        }
        best.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let top = best.first().map_or(0.0, |b| b.1);
        let score = base + W_BEST_CHUNK * top;
        if !score.is_finite() || score <= 0.0 {
            continue;
        }
        let mut chunks: Vec<(u32, f32)> = Vec::new();
        match best.first() {
            Some(&(c, _)) => chunks.push((c, score)),
            None => {
                if meta.chunks.start < meta.chunks.end {
                    chunks.push((meta.chunks.start, score));
                }
            }
        }
        for &(c, s) in best.iter().skip(1).take(EXTRA_CHUNKS) {
            if s >= EXTRA_MIN_RATIO * top {
                chunks.push((c, score * 0.5 * s / top));
            }
        }
        if chunks.is_empty() {
            continue;
        }
        hits.push(FileHit {
            file: fid as u32,
            score,
            chunks,
        });
    }
    let path_of = |h: &FileHit| {
        index.files[h.file as usize]
            .as_ref()
            .map(|m| m.rel.as_str())
    };
    hits.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| path_of(a).cmp(&path_of(b)))
    });
    hits.truncate(max_files);
    hits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_code_terms_and_mentions() {
        let q = Query::parse("Fix `parseArgs` crash in src/cli/args.rs:12:5 when FOO is empty");
        let get = |t: &str| q.terms.iter().find(|e| e.0 == t).map(|e| e.1);
        assert!(get("parseargs").unwrap() > get("crash").unwrap());
        assert!(get("arg").is_some());
        assert_eq!(q.mentions, ["src/cli/args.rs"]);
    }

    #[test]
    fn finds_stack_trace_frames() {
        let q = Query::parse(
            "TypeError: x is undefined\n    at handle (/app/src/router.ts:40:11)\n  File \"pkg/mod.py\", line 3, in f",
        );
        assert!(q.mentions.contains(&"/app/src/router.ts".to_owned()));
        assert!(q.mentions.contains(&"pkg/mod.py".to_owned()));
    }

    #[test]
    fn ignores_urls_versions_and_plain_words() {
        let q = Query::parse("see https://example.com/a/b.html for v1.2 and e.g. words");
        assert!(q.mentions.is_empty(), "{:?}", q.mentions);
    }
}
