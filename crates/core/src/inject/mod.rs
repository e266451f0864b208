//! Context sources for code-aware prompts (the design record
//! `docs/design/adr-005-context-injection.md`): a directory overview, a file, the working tree's
//! changes and a pull request, each rendered once as text, then composed into one block of at
//! most 5000 characters.
//!
//! The ADR's caps, exactly: a file source keeps at most [`FILE_MAX_LINES`] (150) lines, and the
//! composed context at most [`DEFAULT_MAX_CHARS`] (5000) characters, cut with a visible marker.
//! Each source is also cut at the same character cap by default (a source longer than the whole
//! context can never be shown whole), which keeps a 10,000-file directory or a 50 MB diff from
//! being rendered in full only to be thrown away.
//!
//! "Characters" are UTF-16 code units, so that `text.length <= maxChars` holds in JavaScript.
//! The sources are explicit requests: a missing path is `invalid_request`, a missing `git` or
//! `gh` is `unavailable`, an unauthenticated `gh` is `unauthorized`.

mod declarations;
mod pr;

#[cfg(test)]
mod tests;

use std::path::Path;

use crate::fs_scope::{ReadLimits, Scope};
use crate::git::{Git, GitError};
use crate::secrets::Redaction;
use crate::Error;

pub use declarations::{declarations, Declaration};
pub use pr::{pr_context, Gh, PrRef, PR_FIELDS};

/// The ADR's cap on the composed context, in characters (UTF-16 code units).
pub const DEFAULT_MAX_CHARS: usize = 5000;

/// The ADR's cap on a file source, in lines.
pub const FILE_MAX_LINES: usize = 150;

/// Files listed by a directory source at most.
pub const DIR_MAX_FILES: usize = 200;

/// Declarations shown per file in a directory source at most.
pub const DIR_MAX_DECLARATIONS: usize = 8;

/// Largest file a directory source reads for declarations (larger files are listed only).
pub const DIR_MAX_FILE_BYTES: u64 = 512 * 1024;

/// Directories a directory source never enters: version control, dependencies, build output.
pub const SKIPPED_DIRS: &[&str] = &[
    "node_modules",
    "target",
    "dist",
    "build",
    "out",
    "vendor",
    "__pycache__",
    "venv",
    "coverage",
];

/// The marker that ends a cut source or context.
pub const TRUNCATION_MARKER: &str = "[... truncated ...]";

/// What kind of source a [`ContextSource`] is; composition orders sources by kind in this
/// order (the ADR's `--context` paths, then `--pr`, then `--diff`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SourceKind {
    /// A directory overview.
    Dir,
    /// One file.
    File,
    /// A pull request.
    Pr,
    /// Staged and unstaged changes.
    Diff,
}

impl SourceKind {
    /// `dir`, `file`, `pr` or `diff`.
    pub const fn as_str(self) -> &'static str {
        match self {
            SourceKind::Dir => "dir",
            SourceKind::File => "file",
            SourceKind::Pr => "pr",
            SourceKind::Diff => "diff",
        }
    }

    /// Parses [`as_str`](Self::as_str)'s names.
    pub fn parse(s: &str) -> Option<SourceKind> {
        match s {
            "dir" => Some(SourceKind::Dir),
            "file" => Some(SourceKind::File),
            "pr" => Some(SourceKind::Pr),
            "diff" => Some(SourceKind::Diff),
            _ => None,
        }
    }
}

/// One rendered context source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextSource {
    /// What it is.
    pub kind: SourceKind,
    /// A short, safe name: a relative path, `PR #12`, `working tree`.
    pub label: String,
    /// The rendered text.
    pub content: String,
    /// Whether `content` was cut.
    pub truncated: bool,
    /// The secrets replaced by `[REDACTED:<kind>]` in `content`: kind and line (1-based, in
    /// `content`), never the value. Empty when the source was read with redaction off.
    pub redactions: Vec<Redaction>,
}

/// The last step of every source: the rendered text is redacted as a whole (when `redact`),
/// and only then cut to `max_chars` ([`cut_chars`]), so a cut can never split a secret and
/// leave its first characters behind; the report keeps the redactions still in the text.
pub(crate) fn finish_source(
    kind: SourceKind,
    label: String,
    text: &str,
    max_chars: usize,
    redact: bool,
    truncated: bool,
) -> ContextSource {
    let (content, mut redactions) = if redact {
        crate::secrets::redact_reported(text)
    } else {
        (text.to_owned(), Vec::new())
    };
    let (content, cut) = cut_chars(&content, max_chars, TRUNCATION_MARKER);
    keep_shown(&mut redactions, &content);
    ContextSource {
        kind,
        label,
        content,
        truncated: truncated || cut,
        redactions,
    }
}

