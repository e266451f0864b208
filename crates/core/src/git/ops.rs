//! The git queries the builders need, each one command with a parsed result.

use super::{Git, GitError, Output};

/// One commit of `git log`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Commit {
    /// The full object name.
    pub hash: String,
    /// The author's name.
    pub author: String,
    /// The author date, strict ISO 8601 (`2026-11-22T03:00:00+00:00`).
    pub date: String,
    /// The first line of the message.
    pub subject: String,
}

/// How a file changed between two trees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeStatus {
    /// New file.
    Added,
    /// Content or mode changed.
    Modified,
    /// Removed.
    Deleted,
    /// Moved (possibly also changed).
    Renamed,
    /// Copied from another path.
    Copied,
    /// Type changed (e.g. file to symlink).
    TypeChanged,
}

impl ChangeStatus {
    /// Lower-case name (`added`, `modified`...).
    pub const fn as_str(self) -> &'static str {
        match self {
            ChangeStatus::Added => "added",
            ChangeStatus::Modified => "modified",
            ChangeStatus::Deleted => "deleted",
            ChangeStatus::Renamed => "renamed",
            ChangeStatus::Copied => "copied",
            ChangeStatus::TypeChanged => "type_changed",
        }
    }
}

/// One changed file of a diff, from `git diff --numstat -z` and `--name-status -z`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangedFile {
    /// The path on the new side, relative to the repository root, `'/'`-separated.
    pub path: String,
    /// The path on the old side for renames and copies.
    pub old_path: Option<String>,
    /// How it changed.
    pub status: ChangeStatus,
    /// Added lines (0 for binary files).
    pub insertions: usize,
    /// Removed lines (0 for binary files).
    pub deletions: usize,
    /// True when git treats the file as binary (numstat `-\t-`).
    pub binary: bool,
}

/// Totals of a diff.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DiffStats {
    /// Files changed.
    pub files_changed: usize,
    /// Lines added.
    pub insertions: usize,
    /// Lines removed.
    pub deletions: usize,
    /// Binary files among the changed files.
    pub binary_files: usize,
}

impl DiffStats {
    /// Totals over `files`.
    pub fn of(files: &[ChangedFile]) -> DiffStats {
        DiffStats {
            files_changed: files.len(),
            insertions: files.iter().map(|f| f.insertions).sum(),
            deletions: files.iter().map(|f| f.deletions).sum(),
            binary_files: files.iter().filter(|f| f.binary).count(),
        }
    }
}

const LOG_FORMAT: &str = "--format=%H%x1f%an%x1f%aI%x1f%s%x1e";

impl Git {
    /// Checks that the directory is inside a work tree ([`GitError::NotARepository`] if not).
    /// Needed before `git diff`, which outside a repository silently becomes `--no-index`.
    pub async fn check_repository(&self) -> Result<(), GitError> {
        let out = self.run(&["rev-parse", "--is-inside-work-tree"]).await?;
        if out.text().trim() == "true" {
            Ok(())
        } else {
            Err(GitError::NotARepository)
        }
    }

    /// The top-level directory of the work tree (`rev-parse --show-toplevel`).
    pub async fn toplevel(&self) -> Result<String, GitError> {
        let out = self.run(&["rev-parse", "--show-toplevel"]).await?;
        Ok(out.text().trim_end_matches('\n').to_owned())
    }

    /// The current branch name, or `HEAD detached at <short hash>` for a detached HEAD. An
    /// empty repository still has a branch (the unborn one).
    pub async fn current_branch(&self) -> Result<String, GitError> {
        match self
            .run(&["symbolic-ref", "--quiet", "--short", "HEAD"])
            .await
        {
            Ok(out) => Ok(out.text().trim().to_owned()),
            Err(GitError::Failed { .. }) => {
                let out = self
                    .run(&["rev-parse", "--short", "--verify", "--quiet", "HEAD"])
                    .await?;
                Ok(format!("HEAD detached at {}", out.text().trim()))
            }
            Err(e) => Err(e),
        }
    }

    /// The last `n` commits reachable from HEAD, newest first, optionally only those touching
    /// `paths` (repository-relative). An empty repository is [`GitError::NoCommits`].
    pub async fn recent_commits(
        &self,
        n: usize,
        paths: &[String],
    ) -> Result<Vec<Commit>, GitError> {
        let count = format!("-n{n}");
        let mut args = vec![
            "log",
            count.as_str(),
            "--no-color",
            LOG_FORMAT,
            "HEAD",
            "--",
        ];
        args.extend(paths.iter().map(String::as_str));
        let out = self.run(&args).await?;
        Ok(parse_log(&out.text()))
    }

