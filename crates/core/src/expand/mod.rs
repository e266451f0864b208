//! Context expansion: widen a retrieved chunk with the lines around it in its file
//! (context-expansion-spec v0.7.4g), or to the code block that encloses it.
//!
//! A chunk names a file relative to a workspace and a 1-based, inclusive line range. Line mode
//! (the spec's) returns lines `startLine - contextLines ..= endLine + contextLines`, clamped to
//! the file: lines 25-30 with 5 context lines give lines 20-35. Structure mode returns the
//! smallest function, method, class (struct, interface, impl, ...) enclosing the chunk, from
//! [`crate::syntax`], at most [`ExpandOptions::max_lines`] lines, and falls back to line mode
//! for languages without a grammar or when no block encloses the chunk.
//!
//! Expansion never fails for reasons of the file: a missing, unreadable, binary or too large
//! file, a path that leaves the workspace, an empty file or a range outside the file all
//! return the chunk's own content, with the [`Reason`] in the [`Expansion`]. `contextLines <=
//! 0` returns the content unchanged.
//!
//! Secrets in the expanded text are redacted by default ([`ExpandOptions::redact`]), from the
//! whole file's redaction, so a key block cut by the range is still caught.
//!
//! Files are read only through [`Scope`] (the chunk's path is resolved with
//! [`Scope::resolve_within`], so `..`, absolute paths elsewhere and symlinks leading out are
//! refused) and kept in a [`FileCache`] that is bounded, expires entries and revalidates every
//! hit against the file's metadata.

mod cache;
mod watch;

#[cfg(test)]
mod tests;

pub use cache::{CacheConfig, CacheStats, FileCache, FileLines, Redaction, RACY_WINDOW};
pub use watch::{Watches, MAX_WATCHED_ROOTS};

use crate::fs_scope::{ReadError, ReadLimits, Scope};
use crate::syntax::{DefKind, Lang};

/// Default cap of a structure-mode expansion, in lines.
pub const DEFAULT_MAX_LINES: usize = 200;

/// A piece of a file to expand (the spec's `TextChunk`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TextChunk {
    /// The chunk's text, returned unchanged whenever expansion does not happen.
    pub content: String,
    /// The file, relative to the workspace (an absolute path inside it is accepted too).
    pub file_path: String,
    /// First line, 1-based.
    pub start_line: usize,
    /// Last line, 1-based, inclusive.
    pub end_line: usize,
    /// The language as the chunker named it (`"typescript"`, `"python"`...), if known.
    pub language: Option<String>,
}

/// A retrieval result to expand (the spec's `KnowledgeChunk`); expansion uses only the fields
/// it shares with [`TextChunk`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct KnowledgeChunk {
    /// The result's identifier, if it has one.
    pub id: Option<String>,
    /// The chunk's text.
    pub content: String,
    /// The file, relative to the workspace.
    pub file_path: String,
    /// First line, 1-based.
    pub start_line: usize,
    /// Last line, 1-based, inclusive.
    pub end_line: usize,
    /// The language, if known.
    pub language: Option<String>,
    /// The retrieval score, if any.
    pub score: Option<f64>,
}

impl From<&KnowledgeChunk> for TextChunk {
    /// The spec's conversion: content, file path, lines and language carry over.
    fn from(k: &KnowledgeChunk) -> TextChunk {
        TextChunk {
            content: k.content.clone(),
            file_path: k.file_path.clone(),
            start_line: k.start_line,
            end_line: k.end_line,
            language: k.language.clone(),
        }
    }
}

/// How to widen a chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// `contextLines` lines on each side (the spec's behaviour).
    #[default]
    Lines,
    /// To the smallest enclosing function, method or class, falling back to `Lines`.
    Structure,
}

impl Mode {
    /// `"lines"` or `"structure"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Mode::Lines => "lines",
            Mode::Structure => "structure",
        }
    }
}

/// Options of [`expand`].
#[derive(Debug, Clone)]
pub struct ExpandOptions {
    /// Default [`Mode::Lines`].
    pub mode: Mode,
    /// Most lines a structure-mode expansion returns (a larger block is cut around the chunk).
    /// Default [`DEFAULT_MAX_LINES`].
    pub max_lines: usize,
    /// How files are read. Default [`ReadLimits::default`] (8 MiB, lines over 2000 characters
    /// cut).
    pub limits: ReadLimits,
    /// Replace secrets in the expanded text by `[REDACTED:<kind>]` ([`crate::secrets`]), as
    /// retrieval does with its snippets. Default true.
    pub redact: bool,
}

impl Default for ExpandOptions {
    fn default() -> Self {
        ExpandOptions {
            mode: Mode::Lines,
            max_lines: DEFAULT_MAX_LINES,
            limits: ReadLimits::default(),
            redact: true,
        }
    }
}

