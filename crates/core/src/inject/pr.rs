//! The pull-request source: metadata and diff through the GitHub CLI (`gh pr view --json`,
//! `gh pr diff`), run with explicit arguments, no prompts, no colour, a timeout and an output
//! cap.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;
use tokio::process::Command;

use super::{ContextSource, SourceKind};
use crate::git::{run_process, Finished, ProcessError};
use crate::{Error, ErrorKind};

/// How long one `gh` command may run.
pub const GH_TIMEOUT: Duration = Duration::from_secs(30);

/// The `--json` fields asked of `gh pr view`.
pub const PR_FIELDS: &str =
    "number,title,body,state,isDraft,author,baseRefName,headRefName,url,labels,additions,deletions,changedFiles";

/// Which pull request: a number, or what `gh` accepts besides (a URL or a branch name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PrRef {
    /// `#12`.
    Number(u64),
    /// A URL or branch name (checked: no whitespace, not starting with `-`).
    Name(String),
}

impl PrRef {
    /// Checks a string reference: non-empty, at most 512 bytes, no whitespace or control
    /// characters, not starting with `-` (it would be read as an option).
    pub fn parse(s: &str) -> crate::Result<PrRef> {
        if let Ok(n) = s.trim_start_matches('#').parse::<u64>() {
            if n > 0 {
                return Ok(PrRef::Number(n));
            }
        }
        let bad = s.is_empty()
            || s.len() > 512
            || s.starts_with('-')
            || s.chars().any(|c| c.is_whitespace() || c.is_control());
        if bad {
            return Err(Error::invalid_request(
                "pr must be a pull request number, URL or branch name",
            ));
        }
        Ok(PrRef::Name(s.to_owned()))
    }

    fn arg(&self) -> String {
        match self {
            PrRef::Number(n) => n.to_string(),
            PrRef::Name(s) => s.clone(),
        }
    }
}

/// How `gh` is run.
#[derive(Debug, Clone)]
pub struct Gh {
    program: PathBuf,
    timeout: Duration,
    path_env: Option<OsString>,
}

impl Default for Gh {
    fn default() -> Self {
        Gh {
            program: PathBuf::from("gh"),
            timeout: GH_TIMEOUT,
            path_env: None,
        }
    }
}

impl Gh {
    /// Runs `gh` with this `PATH` (tests).
    pub fn with_path_env(mut self, path: impl Into<OsString>) -> Gh {
        self.path_env = Some(path.into());
        self
    }

    /// Sets the timeout of each command.
    pub fn with_timeout(mut self, timeout: Duration) -> Gh {
        self.timeout = timeout;
        self
    }

    async fn run(&self, dir: &Path, args: &[&str], cap: usize) -> crate::Result<Finished> {
        let mut cmd = Command::new(&self.program);
        cmd.args(args)
            .current_dir(dir)
            .env("GH_PROMPT_DISABLED", "1")
            .env("GH_NO_UPDATE_NOTIFIER", "1")
            .env("GH_SPINNER_DISABLED", "1")
            .env("NO_COLOR", "1")
            .env("CLICOLOR", "0")
            .env("GH_PAGER", "cat")
            .env("PAGER", "cat")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("LC_ALL", "C");
        if let Some(path) = &self.path_env {
            cmd.env("PATH", path);
        }
        let finished = match run_process(cmd, self.timeout, cap).await {
            Ok(f) => f,
            Err(ProcessError::NotFound) => {
                return Err(Error::unavailable(
                    "the GitHub CLI (gh) is not installed or not on PATH",
                ))
            }
            Err(ProcessError::TimedOut) => {
                return Err(Error::timeout(format!(
                    "gh did not answer within {} seconds",
                    self.timeout.as_secs()
                )))
            }
            Err(ProcessError::Io(e)) => {
                return Err(
                    Error::unavailable("the GitHub CLI (gh) could not be run").with_source(e)
                )
            }
        };
        if finished.success || finished.truncated {
            return Ok(finished);
        }
        Err(classify(args, &finished))
    }
}

