//! `OpenAI`'s byte-pair encodings, built lazily from their token lists.
//!
//! Each encoding is its token list in rank order (`build.rs` writes it from the `bpe-openai`
//! crate's copy of tiktoken's files: one length byte, then the token's bytes; 0.7 MB for
//! `cl100k_base`, 1.6 MB for `o200k_base`). On first use of an encoding the list becomes a
//! hash map from token bytes to rank (once per process, behind a `LazyLock`), and the
//! pre-tokenization regex is compiled; nothing else is precomputed.
//!
//! Counting is tiktoken's: the text is split into pieces by the encoding's pattern, and each
//! piece is encoded on its own by repeatedly merging the adjacent pair of parts whose
//! concatenation has the lowest rank (the leftmost one on ties), starting from single bytes.
//! A piece that is a token itself is one token without merging. The merge keeps candidate
//! pairs in a heap, so a long piece (a minified line, a run of one letter) costs
//! `O(n log n)`, not tiktoken's `O(n^2)`.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::LazyLock;

use regex_automata::meta::Regex;
use regex_automata::{Anchored, Input};
use rustc_hash::FxBuildHasher;

use super::tokens::Encoding;

/// The pieces tiktoken's `cl100k_base` pattern gives, without its look-ahead (see [`Splits`]).
const CL100K_PATTERN: &str = concat!(
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)",
    r"|[^\r\n\p{L}\p{N}]?\p{L}+",
    r"|\p{N}{1,3}",
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*",
    r"|\s*[\r\n]+",
    r"|\s+$",
);

/// The pieces tiktoken's `o200k_base` pattern gives, without its look-ahead.
const O200K_PATTERN: &str = concat!(
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"|\p{N}{1,3}",
    r"| ?[^\s\p{L}\p{N}]+[\r\n/]*",
    r"|\s*[\r\n]+",
    r"|\s+$",
);

/// The lowest-priority alternative of both patterns; a match of it stands for tiktoken's
/// `\s+(?!\S)|\s+` (see [`Splits`]).
const WHITESPACE_RUN: &str = r"\s+";

static CL100K: LazyLock<Bpe> = LazyLock::new(|| {
    Bpe::new(
        include_bytes!(concat!(env!("OUT_DIR"), "/cl100k_base.tokens")),
        CL100K_PATTERN,
    )
});

static O200K: LazyLock<Bpe> = LazyLock::new(|| {
    Bpe::new(
        include_bytes!(concat!(env!("OUT_DIR"), "/o200k_base.tokens")),
        O200K_PATTERN,
    )
});

/// The process-wide tokenizer of `encoding`, built on first use.
pub(crate) fn get(encoding: Encoding) -> &'static Bpe {
    match encoding {
        Encoding::O200kBase => &O200K,
        Encoding::Cl100kBase => &CL100K,
    }
}

/// One encoding: ranks by token bytes, and its pre-tokenizer.
pub(crate) struct Bpe {
    /// Token bytes (borrowed from the embedded list) to rank.
    ranks: HashMap<&'static [u8], u32, FxBuildHasher>,
    /// The longest token's length in bytes.
    max_token_len: usize,
    /// Alternative 0: the pattern's rules up to `\s+$`; alternative 1: [`WHITESPACE_RUN`].
    pattern: Regex,
}

impl Bpe {
    fn new(list: &'static [u8], pattern: &str) -> Self {
        let mut ranks = HashMap::with_capacity_and_hasher(list.len() / 8, FxBuildHasher);
        let mut rest = list;
        let mut rank = 0u32;
        let mut max_token_len = 0;
        while let Some((&len, tail)) = rest.split_first() {
            let (token, tail) = tail.split_at(usize::from(len));
            ranks.insert(token, rank);
            max_token_len = max_token_len.max(token.len());
            rank += 1;
            rest = tail;
        }
        let pattern =
            Regex::new_many(&[pattern, WHITESPACE_RUN]).expect("the encoding's pattern compiles");
        Bpe {
            ranks,
            max_token_len,
            pattern,
        }
    }

    fn rank(&self, bytes: &[u8]) -> Option<u32> {
        self.ranks.get(bytes).copied()
    }

    /// The pieces of `text`, in order; they concatenate to `text`.
    pub(crate) fn split<'t>(&'t self, text: &'t str) -> Splits<'t> {
        Splits {
            pattern: &self.pattern,
            text,
            at: 0,
        }
    }

    /// Exact token count of `text`.
    pub(crate) fn count(&self, text: &str) -> usize {
        self.split(text)
            .map(|p| self.count_piece(p.as_bytes()))
            .sum()
    }

    /// The count of `text` if it is at most `limit`, else `None`; stops at the first piece
    /// past the limit.
    pub(crate) fn count_till_limit(&self, text: &str, limit: usize) -> Option<usize> {
        let mut total = 0usize;
        for piece in self.split(text) {
            // A piece has at least len / (longest token) tokens: a long piece past the limit is
            // refused without merging it.
            if piece.len().div_ceil(self.max_token_len) > limit - total {
                return None;
            }
            total += self.count_piece(piece.as_bytes());
            if total > limit {
                return None;
            }
        }
        Some(total)
    }

    /// Token count of one piece encoded alone (no pre-tokenization).
    pub(crate) fn count_piece(&self, piece: &[u8]) -> usize {
        if piece.len() <= 1 || self.ranks.contains_key(piece) {
            return piece.len().min(1);
        }
        self.merge(piece).0
    }

    /// Whether `bytes` encodes as exactly two tokens split at `split`.
    fn is_pair(&self, bytes: &[u8], split: usize) -> bool {
        let (parts, next) = self.merge(bytes);
        parts == 2 && next[split] != 0
    }

