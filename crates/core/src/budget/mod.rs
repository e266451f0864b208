//! Token budgets: estimation, exact BPE counts, file truncation and budget fitting.
//!
//! This is the Rust form of the utilities of the context-builder spec
//! (`docs/design/context-builder-spec.md`): `estimate_tokens`, `truncate_file`,
//! `fit_to_budget` and their truncation metadata.
//!
//! - [`estimate_tokens`]: the spec's estimate, `ceil(chars / 4)`.
//! - [`count_tokens`] / [`Counter`]: exact counts with `OpenAI`'s `o200k_base` or `cl100k_base`
//!   (tiktoken's algorithm over the token lists, each encoding's tables built on its first
//!   use in a process), or the estimate.
//! - [`truncate_file`] / [`truncate_file_with`]: keep the lines around given line numbers,
//!   `"..."` where lines were removed, over-long lines cut (with the spec's edge cases).
//! - [`fit_to_budget`]: proportional truncation of named sections to a token budget, never
//!   over it, with [`TruncationMetadata`] describing what changed.
//!
//! Everything here is pure, synchronous and deterministic: the same input gives the same
//! output. Nothing fails, so no function returns a `Result`; odd input (zero or out-of-range
//! line numbers, budget 0) has a documented meaning instead.
//!
//! Lines are `split_inclusive('\n')` slices: a kept line keeps its own `\n` or `\r\n`, and
//! `"a\nb"` and `"a\nb\n"` both have two lines.

mod bpe;
mod fit;
mod lines;
mod tokens;
mod truncate;

#[cfg(test)]
mod fixture_tests;
#[cfg(test)]
mod tests;

pub use fit::{
    fit_to_budget, FitOptions, Fitted, TruncationMetadata, DEFAULT_BUDGET, DEFAULT_MIN_LINES,
    MIN_LINE_CAP_TOKENS,
};
pub use lines::MARKER;
pub use tokens::{count_tokens, estimate_tokens, Counter, Encoding};
pub use truncate::{
    truncate_file, truncate_file_with, Truncation, DEFAULT_CONTEXT_LINES, MAX_LINE_CHARS,
    SEVERE_EDGE_LINES,
};
