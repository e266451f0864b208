//! Prompt builders: the context an implementation, review, fix or issue agent needs, gathered
//! from the repository and git, shortened where needed, and annotated with what was cut.
//!
//! Every builder returns a plain record of the sections the context-builder spec names
//! (`docs/design/context-builder-spec.md`) plus, when anything was truncated, missing, skipped
//! or suspicious, a [`Metadata`] (the spec's truncation metadata, extended). Expected failures
//! are data, not errors: a missing file, a missing `git`, a directory that is not a repository,
//! an unknown base branch or a failing git command give the section's default (empty text,
//! empty list) and a warning. Only misuse (a `repo_path` that is not an absolute directory, a
//! malformed branch name) is an error.
//!
//! All file content is read through [`Scope`]; paths taken from task
//! files, issues and validation output are resolved inside the root, and anything pointing
//! outside is ignored with a warning. Content that looks like a credential is redacted
//! (`[REDACTED:<kind>]`, as every text that leaves the engine) and reported in
//! [`Metadata::redactions`] and as a warning naming the file, line and kind (the spec asked for
//! the warning and the content kept as is; it is redacted, since the context goes to a model).

mod fix;
mod implementation;
mod issue;
mod review;
mod validation;

#[cfg(test)]
mod tests;

use std::path::Path;

use crate::budget::{truncate_file_with, Truncation};
use crate::fs_scope::{ReadError, ReadLimits, Resolved, Scope};
use crate::git::{Commit, Git, GitError};

pub use fix::{build_fix_context, FixContext, FixSource, MAX_SOURCE_FILES};
pub use implementation::{build_implementation_context, ImplementationContext};
pub use issue::{build_issue_context, GitHubIssue, IssueContext};
pub use review::{build_review_context, validate_branch_name, ReviewContext};
pub use validation::{
    parse_validation_output, ParsedError, Severity, ValidationOutput, ValidationStage,
};

/// Files with fewer lines than this are included whole (the spec's review context).
pub const FULL_FILE_LINES: usize = 500;

/// Lines kept of a larger file (around its changed or erroneous lines).
pub const LARGE_FILE_KEPT_LINES: usize = 300;

/// Lines of context kept on each side of a changed or erroneous line (the spec's minimum).
pub const CONTEXT_LINES: usize = 10;

/// Lines of conventions (`CLAUDE.md` + `AGENTS.md`) kept; the head is kept, the rest marked.
pub const MAX_CONVENTIONS_LINES: usize = 500;

/// Commits in `recent_commits` (the spec's clarification: 10).
pub const RECENT_COMMITS: usize = 10;

/// The largest file a builder reads (larger files are skipped with a warning).
pub const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// The most warnings kept in one result; further ones are summarized in one last warning.
pub const MAX_WARNINGS: usize = 200;

/// What a builder did to its content beyond plain copying (the spec's `_metadata`). Present
/// on a result only when something was truncated, missing, skipped or suspicious.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Metadata {
    /// Whether any section was shortened.
    pub truncated: bool,
    /// Lines of the shortened content before shortening (all sections affected).
    pub original_lines: usize,
    /// Lines of it kept (`...` markers not counted).
    pub kept_lines: usize,
    /// Names of the sections that were shortened, in the order of the result's keys.
    pub sections_affected: Vec<String>,
    /// Files (repository-relative) shortened in a files section.
    pub truncated_files: Vec<String>,
    /// Files named by the input that do not exist.
    pub missing_files: Vec<String>,
    /// Files left out on purpose (binary, too large, not a regular file, over a limit).
    pub skipped_files: Vec<String>,
    /// Human-readable notes: git failures, skipped files, suspected secrets, ignored paths.
    pub warnings: Vec<String>,
    /// The secrets replaced by `[REDACTED:<kind>]`: where (file or section), kind and line
    /// (1-based, in that file or section before any shortening), never the value.
    pub redactions: Vec<FileRedaction>,
}

/// One redacted secret of a builder's content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRedaction {
    /// The repository-relative file, or a section such as `the diff`, `the issue body`.
    pub file: String,
    /// What kind of secret.
    pub kind: crate::secrets::SecretKind,
    /// 1-based line in that file or section.
    pub line: usize,
}

