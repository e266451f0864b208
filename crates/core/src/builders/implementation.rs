//! The context of an implementation agent (the context-builder spec's
//! `build_implementation_context`).

use std::path::Path;

use super::{BuildOptions, Metadata, Repo, RECENT_COMMITS};
use crate::budget::truncate_file_with;
use crate::git::{Commit, GitError};

/// Lines of the task file kept (the head; the rest is marked).
pub const MAX_TASK_LINES: usize = 2000;

/// What [`build_implementation_context`] returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImplementationContext {
    /// The task file's content (empty when it is missing).
    pub tasks: String,
    /// `CLAUDE.md` and `AGENTS.md` (empty when neither exists).
    pub conventions: String,
    /// The current branch, `HEAD detached at <hash>`, or empty when git is unavailable.
    pub branch: String,
    /// The last [`RECENT_COMMITS`] commits, newest first.
    pub recent_commits: Vec<Commit>,
    /// Present when anything was truncated, missing, skipped or suspicious.
    pub metadata: Option<Metadata>,
}

/// Builds the implementation context for `task_file` (relative to `repo_path`, or absolute
/// inside it) in the repository at `repo_path`.
///
/// Errors only for misuse: `repo_path` not an absolute, existing directory
/// (`invalid_request`). A missing task file, a non-repository or a missing `git` give empty
/// sections and warnings.
pub async fn build_implementation_context(
    task_file: &str,
    repo_path: &Path,
    options: &BuildOptions,
) -> crate::Result<ImplementationContext> {
    let repo = Repo::open(repo_path, options)?;
    let mut meta = Metadata::default();

    let tasks = match repo.resolve_user_path(task_file, &mut meta) {
        Some(resolved) => match repo.read(&resolved, &mut meta) {
            Some(text) => {
                let t = truncate_file_with(&text, MAX_TASK_LINES, &[], 0);
                meta.record("tasks", None, &t);
                t.text
            }
            None => String::new(),
        },
        None => String::new(),
    };
    let conventions = repo.conventions(&mut meta);
    let branch = match repo.git.current_branch().await {
        Ok(b) => b,
        Err(e) => {
            meta.warn(e.warning("the branch"));
            String::new()
        }
    };
    let recent_commits = if branch.is_empty() {
        // git already failed; one warning is enough.
        Vec::new()
    } else {
        match repo.git.recent_commits(RECENT_COMMITS, &[]).await {
            Ok(c) => c,
            Err(GitError::NoCommits) => Vec::new(),
            Err(e) => {
                meta.warn(e.warning("the commit history"));
                Vec::new()
            }
        }
    };
    Ok(ImplementationContext {
        tasks,
        conventions,
        branch,
        recent_commits,
        metadata: meta.into_option(),
    })
}
