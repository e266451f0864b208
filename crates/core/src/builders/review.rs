//! The context of a review agent (the context-builder spec's `build_review_context`).

use std::collections::BTreeMap;
use std::path::Path;

use super::{fit_file, BuildOptions, Metadata, Repo};
use crate::budget::truncate_file_with;
use crate::git::{changed_lines, ChangeStatus, DiffStats, Git, GitError};
use crate::Error;

/// Lines of the diff section kept (the head; long lines are cut at 2000 characters).
pub const MAX_DIFF_LINES: usize = 5000;

/// Bytes of `git diff` output read at most; a larger diff is cut (and git stopped).
pub const MAX_DIFF_BYTES: usize = 8 * 1024 * 1024;

/// Changed files whose content is included at most; the rest are named in `skipped_files`.
pub const MAX_CHANGED_FILES: usize = 200;

/// What [`build_review_context`] returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewContext {
    /// The unified diff from the merge base with the base branch to the work tree.
    pub diff: String,
    /// Content of each changed text file that still exists, by repository-relative path:
    /// whole under 500 lines, otherwise the lines around its changes.
    pub changed_files: BTreeMap<String, String>,
    /// `CLAUDE.md` and `AGENTS.md`.
    pub conventions: String,
    /// Totals of the diff.
    pub stats: DiffStats,
    /// Present when anything was truncated, missing, skipped or suspicious.
    pub metadata: Option<Metadata>,
}

/// Checks a branch or revision name given by a caller: non-empty, at most 255 bytes, no
/// whitespace or control characters, not starting with `-` (an option), no `..` (a range).
pub fn validate_branch_name(name: &str, arg: &str) -> crate::Result<()> {
    let bad = name.is_empty()
        || name.len() > 255
        || name.starts_with('-')
        || name.contains("..")
        || name.chars().any(|c| c.is_whitespace() || c.is_control());
    if bad {
        return Err(Error::invalid_request(format!(
            "{arg} must be a branch or commit name (no spaces, not starting with '-', no '..')"
        )));
    }
    Ok(())
}

/// Builds the review context of the changes on the current work tree against `base_branch`:
/// the diff from their merge base, the changed files, conventions and stats.
///
/// The comparison is from `merge-base(base_branch, HEAD)` to the work tree, so committed and
/// uncommitted changes are both reviewed, and the file contents (read from disk) match the
/// diff. Binary files are skipped and named in `skipped_files`; deleted files appear only in
/// the diff. No changes give an empty diff and zero stats.
///
/// Errors only for misuse (`invalid_request`): `repo_path` not an absolute directory, a
/// malformed `base_branch`. An unknown base branch, a non-repository, an empty repository or
/// a missing `git` give empty sections and a warning.
// One step per section of the review context, in the order the spec lists them.
#[allow(clippy::too_many_lines)]
pub async fn build_review_context(
    repo_path: &Path,
    base_branch: &str,
    options: &BuildOptions,
) -> crate::Result<ReviewContext> {
    validate_branch_name(base_branch, "baseBranch")?;
    let repo = Repo::open(repo_path, options)?;
    let mut meta = Metadata::default();
    let conventions = repo.conventions(&mut meta);
    let mut result = ReviewContext {
        diff: String::new(),
        changed_files: BTreeMap::new(),
        conventions,
        stats: DiffStats::default(),
        metadata: None,
    };

    let base = match merge_base(&repo.git, base_branch).await {
        Ok(base) => base,
        Err(warning) => {
            meta.warn(warning);
            result.metadata = meta.into_option();
            return Ok(result);
        }
    };

    // The work tree is compared first; when git cannot read it (a FIFO or socket where a
    // tracked file was: "cannot hash"), the committed changes (`base..HEAD`) are reviewed.
    let mut to: Option<&str> = None;
    let files = match repo.git.changed_files(&base, None).await {
        Ok(files) => files,
        Err(GitError::Failed { .. }) => {
            meta.warn("git could not read the work tree; only committed changes are reviewed");
            to = Some("HEAD");
            match repo.git.changed_files(&base, to).await {
                Ok(files) => files,
                Err(e) => {
                    meta.warn(e.warning("the list of changed files"));
                    Vec::new()
                }
            }
        }
        Err(e) => {
            meta.warn(e.warning("the list of changed files"));
            Vec::new()
        }
    };
    result.stats = DiffStats::of(&files);

    let raw = match repo
        .git
        .clone()
        .with_max_output(MAX_DIFF_BYTES)
        .diff(&base, to)
        .await
    {
        Ok(out) => {
            if out.truncated {
                meta.warn(format!(
                    "the diff is larger than {} MiB; only its beginning was read",
                    MAX_DIFF_BYTES / (1024 * 1024)
                ));
            }
            out.text()
        }
        Err(e) => {
            meta.warn(e.warning("the diff"));
            String::new()
        }
    };
    let hunks = changed_lines(&raw);
    // Redacted before it is shortened (a cut never splits a secret).
    let raw = repo.redact(&mut meta, "the diff", raw);
    let t = truncate_file_with(&raw, MAX_DIFF_LINES, &[], 0);
    drop(raw);
    meta.record("diff", None, &t);
    result.diff = t.text;

    let mut included = 0usize;
    for file in &files {
        if file.status == ChangeStatus::Deleted {
            continue;
        }
        if file.binary {
            meta.skipped_files.push(file.path.clone());
            meta.warn(format!("skipped binary file {}", file.path));
            continue;
        }
        if included == MAX_CHANGED_FILES {
            meta.skipped_files.push(file.path.clone());
            continue;
        }
        let resolved = match repo.scope.resolve(&file.path) {
            Ok(r) => r,
            Err(e) => {
                super::note_read_error(&file.path, &e, &mut meta);
                continue;
            }
        };
        let Some(text) = repo.read(&resolved, &mut meta) else {
            continue;
        };
        let lines = hunks
            .iter()
            .find(|(p, _)| *p == file.path)
            .map_or(&[][..], |(_, l)| l.as_slice());
        let content = fit_file("changed_files", &file.path, &text, lines, &mut meta);
        result.changed_files.insert(file.path.clone(), content);
        included += 1;
    }
    if files.len() > MAX_CHANGED_FILES && included == MAX_CHANGED_FILES {
        meta.warn(format!(
            "only the first {MAX_CHANGED_FILES} changed files are included"
        ));
    }
    result.metadata = meta.into_option();
    Ok(result)
}

/// The merge base of `base_branch` and HEAD, or a user-safe warning.
async fn merge_base(git: &Git, base_branch: &str) -> Result<String, String> {
    match git.resolve_commit(base_branch).await {
        Ok(_) => {}
        Err(GitError::UnknownRevision) => {
            return Err("the base branch was not found; the diff is empty".to_owned())
        }
        Err(e) => return Err(e.warning("the diff")),
    }
    match git.resolve_commit("HEAD").await {
        Ok(_) => {}
        Err(GitError::UnknownRevision | GitError::NoCommits) => {
            return Err("the repository has no commits yet; the diff is empty".to_owned())
        }
        Err(e) => return Err(e.warning("the diff")),
    }
    match git.merge_base(base_branch, "HEAD").await {
        Ok(base) if !base.is_empty() => Ok(base),
        Ok(_) | Err(GitError::Failed { .. }) => {
            Err("the base branch shares no history with HEAD; the diff is empty".to_owned())
        }
        Err(e) => Err(e.warning("the diff")),
    }
}