impl Metadata {
    /// True when nothing worth reporting happened.
    pub fn is_empty(&self) -> bool {
        *self == Metadata::default()
    }

    pub(crate) fn warn(&mut self, warning: impl Into<String>) {
        if self.warnings.len() < MAX_WARNINGS {
            self.warnings.push(warning.into());
        } else if self.warnings.len() == MAX_WARNINGS {
            self.warnings
                .push("further warnings were left out".to_owned());
        }
    }

    /// Records a truncation of `section` (and of `file` within it).
    pub(crate) fn record(&mut self, section: &str, file: Option<&str>, t: &Truncation) {
        if !t.truncated {
            return;
        }
        self.truncated = true;
        self.original_lines += t.original_lines;
        self.kept_lines += t.kept_lines;
        if !self.sections_affected.iter().any(|s| s == section) {
            self.sections_affected.push(section.to_owned());
        }
        if let Some(file) = file {
            self.truncated_files.push(file.to_owned());
        }
        if t.severe {
            self.warn(format!(
                "{} was severely truncated: only its first and last lines were kept",
                file.unwrap_or(section)
            ));
        }
    }

    /// Redacts `text` (file or section `source`) and records what was replaced.
    pub(crate) fn redact(&mut self, source: &str, text: String) -> String {
        if !crate::secrets::contains_secret(&text) {
            return text;
        }
        let (out, report) = crate::secrets::redact_reported(&text);
        for r in report {
            self.warn(format!(
                "redacted a suspected secret ({}) in {source} at line {}",
                r.kind.as_str(),
                r.line
            ));
            if self.redactions.len() < MAX_WARNINGS {
                self.redactions.push(FileRedaction {
                    file: source.to_owned(),
                    kind: r.kind,
                    line: r.line,
                });
            }
        }
        out
    }

    pub(crate) fn into_option(self) -> Option<Metadata> {
        (!self.is_empty()).then_some(self)
    }
}

/// How a builder runs: the `git` it uses and whether it redacts.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// The git runner; default: `git` on the `PATH`, in the repository.
    pub git: Option<Git>,
    /// Replace suspected secrets by `[REDACTED:<kind>]` and report them in
    /// [`Metadata::redactions`]. Default true; false keeps file text as it is (the spec's
    /// original behaviour, for callers whose output never reaches a model).
    pub redact: bool,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            git: None,
            redact: true,
        }
    }
}

/// The repository a builder works in: its scope (all reads), its git runner and whether text
/// is redacted.
pub(crate) struct Repo {
    pub(crate) scope: Scope,
    pub(crate) git: Git,
    redact: bool,
}

impl Repo {
    /// Opens `repo_path` (absolute, an existing directory: otherwise `invalid_request`).
    pub(crate) fn open(repo_path: &Path, options: &BuildOptions) -> crate::Result<Repo> {
        let scope = crate::inject::open_scope(repo_path, "repoPath")?;
        let git = options
            .git
            .clone()
            .unwrap_or_else(|| Git::new(scope.root()));
        Ok(Repo {
            scope,
            git,
            redact: options.redact,
        })
    }

    /// `text` (file or section `source`) redacted as the options say, the redactions
    /// recorded in `meta`.
    pub(crate) fn redact(&self, meta: &mut Metadata, source: &str, text: String) -> String {
        if self.redact {
            meta.redact(source, text)
        } else {
            text
        }
    }

    /// Reads a text file for a section, turning every soft failure into metadata: `None` when
    /// the file is missing, escapes the root, is binary, too large or unreadable.
    pub(crate) fn read(&self, resolved: &Resolved, meta: &mut Metadata) -> Option<String> {
        let limits = ReadLimits {
            max_bytes: MAX_FILE_BYTES,
            ..ReadLimits::default()
        };
        match self.scope.read_resolved(resolved, &limits) {
            Ok(file) => Some(self.redact(meta, &file.rel, file.text)),
            Err(e) => {
                note_read_error(&resolved.rel, &e, meta);
                None
            }
        }
    }