/// Drops the redactions whose line is no longer in `text` (it was cut).
fn keep_shown(redactions: &mut Vec<Redaction>, text: &str) {
    if redactions.is_empty() {
        return;
    }
    let lines = text.split('\n').count();
    redactions.retain(|r| r.line <= lines);
}

/// Length in UTF-16 code units.
pub fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// Characters read past the shown part of a source before it is redacted and cut: more than
/// any secret but a private key block, which is redacted even without its `END` line (see
/// [`composed_piece`]).
const REDACT_MARGIN: usize = 16 * 1024;

/// One source of [`compose_context`]: its heading and content, redacted when asked, with the
/// report (lines numbered in the piece).
///
/// Only the first `max_chars` UTF-16 units of the composed text can be shown, so only the
/// start of a long source is read: [`REDACT_MARGIN`] characters more than the cap (so that a
/// secret running across the cut is redacted whole), and more while redaction has shrunk that
/// start below the cap plus the margin (a long key block becomes a few short lines). A 20 MB
/// source costs what its shown part costs, and the shown text is the same as when the whole
/// source is redacted.
fn composed_piece(
    heading: &str,
    content: &str,
    max_chars: usize,
    redact: bool,
) -> (String, Vec<crate::secrets::Redaction>) {
    let mut limit = max_chars.saturating_add(2 * REDACT_MARGIN);
    loop {
        let part = prefix_chars(content, limit);
        let mut piece = format!("{heading}{part}");
        if !piece.ends_with('\n') {
            piece.push('\n');
        }
        let (piece, report) = if redact {
            crate::secrets::redact_reported(&piece)
        } else {
            (piece, Vec::new())
        };
        if part.len() == content.len()
            || utf16_len(&piece) >= max_chars.saturating_add(REDACT_MARGIN)
        {
            return (piece, report);
        }
        limit = limit.saturating_mul(4);
    }
}

/// The first `n` characters of `text` (all of it when shorter).
fn prefix_chars(text: &str, n: usize) -> &str {
    text.char_indices().nth(n).map_or(text, |(i, _)| &text[..i])
}

/// Cuts `text` to at most `max` UTF-16 units including `marker` (on its own line), at a
/// character boundary. Returns the text and whether it was cut. When `max` cannot hold the
/// marker, the text is cut hard at `max`.
pub fn cut_chars(text: &str, max: usize, marker: &str) -> (String, bool) {
    if utf16_len(text) <= max {
        return (text.to_owned(), false);
    }
    let tail = format!("\n{marker}");
    let tail_len = utf16_len(&tail);
    let (room, tail) = if tail_len <= max {
        (max - tail_len, tail.as_str())
    } else {
        (max, "")
    };
    let mut used = 0;
    let mut end = 0;
    for (i, c) in text.char_indices() {
        if used + c.len_utf16() > room {
            break;
        }
        used += c.len_utf16();
        end = i + c.len_utf8();
    }
    // Prefer to end on a whole line when one ends in the last fifth of the room.
    let cut = match text[..end].rfind('\n') {
        Some(nl) if nl + 1 >= end.saturating_sub(end / 5) => nl,
        _ => end,
    };
    (format!("{}{tail}", &text[..cut]), true)
}

/// Options of [`dir_context`].
#[derive(Debug, Clone)]
pub struct DirOptions {
    /// Files listed at most. Default [`DIR_MAX_FILES`].
    pub max_files: usize,
    /// Characters of the rendered source at most. Default [`DEFAULT_MAX_CHARS`].
    pub max_chars: usize,
    /// Replace suspected secrets by `[REDACTED:<kind>]` and report them. Default true.
    pub redact: bool,
}

impl Default for DirOptions {
    fn default() -> Self {
        DirOptions {
            max_files: DIR_MAX_FILES,
            max_chars: DEFAULT_MAX_CHARS,
            redact: true,
        }
    }
}

