//! Token counting: the context-builder spec's estimate and exact BPE counts.

use std::fmt;

use super::bpe::{self, Bpe};

/// Approximate token count, exactly as the context-builder spec defines it: characters
/// divided by four, rounded up.
///
/// "Characters" are Unicode scalar values (`text.chars().count()`), not bytes and not
/// grapheme clusters, so `"é"` (one scalar) counts as one character whether the input is
/// ASCII or not. Rounding up means any non-empty text costs at least one token; `""` costs 0.
///
/// ```
/// use context_engine_core::budget::estimate_tokens;
/// assert_eq!(estimate_tokens(""), 0);
/// assert_eq!(estimate_tokens("abcd"), 1);
/// assert_eq!(estimate_tokens("abcde"), 2);
/// ```
pub fn estimate_tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

/// A byte-pair encoding of `OpenAI`'s, as named by tiktoken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Encoding {
    /// `o200k_base` (GPT-4o and later). The default.
    #[default]
    O200kBase,
    /// `cl100k_base` (GPT-4, GPT-3.5).
    Cl100kBase,
}

impl Encoding {
    /// The tiktoken name: `"o200k_base"` or `"cl100k_base"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
        }
    }

    /// Parses a tiktoken name. Accepts the exact names `"o200k_base"` and `"cl100k_base"`
    /// and the short forms `"o200k"` and `"cl100k"`; anything else (including other case
    /// or surrounding spaces) is `None`, so a caller can report the bad value as is.
    pub fn parse(s: &str) -> Option<Encoding> {
        match s {
            "o200k_base" | "o200k" => Some(Encoding::O200kBase),
            "cl100k_base" | "cl100k" => Some(Encoding::Cl100kBase),
            _ => None,
        }
    }

    /// The process-wide tokenizer: built from the encoding's token list on first use (see
    /// [`bpe`]), thread-safe, shared afterwards and never rebuilt.
    pub(crate) fn tokenizer(self) -> &'static Bpe {
        bpe::get(self)
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Exact token count of `text` under `encoding`, identical to tiktoken's
/// `len(enc.encode_ordinary(text))` (special tokens are treated as ordinary text).
///
/// The first count of an encoding in a process builds its tables (see [`Encoding`]). The
/// empty string is 0 tokens.
pub fn count_tokens(text: &str, encoding: Encoding) -> usize {
    if text.is_empty() {
        return 0;
    }
    encoding.tokenizer().count(text)
}

/// How [`fit_to_budget`](super::fit_to_budget) and callers measure text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Counter {
    /// Exact BPE count with [`count_tokens`].
    Exact(Encoding),
    /// The spec's estimate, [`estimate_tokens`]. Much cheaper; within about 20% of the exact
    /// count for typical source code (the spec's accuracy criterion).
    Estimate,
}

impl Default for Counter {
    /// `Exact(O200kBase)`.
    fn default() -> Self {
        Counter::Exact(Encoding::O200kBase)
    }
}

impl Counter {
    /// The token count of `text` by this counter.
    pub fn count(&self, text: &str) -> usize {
        match *self {
            Counter::Exact(encoding) => count_tokens(text, encoding),
            Counter::Estimate => estimate_tokens(text),
        }
    }
}
