//! context-engine: ranked, safe, fast code context for coding agents.
//!
//! This crate is the pure-Rust core of the `context-engine` Node.js addon: one folder per
//! capability, no N-API types anywhere, so every capability is usable and tested from plain
//! Rust. The addon's binding crate (the package root's `src/`) only converts arguments and
//! results.
//!
//! Each public module is one capability and exports what its callers use (`pub use` in the
//! module); its own files are private. [`fs_scope`], [`git`] and `stamp` (file stamps) serve
//! the capabilities and are not exported.
//!
//! - [`error`]: the one error type; its kind becomes `err.code` in JavaScript.
//! - [`fs_scope`]: the one place a path is resolved against a root, opened and read.
//! - [`secrets`]: detection and redaction of credentials in text.
//! - [`budget`]: token estimation, exact BPE counts, truncation and budget fitting.
//! - [`retrieve`]: ranked snippets for a prompt over a repository (the retrieval contract).
//! - [`remote`]: remote file context from Gitea (Hound as fallback) and a Hound search client.
//! - [`expand`]: widening chunks by lines or to their enclosing block, with a file cache.
//! - [`syntax`]: the language registry: tree-sitter structure (languages, definitions,
//!   enclosing blocks, syntax-aware chunks).
//! - [`symbols`]: symbol search by wildcard name, kind, language and repository.
//! - [`stats`]: repository statistics (files, lines, bytes per language).
//! - [`builders`]: implementation, review, fix and issue contexts for agent prompts.
//! - [`git`]: the `git` command-line runner (timeouts, output caps, classified failures).
//! - [`inject`]: context sources (directory, file, diff, pull request) and their composition.
//! - [`cancel`]: the cancellation flag and deadline long work checks.
//! - [`engine`]: long-lived state (indexes, caches, clients) behind the `ContextEngine` class.

// Module docs explain each capability's steps to its maintainers too, naming private items;
// those links resolve in `cargo doc --document-private-items`.
#![allow(rustdoc::private_intra_doc_links)]
#![warn(missing_docs)]
// Test functions may be long and build strings the simplest way; the library code may not.
#![cfg_attr(
    test,
    allow(clippy::too_many_lines, clippy::format_collect, clippy::float_cmp)
)]

pub mod budget;
pub mod builders;
pub(crate) mod cache_file;
pub mod cancel;
pub mod engine;
pub mod error;
pub mod expand;
pub(crate) mod fs_scope;
pub(crate) mod git;
pub mod inject;
pub(crate) mod newlines;
pub mod remote;
pub mod retrieve;
pub mod secrets;
pub(crate) mod stamp;
pub mod stats;
pub mod symbols;
pub mod syntax;
#[doc(hidden)]
#[cfg(any(test, feature = "test-support"))]
pub mod test_rng;
#[cfg(test)]
pub(crate) mod test_support;

pub use error::{Error, ErrorKind, Result};