/// Why a chunk was returned unexpanded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// `contextLines <= 0`.
    NoContext,
    /// The workspace path is not an absolute path to an existing directory.
    InvalidWorkspace,
    /// The chunk's path is malformed (empty, NUL byte).
    InvalidPath,
    /// The chunk's path leads outside the workspace (`..`, another absolute path, a symlink).
    OutsideWorkspace,
    /// The file does not exist.
    NotFound,
    /// The path is a directory, FIFO, socket or device.
    NotAFile,
    /// The file is larger than the read limit.
    TooLarge,
    /// The file looks binary.
    Binary,
    /// The file could not be read (permissions, symlink loop, I/O error).
    Unreadable,
    /// The file is empty.
    EmptyFile,
    /// The chunk's lines are outside the file.
    OutOfRange,
    /// `endLine` is before `startLine`.
    InvalidRange,
}

impl Reason {
    /// The `snake_case` name shown to JavaScript (`"not_found"`, `"out_of_range"`...).
    pub const fn as_str(self) -> &'static str {
        match self {
            Reason::NoContext => "no_context",
            Reason::InvalidWorkspace => "invalid_workspace",
            Reason::InvalidPath => "invalid_path",
            Reason::OutsideWorkspace => "outside_workspace",
            Reason::NotFound => "not_found",
            Reason::NotAFile => "not_a_file",
            Reason::TooLarge => "too_large",
            Reason::Binary => "binary",
            Reason::Unreadable => "unreadable",
            Reason::EmptyFile => "empty_file",
            Reason::OutOfRange => "out_of_range",
            Reason::InvalidRange => "invalid_range",
        }
    }

    fn of(e: &ReadError) -> Reason {
        match e {
            ReadError::NotFound { .. } => Reason::NotFound,
            ReadError::Escape { .. } => Reason::OutsideWorkspace,
            ReadError::InvalidPath { .. } => Reason::InvalidPath,
            ReadError::NotRegularFile { .. } => Reason::NotAFile,
            ReadError::TooLarge { .. } => Reason::TooLarge,
            ReadError::Binary { .. } => Reason::Binary,
            ReadError::SymlinkLoop { .. }
            | ReadError::PermissionDenied { .. }
            | ReadError::Io { .. } => Reason::Unreadable,
        }
    }
}

/// Why structure mode used line mode instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fallback {
    /// No grammar for the file's language.
    UnsupportedLanguage,
    /// No function, method or class encloses the chunk (or the file did not parse).
    NoEnclosingBlock,
}

impl Fallback {
    /// `"unsupported_language"` or `"no_enclosing_block"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Fallback::UnsupportedLanguage => "unsupported_language",
            Fallback::NoEnclosingBlock => "no_enclosing_block",
        }
    }
}

/// The outcome of [`expand`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expansion {
    /// The expanded text, or the chunk's content when `expanded` is false.
    pub content: String,
    /// First line of `content` in the file (the chunk's own when not expanded).
    pub start_line: usize,
    /// Last line of `content`, inclusive (the chunk's own when not expanded).
    pub end_line: usize,
    /// True when `content` was taken from the file.
    pub expanded: bool,
    /// Why not, when `expanded` is false.
    pub reason: Option<Reason>,
    /// The mode that produced `content` (`Lines` after a structure-mode fallback).
    pub mode: Mode,
    /// The kind of the enclosing block, in structure mode.
    pub block_kind: Option<DefKind>,
    /// Why structure mode fell back to line mode.
    pub fallback: Option<Fallback>,
    /// True when a structure-mode block was longer than `max_lines` and was cut around the
    /// chunk.
    pub clipped: bool,
    /// The secrets replaced by `[REDACTED:<kind>]` in `content`: kind and 1-based file line
    /// (the range's first line for a key block that starts before it), never the value.
    pub redactions: Vec<crate::secrets::Redaction>,
}

impl Expansion {
    fn unchanged(chunk: &TextChunk, reason: Reason) -> Expansion {
        Expansion {
            content: chunk.content.clone(),
            start_line: chunk.start_line,
            end_line: chunk.end_line,
            expanded: false,
            reason: Some(reason),
            mode: Mode::Lines,
            block_kind: None,
            fallback: None,
            clipped: false,
            redactions: Vec::new(),
        }
    }
}

/// The spec's range arithmetic: 0-based `[start, end)` indices of lines `start_line -
/// context ..= end_line + context` (1-based) clamped to a file of `line_count` lines, or `None`
/// when nothing of the range is in the file.
pub fn line_range(
    start_line: usize,
    end_line: usize,
    context: usize,
    line_count: usize,
) -> Option<(usize, usize)> {
    let start = start_line.saturating_sub(context).saturating_sub(1);
    let end = end_line.saturating_add(context).min(line_count);
    (start < line_count && end > start).then_some((start, end))
}

