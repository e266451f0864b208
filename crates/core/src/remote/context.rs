//! `remote_file_context`: a numbered window of lines around one line of a remote file, from
//! Gitea or GitHub, or rebuilt from Hound when the code host is unavailable or times out.

use super::gitea::{GiteaClient, GiteaConfig};
use super::github::{GitHubClient, GitHubConfig};
use super::host::{check_path, check_ref, is_full_sha, RefKind, RepoName, ServedRef};
use super::hound::{HoundClient, HoundConfig};
use super::lines::{number_lines, past_end};
use crate::error::{Error, ErrorKind, Result};

/// Lines of context on each side when the request gives none.
pub const DEFAULT_CONTEXT_LINES: usize = 10;
/// Most lines of context on each side.
pub const MAX_CONTEXT_LINES: usize = 1000;
/// Largest line number accepted.
pub const MAX_LINE: usize = 100_000_000;

/// What to fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileContextRequest {
    /// `owner/name` on Gitea or GitHub.
    pub repo: String,
    /// Repository-relative path.
    pub file: String,
    /// The 1-based line to centre on.
    pub line: usize,
    /// Lines on each side (default [`DEFAULT_CONTEXT_LINES`]).
    pub context: Option<usize>,
    /// Branch, tag or full commit SHA; the default branch when `None`.
    pub r#ref: Option<String>,
}

/// Where to fetch from.
#[derive(Debug, Clone, Default)]
pub struct RemoteConfig {
    /// Gitea settings (unused when `github` is set).
    pub gitea: GiteaConfig,
    /// GitHub settings: when set, GitHub is the code host instead of Gitea.
    pub github: Option<GitHubConfig>,
    /// Hound settings for the fallback; `None` disables it.
    pub hound: Option<HoundConfig>,
}

impl RemoteConfig {
    /// Gitea from `GITEA_*`; Hound from `HOUND_URL` (no fallback when it is unset) and
    /// `HOUND_TIMEOUT`.
    pub fn from_env() -> Result<RemoteConfig> {
        let hound = match super::settings::env_var("HOUND_URL") {
            Some(_) => Some(HoundConfig::from_env()?),
            None => None,
        };
        Ok(RemoteConfig {
            gitea: GiteaConfig::from_env()?,
            github: None,
            hound,
        })
    }
}

/// Which server the lines came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Gitea's raw-file API.
    Gitea,
    /// GitHub's contents API.
    GitHub,
    /// Hound's index (the code host was unavailable or timed out).
    Hound,
}

impl Source {
    /// `gitea`, `github` or `hound`.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Gitea => "gitea",
            Source::GitHub => "github",
            Source::Hound => "hound",
        }
    }
}