    /// Whether `rev` names a commit.
    pub async fn resolve_commit(&self, rev: &str) -> Result<String, GitError> {
        let spec = format!("{rev}^{{commit}}");
        let out = self
            .run(&[
                "rev-parse",
                "--verify",
                "--quiet",
                "--end-of-options",
                &spec,
            ])
            .await
            .map_err(|e| match e {
                GitError::Failed { .. } => GitError::UnknownRevision,
                other => other,
            })?;
        Ok(out.text().trim().to_owned())
    }

    /// The best common ancestor of `a` and `b`.
    pub async fn merge_base(&self, a: &str, b: &str) -> Result<String, GitError> {
        let out = self.run(&["merge-base", a, b]).await?;
        Ok(out.text().trim().to_owned())
    }

    /// The files changed between `base` and the work tree (or `to`, when given), renames
    /// detected.
    pub async fn changed_files(
        &self,
        base: &str,
        to: Option<&str>,
    ) -> Result<Vec<ChangedFile>, GitError> {
        let mut numstat = vec![
            "diff",
            "--relative",
            "--numstat",
            "-z",
            "-M",
            "--no-ext-diff",
            "--no-textconv",
            base,
        ];
        let mut names = vec![
            "diff",
            "--relative",
            "--name-status",
            "-z",
            "-M",
            "--no-ext-diff",
            base,
        ];
        if let Some(to) = to {
            numstat.push(to);
            names.push(to);
        }
        numstat.push("--");
        names.push("--");
        let stats = self.run(&numstat).await?;
        let statuses = self.run(&names).await?;
        Ok(merge_changes(
            parse_numstat_z(&stats.text()),
            &parse_name_status_z(&statuses.text()),
        ))
    }

    /// The unified diff between `base` and the work tree (or `to`), renames detected, no
    /// colour, no external diff drivers. May be [`Output::truncated`].
    pub async fn diff(&self, base: &str, to: Option<&str>) -> Result<Output, GitError> {
        let mut extra = vec![base];
        extra.extend(to);
        self.diff_args(&extra).await
    }

    /// A `git diff` with the given extra arguments (`--cached` for staged changes), with the
    /// same fixed options as [`Git::diff`].
    pub async fn diff_args(&self, extra: &[&str]) -> Result<Output, GitError> {
        let mut args = vec![
            "diff",
            "--relative",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "-M",
        ];
        args.extend_from_slice(extra);
        args.push("--");
        self.run(&args).await
    }
}

pub(super) fn parse_log(text: &str) -> Vec<Commit> {
    text.split('\x1e')
        .filter_map(|record| {
            let record = record.trim_start_matches('\n');
            if record.is_empty() {
                return None;
            }
            let mut fields = record.split('\x1f');
            Some(Commit {
                hash: fields.next()?.to_owned(),
                author: fields.next().unwrap_or("").to_owned(),
                date: fields.next().unwrap_or("").to_owned(),
                subject: fields.next().unwrap_or("").trim_end().to_owned(),
            })
        })
        .collect()
}

/// `(insertions, deletions, binary, path, old_path)` per numstat record.
type NumstatRow = (usize, usize, bool, String, Option<String>);