/// Expands `chunk`, a file under `workspace`, by `context_lines` lines on each side (or to its
/// enclosing block in [`Mode::Structure`]). Never fails: see the module docs for what happens
/// instead.
pub fn expand(
    cache: &FileCache,
    workspace: &str,
    chunk: &TextChunk,
    context_lines: i64,
    options: &ExpandOptions,
) -> Expansion {
    if context_lines <= 0 {
        return Expansion::unchanged(chunk, Reason::NoContext);
    }
    if chunk.end_line < chunk.start_line {
        return Expansion::unchanged(chunk, Reason::InvalidRange);
    }
    let Ok(scope) = Scope::new(workspace) else {
        return Expansion::unchanged(chunk, Reason::InvalidWorkspace);
    };
    let lines = match scope
        .resolve_within(&chunk.file_path)
        .and_then(|resolved| cache.lines(&scope, &resolved, &options.limits))
    {
        Ok(lines) => lines,
        Err(e) => {
            let reason = match Reason::of(&e) {
                // `..` is refused outright (it could leave the workspace through a symlink).
                Reason::InvalidPath if has_parent_component(&chunk.file_path) => {
                    Reason::OutsideWorkspace
                }
                other => other,
            };
            return Expansion::unchanged(chunk, reason);
        }
    };
    if lines.is_empty() {
        return Expansion::unchanged(chunk, Reason::EmptyFile);
    }
    let context = usize::try_from(context_lines).unwrap_or(usize::MAX);
    let Some((start, end)) = line_range(chunk.start_line, chunk.end_line, context, lines.len())
    else {
        return Expansion::unchanged(chunk, Reason::OutOfRange);
    };
    // Lines `a..b` (0-based, end exclusive), redacted when asked.
    let text_of = |a: usize, b: usize| -> (String, Vec<crate::secrets::Redaction>) {
        if !options.redact {
            return (lines.slice(a, b).to_owned(), Vec::new());
        }
        match lines.redacted() {
            None => (lines.slice(a, b).to_owned(), Vec::new()),
            Some(r) if r.lines.len() == lines.len() => {
                (r.lines.slice(a, b).to_owned(), r.report_in(a, b))
            }
            // Redaction always keeps the line count; should it not, redact the slice alone.
            Some(_) => {
                let (text, mut report) = crate::secrets::redact_reported(lines.slice(a, b));
                crate::secrets::shift_lines(&mut report, a);
                (text, report)
            }
        }
    };
    let by_lines = |fallback: Option<Fallback>| {
        let (content, redactions) = text_of(start, end);
        Expansion {
            content,
            start_line: start + 1,
            end_line: end,
            expanded: true,
            reason: None,
            mode: Mode::Lines,
            block_kind: None,
            fallback,
            clipped: false,
            redactions,
        }
    };
    if options.mode == Mode::Lines {
        return by_lines(None);
    }
    // Structure mode: the chunk's lines within the file.
    let first = chunk.start_line.max(1);
    let last = chunk.end_line.min(lines.len());
    if first > last {
        return by_lines(Some(Fallback::NoEnclosingBlock));
    }
    let lang = Lang::from_path(&chunk.file_path)
        .or_else(|| chunk.language.as_deref().and_then(Lang::from_name));
    let Some(lang) = lang else {
        return by_lines(Some(Fallback::UnsupportedLanguage));
    };
    let defs = lines.definitions(lang);
    let block = defs
        .iter()
        .filter(|d| d.encloses(first, last))
        .min_by_key(|d| (d.line_count(), std::cmp::Reverse(d.start_line)));
    let Some(block) = block else {
        return by_lines(Some(Fallback::NoEnclosingBlock));
    };
    let block_end = block.end_line.min(lines.len());
    let (s, e, clipped) = clip(block.start_line, block_end, first, last, options.max_lines);
    let (content, redactions) = text_of(s - 1, e);
    Expansion {
        content,
        start_line: s,
        end_line: e,
        expanded: true,
        reason: None,
        mode: Mode::Structure,
        block_kind: Some(block.kind),
        fallback: None,
        clipped,
        redactions,
    }
}

fn has_parent_component(path: &str) -> bool {
    path.split(['/', '\\']).any(|part| part == "..")
}

/// Cuts the block `bs..=be` to at most `max` lines that keep the chunk `cs..=ce` (inside it),
/// splitting the remaining lines evenly before and after the chunk. A chunk longer than `max`
/// is kept whole. Returns 1-based inclusive lines and whether anything was cut.
fn clip(bs: usize, be: usize, cs: usize, ce: usize, max: usize) -> (usize, usize, bool) {
    let len = be + 1 - bs;
    if len <= max {
        return (bs, be, false);
    }
    let chunk = ce + 1 - cs;
    if chunk >= max {
        return (cs, ce, true);
    }
    let room = max - chunk;
    let above = cs - bs;
    let below = be - ce;
    let mut before = above.min(room / 2);
    let after = below.min(room - before);
    before = above.min(room - after);
    (cs - before, ce + after, true)
}