/// The code host a file is read from.
#[derive(Debug, Clone, Copy)]
pub enum CodeHost<'a> {
    /// A Gitea server.
    Gitea(&'a GiteaClient),
    /// GitHub or GitHub Enterprise.
    GitHub(&'a GitHubClient),
}

impl CodeHost<'_> {
    fn source(self) -> Source {
        match self {
            CodeHost::Gitea(_) => Source::Gitea,
            CodeHost::GitHub(_) => Source::GitHub,
        }
    }

    /// The checked request's window and the ref served.
    async fn window(self, c: &Checked) -> Result<(ServedRef, super::lines::Window)> {
        let (repo, file, r#ref) = (&c.repo, &c.file, c.r#ref.as_deref());
        match self {
            CodeHost::Gitea(h) => h.file_window(repo, file, r#ref, c.start, c.end).await,
            CodeHost::GitHub(h) => h.file_window(repo, file, r#ref, c.start, c.end).await,
        }
    }

    /// The web link to lines `c.start..=end` at `served`.
    fn link(self, c: &Checked, served: &ServedRef, end: usize) -> String {
        match self {
            CodeHost::Gitea(h) => h.web_url(&c.repo, served, &c.file, c.start, end),
            CodeHost::GitHub(h) => h.web_url(&c.repo, served, &c.file, c.start, end),
        }
    }
}

/// A window of a remote file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileContextResult {
    /// `owner/name`.
    pub repo: String,
    /// Repository-relative path.
    pub file: String,
    /// The line asked for.
    pub line: usize,
    /// First line returned (1-based).
    pub start_line: usize,
    /// Last line returned (shorter than asked at the end of the file).
    pub end_line: usize,
    /// The lines, numbered (`"  12 | text"`, the asked line marked `>`), one per `\n`.
    pub content: String,
    /// The lines without numbers.
    pub lines: Vec<String>,
    /// Code-host web link to exactly the ref served, with `#L{start}-L{end}`.
    pub url: String,
    /// The ref served: branch or tag name, or full commit SHA.
    pub r#ref: String,
    /// Its kind.
    pub ref_kind: RefKind,
    /// The server that served the lines.
    pub source: Source,
    /// Lines in the file, when the whole file was read.
    pub total_lines: Option<usize>,
    /// Suspected secrets replaced by `[REDACTED:<kind>]` in `lines` and `content`: how many.
    pub redacted: usize,
    /// The same secrets: kind and 1-based file line each, never the value.
    pub redactions: Vec<crate::secrets::Redaction>,
    /// Anything the caller should know (why the fallback was used, a ref that Hound cannot
    /// vouch for, redactions).
    pub warnings: Vec<String>,
}

struct Checked {
    repo: RepoName,
    file: String,
    line: usize,
    start: usize,
    end: usize,
    r#ref: Option<String>,
}

fn check(req: &FileContextRequest) -> Result<Checked> {
    let repo = RepoName::parse(&req.repo)?;
    let file = check_path(&req.file)?;
    if req.line == 0 || req.line > MAX_LINE {
        return Err(Error::invalid_request(format!(
            "line must be a whole number from 1 to {MAX_LINE}"
        )));
    }
    let context = req.context.unwrap_or(DEFAULT_CONTEXT_LINES);
    if context > MAX_CONTEXT_LINES {
        return Err(Error::invalid_request(format!(
            "context must be a whole number from 0 to {MAX_CONTEXT_LINES}"
        )));
    }
    let r#ref = req.r#ref.as_deref().map(check_ref).transpose()?;
    Ok(Checked {
        repo,
        file,
        line: req.line,
        start: req.line.saturating_sub(context).max(1),
        end: req.line + context,
        r#ref,
    })
}

/// [`remote_file_context_with`] over clients built from `config`.
pub async fn remote_file_context(
    req: &FileContextRequest,
    config: RemoteConfig,
) -> Result<FileContextResult> {
    let hound = config.hound.map(HoundClient::new).transpose()?;
    if let Some(github) = config.github {
        let github = GitHubClient::new(github)?;
        remote_file_context_on(req, CodeHost::GitHub(&github), hound.as_ref()).await
    } else {
        let gitea = GiteaClient::new(config.gitea)?;
        remote_file_context_on(req, CodeHost::Gitea(&gitea), hound.as_ref()).await
    }
}

/// Lines `line - context ..= line + context` of `req.file`, from Gitea; when Gitea is
/// unavailable or times out and `hound` is given, rebuilt from Hound's index.
///
/// Errors: `invalid_request` for bad input, a 404 (repo, ref or file; private repos included),
/// an unknown ref, a binary file, a line past the end, a window beyond the byte cap;
/// `unauthorized` for 401/403; `unavailable` or `timeout` when Gitea failed so (and Hound too,
/// if configured).
pub async fn remote_file_context_with(
    req: &FileContextRequest,
    gitea: &GiteaClient,
    hound: Option<&HoundClient>,
) -> Result<FileContextResult> {
    remote_file_context_on(req, CodeHost::Gitea(gitea), hound).await
}

/// [`remote_file_context_with`] for any code host: Gitea or GitHub (`source: github`).
pub async fn remote_file_context_on(
    req: &FileContextRequest,
    gitea: CodeHost<'_>,
    hound: Option<&HoundClient>,
) -> Result<FileContextResult> {
    let c = check(req)?;
    let gitea_error = match gitea.window(&c).await {
        Ok((served, window)) => {
            if window.end < c.line {
                return Err(past_end(c.line, window.end));
            }
            return Ok(build(
                &c,
                gitea,
                served,
                window.lines,
                window.total_lines,
                gitea.source(),
                Vec::new(),
            ));
        }
        Err(e) => e,
    };
    let fallback_allowed = matches!(
        gitea_error.kind(),
        ErrorKind::Unavailable | ErrorKind::Timeout
    );
    let Some(hound) = hound.filter(|_| fallback_allowed) else {
        return Err(gitea_error);
    };
    match from_hound(&c, gitea, hound, &gitea_error).await {
        Ok(result) => Ok(result),
        Err(hound_error) => Err(Error::new(
            gitea_error.kind(),
            format!(
                "{}; the Hound fallback failed too: {}",
                gitea_error.message(),
                hound_error.message()
            ),
        )
        .with_source(gitea_error)),
    }
}

fn build(
    c: &Checked,
    gitea: CodeHost<'_>,
    served: ServedRef,
    lines: Vec<String>,
    total_lines: Option<usize>,
    source: Source,
    mut warnings: Vec<String>,
) -> FileContextResult {
    let end = c.start + lines.len() - 1;
    let (lines, mut redactions) = redact_lines(lines);
    crate::secrets::shift_lines(&mut redactions, c.start - 1);
    let redacted = redactions.len();
    if redacted > 0 {
        warnings.push(format!(
            "{redacted} suspected secret(s) replaced by [REDACTED:<kind>] markers."
        ));
    }
    FileContextResult {
        repo: c.repo.to_string(),
        file: c.file.clone(),
        line: c.line,
        start_line: c.start,
        end_line: end,
        content: number_lines(&lines, c.start, c.line),
        url: gitea.link(c, &served, end),
        lines,
        r#ref: served.name,
        ref_kind: served.kind,
        source,
        total_lines,
        redacted,
        redactions,
        warnings,
    }
}

/// Redacts secrets before the lines reach a model ([`crate::secrets::redact`]); the line count
/// is kept (a line that would not survive is redacted on its own instead).
fn redact_lines(lines: Vec<String>) -> (Vec<String>, Vec<crate::secrets::Redaction>) {
    let joined = lines.join("\n");
    let (text, report) = crate::secrets::redact_reported(&joined);
    if report.is_empty() {
        return (lines, report);
    }
    let split: Vec<String> = text.split('\n').map(str::to_owned).collect();
    if split.len() == lines.len() {
        return (split, report);
    }
    let mut report = Vec::new();
    let per_line = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let (text, found) = crate::secrets::redact_reported(l);
            report.extend(
                found
                    .into_iter()
                    .map(|r| crate::secrets::Redaction { line: i + 1, ..r }),
            );
            text.replace('\n', " ")
        })
        .collect();
    (per_line, report)
}