/// A directory overview: the file tree under `path` (gitignored and hidden entries and
/// [`SKIPPED_DIRS`] left out, symlinked directories not entered, names sorted byte-wise) with
/// each source file's key declarations (`kind name:line` per [`declarations`]).
///
/// Errors (`invalid_request`): `path` not an absolute, existing directory.
pub fn dir_context(path: &Path, options: &DirOptions) -> crate::Result<ContextSource> {
    let scope = open_scope(path, "path")?;
    let name = scope
        .root()
        .file_name()
        .map_or_else(|| "/".to_owned(), |n| n.to_string_lossy().into_owned());
    let mut out = format!("{name}/\n");
    let mut files = 0usize;
    let mut cut = false;
    // The listing is cut by characters anyway; stop walking once it is well past the cap.
    let stop_at = options.max_chars.saturating_mul(2).max(1024);
    walk(&scope, &mut out, &mut files, options, stop_at, &mut cut);
    if cut {
        out.push_str(&format!("{TRUNCATION_MARKER} (more files not listed)\n"));
    }
    Ok(finish_source(
        SourceKind::Dir,
        format!("{name}/"),
        &out,
        options.max_chars,
        options.redact,
        cut,
    ))
}

/// Walks the tree under the scope's root in the order it is printed (each directory's
/// entries sorted byte-wise by name, a directory's contents right after it), with the same
/// gitignore-aware walk as retrieval ([`crate::retrieve::index::walk`]): `.gitignore`, `.ignore` and
/// `.git/info/exclude` honoured (also outside a git repository), hidden entries and
/// [`SKIPPED_DIRS`] left out, symbolic links never followed. A symlink is listed only when
/// it leads to a file inside the root.
fn walk(
    scope: &Scope,
    out: &mut String,
    files: &mut usize,
    options: &DirOptions,
    stop_at: usize,
    cut: &mut bool,
) {
    let root = scope.root().to_path_buf();
    let walker = crate::retrieve::index::walk::ignore_aware(&root)
        .sort_by_file_name(std::cmp::Ord::cmp)
        .filter_entry(|e| {
            let is_dir = e.file_type().is_some_and(|t| t.is_dir());
            !(is_dir
                && e.depth() > 0
                && e.file_name()
                    .to_str()
                    .is_some_and(|n| SKIPPED_DIRS.contains(&n)))
        })
        .build();
    let limits = ReadLimits {
        max_bytes: DIR_MAX_FILE_BYTES,
        ..ReadLimits::default()
    };
    for entry in walker {
        let Ok(entry) = entry else { continue };
        let depth = entry.depth();
        if depth == 0 {
            continue;
        }
        let Some(ft) = entry.file_type() else {
            continue;
        };
        let Ok(rest) = entry.path().strip_prefix(&root) else {
            continue;
        };
        let rel = rest
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_dir = ft.is_dir();
        if !is_dir && !ft.is_file() {
            // Listed only when it leads to a file inside the root.
            let listed =
                ft.is_symlink() && scope.resolve(&rel).is_ok_and(|target| target.abs.is_file());
            if !listed {
                continue;
            }
        }
        if *files >= options.max_files || out.len() > stop_at {
            *cut = true;
            return;
        }
        let indent = "  ".repeat(depth);
        if is_dir {
            out.push_str(&format!("{indent}{name}/\n"));
            continue;
        }
        *files += 1;
        // Symlinks are followed only inside the root; anything else is listed without content.
        let decls = match scope.read_text(&rel, &limits) {
            Ok(file) => declarations(&rel, &file.text),
            Err(_) => Vec::new(),
        };
        out.push_str(&format!("{indent}{name}"));
        if !decls.is_empty() {
            let shown: Vec<String> = decls
                .iter()
                .take(DIR_MAX_DECLARATIONS)
                .map(|d| format!("{} {}:{}", d.kind, d.name, d.line))
                .collect();
            out.push_str(" — ");
            out.push_str(&shown.join(", "));
            if decls.len() > DIR_MAX_DECLARATIONS {
                out.push_str(&format!(" (+{} more)", decls.len() - DIR_MAX_DECLARATIONS));
            }
        }
        out.push('\n');
    }
}

/// Options of [`file_context`].
#[derive(Debug, Clone)]
pub struct FileOptions {
    /// Lines kept at most (the head). Default [`FILE_MAX_LINES`] (the ADR's 150).
    pub max_lines: usize,
    /// Characters kept at most. Default [`DEFAULT_MAX_CHARS`].
    pub max_chars: usize,
    /// Replace suspected secrets by `[REDACTED:<kind>]` and report them. Default true.
    pub redact: bool,
}

