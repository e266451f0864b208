//! The context of an agent working on a GitHub issue (the context-builder spec's
//! `build_issue_context`).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

use regex::Regex;

use super::{fit_file, BuildOptions, Metadata, Repo, RECENT_COMMITS};

/// Files mentioned in an issue that are included at most.
pub const MAX_RELATED_FILES: usize = 20;

/// A GitHub issue, as `gh issue view --json` or the REST API gives it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GitHubIssue {
    /// The issue number.
    pub number: u64,
    /// The title.
    pub title: String,
    /// The body (Markdown); empty when none.
    pub body: String,
    /// Label names.
    pub labels: Vec<String>,
    /// `open` or `closed` (as given).
    pub state: String,
    /// Logins of the assignees.
    pub assignees: Vec<String>,
    /// The issue's web address.
    pub url: String,
}

/// What [`build_issue_context`] returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssueContext {
    /// The issue as text: number, title, state, labels, assignees, address, then the body.
    pub issue: String,
    /// Files the issue mentions that exist under the root, by repository-relative path:
    /// whole under 500 lines, otherwise around the lines mentioned (`path:line`).
    pub related_files: BTreeMap<String, String>,
    /// The last 10 commits touching the related files (or the repository when there are
    /// none), one per line: `<short hash> <date> <author>: <subject>`.
    pub recent_changes: String,
    /// Present when anything was truncated, missing, skipped or suspicious.
    pub metadata: Option<Metadata>,
}

fn path_pattern() -> &'static Regex {
    static P: OnceLock<Regex> = OnceLock::new();
    // A path-like token: segments of word characters, dots and dashes, with an extension,
    // optionally followed by :line. Leading `./` and surrounding backticks are allowed.
    P.get_or_init(|| {
        Regex::new(r"(?:^|[\s`'(\[])(?P<path>(?:\.{0,2}/)?[\w.@+-]+(?:/[\w.@+-]+)*\.[A-Za-z0-9]{1,10})(?::(?P<line>\d{1,7}))?")
            .expect("valid pattern")
    })
}

/// The paths an issue mentions, in order of first mention, with the line numbers given as
/// `path:line`.
pub(crate) fn mentioned_paths(text: &str) -> Vec<(String, Vec<usize>)> {
    let mut out: Vec<(String, Vec<usize>)> = Vec::new();
    let mut index: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for c in path_pattern().captures_iter(text) {
        let path = c["path"].trim_end_matches('.').to_owned();
        if path.contains("://") || path.starts_with("www.") {
            continue;
        }
        let line = c.name("line").and_then(|l| l.as_str().parse().ok());
        match index.get(&path) {
            Some(&i) if out[i].1.len() < MAX_LINES_PER_MENTION => out[i].1.extend(line),
            Some(_) => {}
            None if out.len() < MAX_MENTIONS => {
                index.insert(path.clone(), out.len());
                out.push((path, line.into_iter().collect()));
            }
            None => {}
        }
    }
    out
}

/// Distinct path mentions of an issue looked at (so a huge body costs bounded work).
pub const MAX_MENTIONS: usize = 1000;

/// Line numbers kept per mentioned path.
const MAX_LINES_PER_MENTION: usize = 100;

/// Builds the issue context: the issue, the files it mentions (resolved safely inside the
/// root; mentions pointing outside are ignored with a warning, mentions of files that do not
/// exist are simply not related files), and recent changes to them.
pub async fn build_issue_context(
    issue: &GitHubIssue,
    repo_path: &Path,
    options: &BuildOptions,
) -> crate::Result<IssueContext> {
    let repo = Repo::open(repo_path, options)?;
    let mut meta = Metadata::default();

    let mut related_files = BTreeMap::new();
    let text = format!("{}\n{}", issue.title, issue.body);
    for (path, lines) in mentioned_paths(&text) {
        if related_files.len() == MAX_RELATED_FILES {
            meta.warn(format!(
                "only the first {MAX_RELATED_FILES} files the issue mentions are included"
            ));
            break;
        }
        let candidate = path.strip_prefix("./").unwrap_or(&path);
        let resolved = if candidate.starts_with("../") || candidate.starts_with('/') {
            // Outside the root by construction: say so, never read.
            if let Ok(r) = repo.scope.resolve_within(candidate) {
                r
            } else {
                meta.warn(format!(
                    "ignored a path outside the repository: {}",
                    super::shown(candidate)
                ));
                continue;
            }
        } else {
            match repo.scope.resolve(candidate) {
                Ok(r) => r,
                // A word that looks like a file name but is none (`e.g.`, `v1.2`): not related.
                Err(crate::fs_scope::ReadError::NotFound { .. }) => continue,
                Err(e) => {
                    super::note_read_error(&super::shown(candidate), &e, &mut meta);
                    continue;
                }
            }
        };
        if related_files.contains_key(&resolved.rel) || !resolved.abs.is_file() {
            continue;
        }
        let Some(content) = repo.read(&resolved, &mut meta) else {
            continue;
        };
        let content = fit_file("related_files", &resolved.rel, &content, &lines, &mut meta);
        related_files.insert(resolved.rel, content);
    }

    let paths: Vec<String> = related_files.keys().cloned().collect();
    let commits = repo.commits(RECENT_COMMITS, &paths, &mut meta).await;
    let recent_changes = commits
        .iter()
        .map(|c| {
            format!(
                "{} {} {}: {}\n",
                &c.hash[..c.hash.len().min(10)],
                c.date.get(..10).unwrap_or(&c.date),
                c.author,
                c.subject
            )
        })
        .collect();

    let issue_text = repo.redact(&mut meta, "the issue", format_issue(issue));
    Ok(IssueContext {
        issue: issue_text,
        related_files,
        recent_changes,
        metadata: meta.into_option(),
    })
}

fn format_issue(issue: &GitHubIssue) -> String {
    let mut out = format!("#{}: {}\n", issue.number, issue.title);
    if !issue.state.is_empty() {
        out.push_str(&format!("State: {}\n", issue.state));
    }
    if !issue.labels.is_empty() {
        out.push_str(&format!("Labels: {}\n", issue.labels.join(", ")));
    }
    if !issue.assignees.is_empty() {
        out.push_str(&format!("Assignees: {}\n", issue.assignees.join(", ")));
    }
    if !issue.url.is_empty() {
        out.push_str(&format!("URL: {}\n", issue.url));
    }
    if !issue.body.is_empty() {
        out.push('\n');
        out.push_str(&issue.body);
        if !issue.body.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}