/// Finds the Hound repository for a code host's `owner/name` ([`super::hound::hound_repo_key`]).
async fn hound_repo(hound: &HoundClient, repo: &RepoName) -> Result<String> {
    hound.repo_key(&repo.to_string()).await?.ok_or_else(|| {
        Error::invalid_request("not found: Hound does not index this repository")
            .with_reason(crate::error::reason::NOT_FOUND)
    })
}

async fn from_hound(
    c: &Checked,
    gitea: CodeHost<'_>,
    hound: &HoundClient,
    gitea_error: &Error,
) -> Result<FileContextResult> {
    let name = hound_repo(hound, &c.repo).await?;
    let (lines, revision, last_seen) = hound.file_lines(&name, &c.file, c.start, c.end).await?;
    if lines.is_empty() || c.start + lines.len() - 1 < c.line {
        return Err(past_end(c.line, last_seen));
    }
    if !is_full_sha(&revision) {
        return Err(Error::unavailable(
            "Hound answered without the indexed commit; the lines cannot be attributed",
        ));
    }
    let mut warnings = vec![format!(
        "{} Served from Hound's index of commit {revision}.",
        sentence(gitea_error.message())
    )];
    match &c.r#ref {
        Some(r) if is_full_sha(r) && *r != revision => {
            return Err(Error::invalid_request(
                "Hound has indexed another commit than the requested one",
            ))
        }
        Some(r) if !is_full_sha(r) => warnings.push(format!(
            "The requested ref {r} could not be checked while the code host is unavailable; the lines are \
             from the commit Hound indexed."
        )),
        _ => {}
    }
    // With fewer lines than asked and the window cut, the file ends at its last line.
    let total = (c.start + lines.len() - 1 < c.end).then_some(last_seen);
    let served = ServedRef {
        name: revision,
        kind: RefKind::Commit,
    };
    Ok(build(
        c,
        gitea,
        served,
        lines,
        total,
        Source::Hound,
        warnings,
    ))
}

fn sentence(message: &str) -> String {
    let mut s = message.to_owned();
    if !s.ends_with('.') {
        s.push('.');
    }
    s
}