impl Default for FileOptions {
    fn default() -> Self {
        FileOptions {
            max_lines: FILE_MAX_LINES,
            max_chars: DEFAULT_MAX_CHARS,
            redact: true,
        }
    }
}

/// One file's content, its first `max_lines` lines, followed by a marker line saying how many
/// lines were left out. `path` is read inside `root` (relative to it, or absolute inside it);
/// without a root, the file's own directory is the root.
///
/// Errors (`invalid_request`): missing, outside the root, a directory, binary, over 8 MiB.
pub fn file_context(
    path: &str,
    root: Option<&Path>,
    options: &FileOptions,
) -> crate::Result<ContextSource> {
    let p = Path::new(path);
    let scope = if let Some(root) = root {
        open_scope(root, "root")?
    } else {
        if !p.is_absolute() {
            return Err(Error::invalid_request(
                "path must be absolute when no root is given",
            ));
        }
        let parent = p
            .parent()
            .ok_or_else(|| Error::invalid_request("path must name a file"))?;
        open_scope(parent, "the file's directory")?
    };
    let resolved = scope.resolve_within(path)?;
    let file = scope.read_resolved(&resolved, &ReadLimits::default())?;
    // Redacted as a whole file before the line cut: a key block that the cut would open or
    // close in the middle is still recognised whole.
    let (text, mut redactions) = if options.redact {
        crate::secrets::redact_reported(&file.text)
    } else {
        (file.text, Vec::new())
    };
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut content: String;
    let mut truncated = false;
    if lines.len() > options.max_lines {
        content = lines[..options.max_lines].concat();
        if !content.ends_with('\n') {
            content.push('\n');
        }
        content.push_str(&format!(
            "[... truncated: {} more lines of {} ...]\n",
            lines.len() - options.max_lines,
            lines.len()
        ));
        truncated = true;
        redactions.retain(|r| r.line <= options.max_lines);
    } else {
        content = text.clone();
    }
    // Already redacted: the character cut needs no second pass.
    let mut source = finish_source(
        SourceKind::File,
        file.rel,
        &content,
        options.max_chars,
        false,
        truncated,
    );
    keep_shown(&mut redactions, &source.content);
    source.redactions = redactions;
    Ok(source)
}

/// `Scope::new` with its messages naming the caller's argument instead of `rootPath`.
pub(crate) fn open_scope(path: &Path, arg: &str) -> crate::Result<Scope> {
    Scope::new(path).map_err(|e| {
        let renamed = Error::new(e.kind(), e.message().replace("rootPath", arg));
        match e.reason() {
            Some(reason) => renamed.with_reason(reason),
            None => renamed,
        }
    })
}

/// Maps a git failure of a context source (an explicit request) to an error.
pub(crate) fn git_error(e: GitError) -> Error {
    let kind = match &e {
        GitError::NotInstalled => crate::ErrorKind::Unavailable,
        GitError::TimedOut(_) => crate::ErrorKind::Timeout,
        GitError::NotARepository | GitError::UnknownRevision | GitError::DubiousOwnership => {
            crate::ErrorKind::InvalidRequest
        }
        _ => crate::ErrorKind::Internal,
    };
    let message = match &e {
        GitError::Failed {
            command, status, ..
        } => {
            format!("git {command} failed with exit status {status}")
        }
        other => other.to_string(),
    };
    let reason = match &e {
        GitError::NotARepository => Some(crate::error::reason::NOT_A_REPOSITORY),
        GitError::UnknownRevision => Some(crate::error::reason::NOT_FOUND),
        GitError::TimedOut(_) => Some(crate::error::reason::DEADLINE),
        _ => None,
    };
    let error = Error::new(kind, message);
    match reason {
        Some(r) => error.with_reason(r),
        None => error,
    }
    .with_source(e)
}