    /// Resolves a path taken from user content (a task, an issue, validation output):
    /// relative to the root, or absolute inside it. Escapes are ignored with a warning; other
    /// failures are reported as missing.
    pub(crate) fn resolve_user_path(&self, path: &str, meta: &mut Metadata) -> Option<Resolved> {
        match self.scope.resolve_within(path) {
            Ok(r) => Some(r),
            Err(e) => {
                note_read_error(&shown(path), &e, meta);
                None
            }
        }
    }

    /// The conventions section: `CLAUDE.md`, then `AGENTS.md`, at the root; truncated to
    /// [`MAX_CONVENTIONS_LINES`] with metadata.
    pub(crate) fn conventions(&self, meta: &mut Metadata) -> String {
        let mut parts = Vec::new();
        for name in ["CLAUDE.md", "AGENTS.md"] {
            let resolved = match self.scope.resolve(name) {
                Ok(r) => r,
                // No such file is the common case, not worth a warning.
                Err(ReadError::NotFound { .. }) => continue,
                Err(e) => {
                    note_read_error(name, &e, meta);
                    continue;
                }
            };
            if let Some(text) = self.read(&resolved, meta) {
                parts.push((name, text));
            }
        }
        let text = match parts.len() {
            0 => return String::new(),
            1 => parts.pop().map(|(_, t)| t).unwrap_or_default(),
            _ => parts
                .iter()
                .map(|(name, text)| format!("<!-- {name} -->\n{text}"))
                .collect::<Vec<_>>()
                .join("\n"),
        };
        let t = truncate_file_with(&text, MAX_CONVENTIONS_LINES, &[], 0);
        meta.record("conventions", None, &t);
        t.text
    }

    /// The last `n` commits (touching `paths` when non-empty); a warning and no commits when git
    /// fails.
    pub(crate) async fn commits(
        &self,
        n: usize,
        paths: &[String],
        meta: &mut Metadata,
    ) -> Vec<Commit> {
        match self.git.recent_commits(n, paths).await {
            Ok(commits) => commits,
            Err(GitError::NoCommits) => Vec::new(),
            Err(e) => {
                meta.warn(e.warning("the commit history"));
                Vec::new()
            }
        }
    }
}

/// A file's content for a files section: whole under [`FULL_FILE_LINES`], otherwise
/// [`LARGE_FILE_KEPT_LINES`] lines around `lines` (the head when `lines` is empty).
pub(crate) fn fit_file(
    section: &str,
    rel: &str,
    text: &str,
    lines: &[usize],
    meta: &mut Metadata,
) -> String {
    let n = text.split_inclusive('\n').count();
    let max = if n < FULL_FILE_LINES {
        n
    } else {
        LARGE_FILE_KEPT_LINES.max(lines.len().min(100) * (2 * CONTEXT_LINES + 1))
    };
    let t = truncate_file_with(text, max, lines, CONTEXT_LINES);
    meta.record(section, Some(rel), &t);
    t.text
}

/// Records a read failure as metadata.
pub(crate) fn note_read_error(rel: &str, e: &ReadError, meta: &mut Metadata) {
    match e {
        ReadError::NotFound { .. } => {
            meta.missing_files.push(rel.to_owned());
            meta.warn(format!("file not found: {rel}"));
        }
        ReadError::Escape { .. } | ReadError::InvalidPath { .. } => {
            meta.warn(format!("ignored a path outside the repository: {rel}"));
        }
        ReadError::Binary { .. } => {
            meta.skipped_files.push(rel.to_owned());
            meta.warn(format!("skipped binary file {rel}"));
        }
        other => {
            meta.skipped_files.push(rel.to_owned());
            meta.warn(format!("skipped {rel}: {other}"));
        }
    }
}

/// How a path from user content is shown in a warning: relative paths as given (shortened),
/// absolute ones not at all, whichever platform wrote them (`/home/..`, `C:\..`, `\\?\..`,
/// `\\server\..`) and whichever runs the engine.
pub(crate) fn shown(path: &str) -> String {
    let b = path.as_bytes();
    let drive = b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':';
    if Path::new(path).is_absolute() || path.starts_with(['/', '\\']) || drive {
        return "(an absolute path)".to_owned();
    }
    let mut s: String = path.chars().filter(|c| !c.is_control()).take(200).collect();
    if path.chars().count() > 200 {
        s.push_str("...");
    }
    s
}