/// Parses `git diff --numstat -z`: `add\tdel\tpath\0`, or for renames `add\tdel\t\0old\0new\0`.
pub(super) fn parse_numstat_z(text: &str) -> Vec<NumstatRow> {
    let mut fields = text.split('\0');
    let mut rows = Vec::new();
    while let Some(head) = fields.next() {
        if head.is_empty() {
            continue;
        }
        let mut parts = head.splitn(3, '\t');
        let (Some(add), Some(del), Some(path)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let binary = add == "-" && del == "-";
        let insertions = add.parse().unwrap_or(0);
        let deletions = del.parse().unwrap_or(0);
        if path.is_empty() {
            let old = fields.next().unwrap_or("").to_owned();
            let new = fields.next().unwrap_or("").to_owned();
            rows.push((insertions, deletions, binary, new, Some(old)));
        } else {
            rows.push((insertions, deletions, binary, path.to_owned(), None));
        }
    }
    rows
}

/// Parses `git diff --name-status -z`: `S\0path\0`, or `R100\0old\0new\0` / `C..`.
pub(super) fn parse_name_status_z(text: &str) -> Vec<(ChangeStatus, String)> {
    let mut fields = text.split('\0');
    let mut rows = Vec::new();
    while let Some(code) = fields.next() {
        let status = match code.chars().next() {
            Some('A') => ChangeStatus::Added,
            Some('M') => ChangeStatus::Modified,
            Some('D') => ChangeStatus::Deleted,
            Some('R') => ChangeStatus::Renamed,
            Some('C') => ChangeStatus::Copied,
            Some('T') => ChangeStatus::TypeChanged,
            Some(_) => ChangeStatus::Modified,
            None => continue,
        };
        let first = fields.next().unwrap_or("").to_owned();
        let path = if matches!(status, ChangeStatus::Renamed | ChangeStatus::Copied) {
            fields.next().unwrap_or("").to_owned()
        } else {
            first
        };
        rows.push((status, path));
    }
    rows
}

fn merge_changes(stats: Vec<NumstatRow>, statuses: &[(ChangeStatus, String)]) -> Vec<ChangedFile> {
    let by_path: std::collections::HashMap<&str, ChangeStatus> =
        statuses.iter().map(|(s, p)| (p.as_str(), *s)).collect();
    let mut files: Vec<ChangedFile> = stats
        .into_iter()
        .map(|(insertions, deletions, binary, path, old_path)| {
            let status = by_path
                .get(path.as_str())
                .copied()
                .unwrap_or(if old_path.is_some() {
                    ChangeStatus::Renamed
                } else {
                    ChangeStatus::Modified
                });
            ChangedFile {
                path,
                old_path,
                status,
                insertions,
                deletions,
                binary,
            }
        })
        .collect();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files
}

/// The new-side line numbers each file's hunks touch, from a unified diff: every added line,
/// and for a pure deletion the line after which lines were removed. Keyed by the new path.
pub fn changed_lines(diff: &str) -> Vec<(String, Vec<usize>)> {
    let mut out: Vec<(String, Vec<usize>)> = Vec::new();
    let mut current: Option<usize> = None;
    let mut new_line = 0usize;
    // Lines still expected in the current hunk (old side, new side): while either is
    // non-zero, a line is hunk content even if it looks like a header (`+++ x` is an added
    // line `++ x`).
    let (mut old_left, mut new_left) = (0usize, 0usize);
    for line in diff.lines() {
        if old_left > 0 || new_left > 0 {
            match line.as_bytes().first() {
                Some(b'+') => {
                    if let Some(i) = current {
                        out[i].1.push(new_line);
                    }
                    new_line += 1;
                    new_left = new_left.saturating_sub(1);
                }
                Some(b'-') => old_left = old_left.saturating_sub(1),
                Some(b'\\') => {}
                _ => {
                    new_line += 1;
                    old_left = old_left.saturating_sub(1);
                    new_left = new_left.saturating_sub(1);
                }
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix("+++ ") {
            let rest = rest.trim_end_matches('\t');
            if rest == "/dev/null" {
                current = None;
            } else {
                let path = rest.strip_prefix("b/").unwrap_or(rest);
                out.push((unquote(path), Vec::new()));
                current = Some(out.len() - 1);
            }
        } else if line.starts_with("diff --git ") {
            current = None;
        } else if let Some(rest) = line.strip_prefix("@@ ") {
            // @@ -a,b +c,d @@
            let mut parts = rest.split(' ');
            let (Some(minus), Some(plus)) = (parts.next(), parts.next()) else {
                continue;
            };
            let range = |s: &str| -> (usize, usize) {
                let mut nums = s[1..].split(',');
                let start = nums.next().and_then(|n| n.parse().ok()).unwrap_or(0);
                let count = nums.next().and_then(|n| n.parse().ok()).unwrap_or(1);
                (start, count)
            };
            let (_, old_count) = range(minus);
            let (start, count) = range(plus);
            new_line = start;
            old_left = old_count;
            new_left = count;
            if count == 0 {
                if let Some(i) = current {
                    out[i].1.push(start.max(1));
                }
            }
        }
    }
    out
}

/// Undoes git's C-style quoting of a path in diff headers (`"a b\303\251"`), which appears
/// only for paths with unusual bytes (quotepath is off, so UTF-8 stays as is).
fn unquote(path: &str) -> String {
    let Some(inner) = path.strip_prefix('"').and_then(|p| p.strip_suffix('"')) else {
        return path.to_owned();
    };
    let inner = inner.strip_prefix("b/").unwrap_or(inner);
    let mut bytes = Vec::with_capacity(inner.len());
    let mut chars = inner.bytes().peekable();
    while let Some(b) = chars.next() {
        if b != b'\\' {
            bytes.push(b);
            continue;
        }
        match chars.next() {
            Some(b'n') => bytes.push(b'\n'),
            Some(b't') => bytes.push(b'\t'),
            Some(d @ b'0'..=b'7') => {
                let mut v = u32::from(d - b'0');
                for _ in 0..2 {
                    if let Some(&n @ b'0'..=b'7') = chars.peek() {
                        v = v * 8 + u32::from(n - b'0');
                        chars.next();
                    }
                }
                bytes.push(v as u8);
            }
            Some(other) => bytes.push(other),
            None => {}
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}