/// The working tree's staged and unstaged changes (`git diff --cached` and `git diff`),
/// rendered as two labelled diffs and cut at `max_chars`.
///
/// Secrets in the diff are redacted (and reported) when `redact`.
///
/// Errors: `repo_path` not an absolute directory or not a repository (`invalid_request`), no
/// `git` (`unavailable`), git too slow (`timeout`).
pub async fn diff_context(
    repo_path: &Path,
    max_chars: usize,
    git: Option<Git>,
    redact: bool,
) -> crate::Result<ContextSource> {
    let scope = open_scope(repo_path, "repoPath")?;
    // Reading far past the cap is useless: 4 bytes per character is the most UTF-8 needs.
    let cap = max_chars.saturating_mul(4).saturating_add(4096);
    let git = git
        .unwrap_or_else(|| Git::new(scope.root()))
        .with_max_output(cap);
    git.check_repository().await.map_err(git_error)?;
    let staged = git.diff_args(&["--cached"]).await.map_err(git_error)?;
    let unstaged = git.diff_args(&[]).await.map_err(git_error)?;
    let mut out = String::new();
    let (s, u) = (staged.text(), unstaged.text());
    if s.is_empty() && u.is_empty() {
        out.push_str("No staged or unstaged changes.\n");
    }
    if !s.is_empty() {
        out.push_str("Staged changes:\n");
        out.push_str(&s);
        if !s.ends_with('\n') {
            out.push('\n');
        }
    }
    if !u.is_empty() {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str("Unstaged changes:\n");
        out.push_str(&u);
    }
    Ok(finish_source(
        SourceKind::Diff,
        "working tree".to_owned(),
        &out,
        max_chars,
        redact,
        staged.truncated || unstaged.truncated,
    ))
}

/// The composed context of [`compose_context`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Composed {
    /// The sources in order, each under a `## <kind>: <label>` heading, at most `max_chars`
    /// UTF-16 units in all, ending with a truncation marker when cut.
    pub text: String,
    /// Whether anything was cut or left out (including sources that were already cut).
    pub truncated: bool,
    /// Labels of the sources that did not fit at all.
    pub omitted: Vec<String>,
    /// The secrets replaced by `[REDACTED:<kind>]` in `text` (kind and 1-based line of
    /// `text`), never the value.
    pub redactions: Vec<Redaction>,
}

/// Composes `sources` into one block of at most `max_chars` characters: sources ordered by
/// kind (directories, files, pull requests, diffs; the given order within a kind), each under a
/// heading, filled in order until the cap, then a visible marker naming how many sources were
/// left out.
///
/// The sources may come from anywhere (a caller can pass its own text), so when `redact` the
/// whole composed text is redacted before it is cut, and the redactions are reported.
pub fn compose_context(sources: &[ContextSource], max_chars: usize, redact: bool) -> Composed {
    let mut ordered: Vec<&ContextSource> = sources.iter().collect();
    ordered.sort_by_key(|s| s.kind); // stable: the caller's order within a kind
    let mut full = String::new();
    let mut full_lines = 0;
    let mut starts = Vec::with_capacity(ordered.len());
    let mut redactions = Vec::new();
    for (i, s) in ordered.iter().enumerate() {
        if i > 0 {
            full.push('\n');
            full_lines += 1;
        }
        starts.push(utf16_len(&full));
        let heading = format!("## {}: {}\n", s.kind.as_str(), s.label);
        let (piece, mut report) = composed_piece(&heading, &s.content, max_chars, redact);
        crate::secrets::shift_lines(&mut report, full_lines);
        redactions.extend(report);
        full_lines += piece.matches('\n').count();
        full.push_str(&piece);
    }
    let already_cut = ordered.iter().any(|s| s.truncated);
    if utf16_len(&full) <= max_chars {
        return Composed {
            text: full,
            truncated: already_cut,
            omitted: Vec::new(),
            redactions,
        };
    }
    // Find which sources start beyond the room left for the marker.
    let marker_for = |n: usize| {
        if n == 0 {
            format!("[... context truncated at {max_chars} characters ...]")
        } else {
            format!(
                "[... context truncated at {max_chars} characters; {n} more source(s) omitted ...]"
            )
        }
    };
    let cut_with = |k: usize| {
        let marker = marker_for(k);
        let (t, _) = cut_chars(&full, max_chars, &marker);
        let shown = utf16_len(&t).saturating_sub(utf16_len(&marker) + 1);
        let hidden = starts.iter().filter(|&&s| s >= shown).count();
        (t, hidden)
    };
    // The marker's length depends on how many sources it says were omitted, which depends on
    // how much room the marker leaves: iterate to the fixed point (monotone, so it converges).
    let mut k = 0;
    let (mut text, mut hidden) = cut_with(k);
    for _ in 0..8 {
        if hidden == k {
            break;
        }
        k = hidden;
        (text, hidden) = cut_with(k);
    }
    let omitted_from = ordered.len() - hidden.min(ordered.len());
    let omitted = ordered[omitted_from..]
        .iter()
        .map(|s| s.label.clone())
        .collect();
    keep_shown(&mut redactions, &text);
    Composed {
        text,
        truncated: true,
        omitted,
        redactions,
    }
}