    /// Byte-pair merging of `bytes` (two bytes or more, less than 4 GiB: inputs are capped far
    /// below) from single bytes; returns the number of parts left and, per position, the end
    /// of the part starting there (0 where no part starts).
    ///
    /// Memory is about 20 bytes per byte of the piece, while it is merged; pieces are words,
    /// numbers, punctuation runs and whitespace runs, so only a run of megabytes of letters or
    /// blanks makes this noticeable.
    fn merge(&self, bytes: &[u8]) -> (usize, Vec<u32>) {
        let n = u32::try_from(bytes.len()).expect("a piece is less than 4 GiB");
        let at = |a: u32, b: u32| &bytes[a as usize..b as usize];
        // Parts are identified by their start `s`: `next[s]` is the part's end, 0 once it was
        // merged into the part on its left; `prev[e]` is the start of the part before the
        // one starting at `e`.
        let mut next: Vec<u32> = (1..=n).collect();
        let mut prev: Vec<u32> = (0..n).map(|i| i.saturating_sub(1)).collect();
        // Candidate merges as (rank, start of the left part, end of the right part). Stale
        // entries are skipped when popped: a pair is current iff its left part still starts
        // at `start` and the part after it still ends at `end` (parts only grow, so then the
        // boundary between them is the one the entry was made for).
        let mut heap = BinaryHeap::with_capacity(bytes.len());
        for s in 0..n - 1 {
            if let Some(r) = self.rank(at(s, s + 2)) {
                heap.push(Reverse((r, s, s + 2)));
            }
        }
        let mut parts = bytes.len();
        while let Some(Reverse((_, start, end))) = heap.pop() {
            let mid = next[start as usize];
            if mid == 0 || mid >= n || next[mid as usize] != end {
                continue;
            }
            next[mid as usize] = 0;
            next[start as usize] = end;
            if end < n {
                prev[end as usize] = start;
                let after = next[end as usize];
                if let Some(r) = self.rank(at(start, after)) {
                    heap.push(Reverse((r, start, after)));
                }
            }
            if start > 0 {
                let left = prev[start as usize];
                if let Some(r) = self.rank(at(left, end)) {
                    heap.push(Reverse((r, left, end)));
                }
            }
            parts -= 1;
        }
        (parts, next)
    }
}

/// The pre-tokenizer's pieces. tiktoken's patterns end in `\s+(?!\S)|\s+`, a look-ahead the
/// `regex` engines do not have. The patterns here end in `\s+$` and a plain `\s+` instead:
/// when the plain run matched (no earlier rule did, the run does not reach the end of the
/// text and holds no line break), tiktoken's `\s+(?!\S)` would have given all of it but its
/// last char, which then starts the next piece; a single char is left whole (`\s+`).
pub(crate) struct Splits<'t> {
    pattern: &'t Regex,
    text: &'t str,
    at: usize,
}

impl<'t> Iterator for Splits<'t> {
    type Item = &'t str;

    fn next(&mut self) -> Option<&'t str> {
        if self.at >= self.text.len() {
            return None;
        }
        let input = Input::new(self.text)
            .range(self.at..)
            .anchored(Anchored::Yes);
        let start = self.at;
        // Every char starts a match of one of the rules; if not, take the rest whole rather
        // than loop.
        let mut end = self.pattern.search(&input).map_or(self.text.len(), |m| {
            let mut end = m.end();
            if m.pattern().as_usize() == 1 {
                let run = &self.text[start..end];
                let last = run.chars().next_back().map_or(0, char::len_utf8);
                if last < run.len() {
                    end -= last;
                }
            }
            end
        });
        if end <= start {
            end = self.text.len();
        }
        self.at = end;
        Some(&self.text[start..end])
    }
}

/// Byte-pair counts of a growing piece (no pre-tokenization): after each push, the count of
/// everything pushed so far, in time linear in the bytes pushed (times the longest token).
///
/// It rests on the property of tiktoken's encodings that the `bpe` crate's appendable
/// encoder uses: the encoding of `text[..i]` ends with the longest token `t` that is a suffix
/// of `text[..i]` and either is all of it or forms, with the last token `u` of the encoding
/// of what precedes it, a pair that encodes as exactly `u`, `t` on its own. So the count of
/// every prefix follows from the counts of the shorter ones.
pub(crate) struct PrefixCounter {
    bpe: &'static Bpe,
    bytes: Vec<u8>,
    /// Per prefix length `i + 1`: the length of the last token of its encoding and its count.
    ends: Vec<(usize, usize)>,
}

impl PrefixCounter {
    pub(crate) fn new(encoding: Encoding) -> Self {
        PrefixCounter {
            bpe: get(encoding),
            bytes: Vec::new(),
            ends: Vec::new(),
        }
    }

    /// Appends `bytes` and returns the count of the whole piece so far.
    pub(crate) fn push(&mut self, bytes: &[u8]) -> usize {
        for &b in bytes {
            self.bytes.push(b);
            let end = self.next_end();
            self.ends.push(end);
        }
        self.ends.last().map_or(0, |&(_, count)| count)
    }

    /// The last token's length and the count of the encoding of all of `bytes`.
    fn next_end(&self) -> (usize, usize) {
        let i = self.bytes.len();
        for len in (1..=i.min(self.bpe.max_token_len)).rev() {
            let start = i - len;
            if !self.bpe.ranks.contains_key(&self.bytes[start..i]) {
                continue;
            }
            if start == 0 {
                return (len, 1);
            }
            let (prev_len, prev_count) = self.ends[start - 1];
            if self.bpe.is_pair(&self.bytes[start - prev_len..i], prev_len) {
                return (len, prev_count + 1);
            }
        }
        // Unreachable for tiktoken's encodings; encode the whole prefix instead.
        (1, self.bpe.count_piece(&self.bytes))
    }
}