fn classify(args: &[&str], f: &Finished) -> Error {
    let stderr = String::from_utf8_lossy(&f.stderr).to_ascii_lowercase();
    let what = format!(
        "gh {}",
        args.iter().take(2).copied().collect::<Vec<_>>().join(" ")
    );
    if stderr.contains("gh auth login")
        || stderr.contains("authentication")
        || stderr.contains("not logged in")
        || stderr.contains("http 401")
        || stderr.contains("bad credentials")
    {
        Error::unauthorized("gh is not authenticated; run `gh auth login`")
    } else if stderr.contains("no pull requests found")
        || stderr.contains("could not resolve to a pullrequest")
        || stderr.contains("http 404")
    {
        Error::new(ErrorKind::InvalidRequest, "the pull request was not found")
            .with_reason(crate::error::reason::NOT_FOUND)
    } else {
        Error::unavailable(format!("{what} failed with exit status {}", f.status))
    }
}

fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn render_meta(v: &Value) -> String {
    let mut out = format!(
        "PR #{}: {}\n",
        v.get("number").and_then(Value::as_u64).unwrap_or(0),
        s(v, "title")
    );
    let draft = if v.get("isDraft").and_then(Value::as_bool).unwrap_or(false) {
        " (draft)"
    } else {
        ""
    };
    out.push_str(&format!(
        "State: {}{draft}; {} <- {}\n",
        s(v, "state"),
        s(v, "baseRefName"),
        s(v, "headRefName")
    ));
    if let Some(login) = v
        .get("author")
        .and_then(|a| a.get("login"))
        .and_then(Value::as_str)
    {
        out.push_str(&format!("Author: {login}\n"));
    }
    let labels: Vec<&str> = v
        .get("labels")
        .and_then(Value::as_array)
        .map(|l| {
            l.iter()
                .filter_map(|x| x.get("name").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default();
    if !labels.is_empty() {
        out.push_str(&format!("Labels: {}\n", labels.join(", ")));
    }
    if !s(v, "url").is_empty() {
        out.push_str(&format!("URL: {}\n", s(v, "url")));
    }
    let n = |k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
    out.push_str(&format!(
        "Changes: +{} -{} in {} files\n",
        n("additions"),
        n("deletions"),
        n("changedFiles")
    ));
    let body = s(v, "body").replace("\r\n", "\n");
    if !body.trim().is_empty() {
        out.push('\n');
        out.push_str(body.trim_end());
        out.push('\n');
    }
    out
}

/// A pull request's metadata and diff, through `gh pr view <pr> --json ...` and
/// `gh pr diff <pr> --color never`, run in `repo_path` (so `gh` knows the repository), rendered
/// and cut at `max_chars`; secrets redacted and reported when `redact`.
///
/// Errors: `gh` missing or failing (`unavailable`), not authenticated (`unauthorized`), no
/// such pull request (`invalid_request`), too slow (`timeout`), unparsable output
/// (`unavailable`).
pub async fn pr_context(
    repo_path: &Path,
    pr: &PrRef,
    max_chars: usize,
    gh: Option<Gh>,
    redact: bool,
) -> crate::Result<ContextSource> {
    let scope = super::open_scope(repo_path, "repoPath")?;
    let gh = gh.unwrap_or_default();
    let arg = pr.arg();
    let view = gh
        .run(
            scope.root(),
            &["pr", "view", &arg, "--json", PR_FIELDS],
            16 * 1024 * 1024,
        )
        .await?;
    let meta: Value = serde_json::from_slice(&view.stdout).map_err(|e| {
        Error::unavailable("gh pr view printed output that is not the expected JSON").with_source(e)
    })?;
    let cap = max_chars.saturating_mul(4).saturating_add(4096);
    let diff = gh
        .run(scope.root(), &["pr", "diff", &arg, "--color", "never"], cap)
        .await?;
    let mut out = render_meta(&meta);
    out.push_str("\nDiff:\n");
    out.push_str(&String::from_utf8_lossy(&diff.stdout));
    let label = format!(
        "PR #{}",
        meta.get("number").and_then(Value::as_u64).unwrap_or(0)
    );
    Ok(super::finish_source(
        SourceKind::Pr,
        label,
        &out,
        max_chars,
        redact,
        diff.truncated,
    ))
}
