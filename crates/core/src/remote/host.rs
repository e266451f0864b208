//! What the Gitea and GitHub clients share, written once: the server settings, ref resolution
//! (a full SHA is a commit, `HEAD` the default branch, anything else asked of the host), the
//! default branch looked up and remembered for a minute, reading a whole file (capped, binary
//! refused) or a streamed window of its lines, and web links with a line anchor.
//!
//! The vocabulary both hosts share lives here too: [`Token`], [`RepoName`], [`RefKind`] and
//! [`ServedRef`], and the checks of a path and a ref.
//!
//! A host supplies only its API differences through [`HostApi`]: how it describes a repository's
//! default branch, how it finds a branch or tag, how a file's bytes are fetched, and where its
//! web pages live. [`HostClient<GiteaApi>`](super::GiteaClient) and
//! [`HostClient<GitHubApi>`](super::GitHubClient) are the two clients.

use std::marker::PhantomData;
use std::time::Duration;

use reqwest::header::HeaderValue;
use reqwest::Url;

use super::http::{self, Auth, Deadline};
use super::lines::{binary_error, LineWindow, Window};
use super::settings::{self, ServerSettings};
use crate::error::{reason, Error, Result};
use crate::fs_scope::looks_binary;

/// Longest accepted ref name.
const MAX_REF_LEN: usize = 255;
/// Longest accepted file path.
const MAX_PATH_LEN: usize = 4096;

/// An API token. Its `Debug` never shows the value, and it has no `Display`.
#[derive(Clone)]
pub struct Token {
    pub(crate) header: HeaderValue,
}

impl Token {
    /// A token from its text (surrounding whitespace removed). `invalid_request` if it is empty
    /// or holds characters an HTTP header cannot carry; the message never shows the value.
    pub fn new(text: &str) -> Result<Token> {
        let text = text.trim();
        let bad = || {
            Error::invalid_request(
                "token must be a non-empty string of visible ASCII characters without spaces",
            )
        };
        if text.is_empty() || !text.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(bad());
        }
        let mut header = HeaderValue::from_str(&format!("token {text}")).map_err(|_| bad())?;
        header.set_sensitive(true);
        Ok(Token { header })
    }
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(<redacted>)")
    }
}

/// `owner/name` of a repository.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RepoName {
    /// The owner (user or organisation).
    pub owner: String,
    /// The repository.
    pub name: String,
}

impl RepoName {
    /// Parses `owner/name`: two segments of letters, digits, `-`, `_` and `.`, not `.`/`..`.
    pub fn parse(text: &str) -> Result<RepoName> {
        let bad = || Error::invalid_request("repo must be \"owner/name\" (letters, digits, - _ .)");
        let (owner, name) = text.trim().split_once('/').ok_or_else(bad)?;
        let ok = |s: &str| {
            !s.is_empty()
                && s.len() <= 100
                && s != "."
                && s != ".."
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        };
        if !ok(owner) || !ok(name) {
            return Err(bad());
        }
        Ok(RepoName {
            owner: owner.to_owned(),
            name: name.to_owned(),
        })
    }
}

impl std::fmt::Display for RepoName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.owner, self.name)
    }
}

/// Validates a repository-relative file path: `/`-separated, no empty, `.` or `..` segment, no
/// control characters. A leading `/` is dropped.
pub(crate) fn check_path(path: &str) -> Result<String> {
    let p = path.trim_start_matches('/');
    let ok = !p.is_empty()
        && p.len() <= MAX_PATH_LEN
        && !p.chars().any(char::is_control)
        && p.split('/').all(|s| !s.is_empty() && s != "." && s != "..");
    if !ok {
        return Err(Error::invalid_request(
            "file must be a relative path inside the repository (no empty, . or .. segments)",
        ));
    }
    Ok(p.to_owned())
}

/// Validates a ref name by git's rules, loosely: no spaces, control characters, `..`, `~^:?*[\`,
/// no leading or trailing `/`, at most 255 bytes.
pub(crate) fn check_ref(r: &str) -> Result<String> {
    let ok = !r.is_empty()
        && r.len() <= MAX_REF_LEN
        && !r.starts_with('/')
        && !r.ends_with('/')
        && !r.contains("..")
        && !r.contains("//")
        && !r.contains("@{")
        && !r
            .chars()
            .any(|c| c.is_control() || c.is_whitespace() || "~^:?*[\\".contains(c));
    if !ok {
        return Err(Error::invalid_request(
            "ref must be a branch, tag or commit SHA (git ref syntax, at most 255 bytes)",
        ));
    }
    Ok(r.to_owned())
}

/// Whether `r` is a full-length commit id (SHA-1 or SHA-256), the only form Gitea's API
/// recognises as a commit.
pub(crate) fn is_full_sha(r: &str) -> bool {
    (r.len() == 40 || r.len() == 64) && r.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// What kind of ref was served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefKind {
    /// A branch (the default branch when no ref was asked for).
    Branch,
    /// A tag.
    Tag,
    /// A commit, by its full SHA.
    Commit,
}

impl RefKind {
    /// `branch`, `tag` or `commit`: also the segment of Gitea's web URLs.
    pub fn as_str(self) -> &'static str {
        match self {
            RefKind::Branch => "branch",
            RefKind::Tag => "tag",
            RefKind::Commit => "commit",
        }
    }
}

/// The ref a file was actually served from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServedRef {
    /// Branch or tag name, or full commit SHA.
    pub name: String,
    /// Its kind.
    pub kind: RefKind,
}

/// Settings of a [`HostClient`]: [`GiteaConfig`](super::GiteaConfig) or
/// [`GitHubConfig`](super::GitHubConfig).
#[derive(Debug, Clone)]
pub struct HostConfig<A> {
    /// Server URL, e.g. `https://git.example.com` (a sub-path is kept); GitHub's API URL.
    pub base_url: String,
    /// API token; `None` for anonymous access to public repositories.
    pub token: Option<Token>,
    /// Deadline of one call (ref resolution, redirects and body included).
    pub timeout: Duration,
    /// Byte cap of one file.
    pub max_bytes: u64,
    pub(super) host: PhantomData<A>,
}

impl<A: HostApi> Default for HostConfig<A> {
    fn default() -> Self {
        let s = ServerSettings::defaults(A::ENV.default_url);
        HostConfig {
            base_url: s.base_url,
            token: None,
            timeout: s.timeout,
            max_bytes: s.max_bytes,
            host: PhantomData,
        }
    }
}

impl<A: HostApi> HostConfig<A> {
    /// Defaults from the host's environment variables (named on [`GiteaConfig`](super::GiteaConfig)
    /// and [`GitHubConfig`](super::GitHubConfig)). An invalid timeout variable or token is an
    /// `invalid_request` naming the variable (never its value).
    pub fn from_env() -> Result<Self> {
        Self::from_env_with(None, None, None, None)
    }

    /// Like [`from_env`](Self::from_env), but each setting given here wins and its variable is
    /// not even read.
    pub fn from_env_with(
        base_url: Option<String>,
        token: Option<String>,
        timeout: Option<Duration>,
        max_bytes: Option<u64>,
    ) -> Result<Self> {
        let s = ServerSettings::resolve(A::ENV, base_url, timeout, max_bytes)?;
        let token = match token {
            Some(t) => Some(Token::new(&t)?),
            None => A::env_token()?,
        };
        Ok(HostConfig {
            base_url: s.base_url,
            token,
            timeout: s.timeout,
            max_bytes: s.max_bytes,
            host: PhantomData,
        })
    }
}

/// A client of one code host: its URL, token, call deadline and byte cap, and `A`, what is
/// particular to the host's API ([`GiteaApi`](super::gitea::GiteaApi) or
/// [`GitHubApi`](super::github::GitHubApi)).
#[derive(Debug, Clone)]
pub struct HostClient<A> {
    pub(super) base: Url,
    pub(super) token: Option<Token>,
    pub(super) timeout: Duration,
    pub(super) max_bytes: u64,
    pub(super) api: A,
}

/// A file's bytes as the host serves them.
pub enum Body {
    /// The whole file, already read (GitHub's base64 JSON form).
    Whole(Vec<u8>),
    /// A response whose body is the file, read with the byte cap or streamed.
    Stream(reqwest::Response),
}

/// What differs between code hosts (Gitea, GitHub); [`HostClient`] does the rest.
// Only this crate implements it, and it is called on the concrete clients, whose futures are
// `Send`: the `Send` bounds the lint asks for are not needed.
#[allow(async_fn_in_trait)]
pub trait HostApi: Sized {
    /// The host's name in messages (`Gitea`, `GitHub`).
    const SERVICE: &'static str;
    /// The default server and the environment variables of its URL and timeout.
    const ENV: settings::Env;
    /// Whether the file API, asked without a ref, serves the default branch by itself: a whole
    /// file is then read without looking the branch up first.
    const SERVES_DEFAULT_BRANCH: bool;

    /// The host's own part of a client of the server at `base` (checked, with a trailing slash).
    fn for_server(base: &Url) -> Self;

    /// The token from the environment, when none is given.
    fn env_token() -> Result<Option<Token>>;

    /// The default branch as the host describes the repository (checked and remembered by
    /// [`HostClient`]).
    async fn describe_default_branch(
        client: &HostClient<Self>,
        repo: &RepoName,
        deadline: &Deadline,
    ) -> Result<String>;

    /// What a ref that is neither a full SHA nor `HEAD` is; `invalid_request` (not found) if
    /// the host does not know it.
    async fn find_ref(
        client: &HostClient<Self>,
        repo: &RepoName,
        r#ref: &str,
        deadline: &Deadline,
    ) -> Result<ServedRef>;

    /// The bytes of `path` at `served` (`None`: the host's default branch). Status and type are
    /// checked; the byte cap on a [`Body::Stream`] is the caller's.
    async fn open(
        client: &HostClient<Self>,
        repo: &RepoName,
        path: &str,
        served: Option<&ServedRef>,
        deadline: &Deadline,
    ) -> Result<Body>;

    /// The root of the host's web pages.
    fn web_root(client: &HostClient<Self>) -> &Url;

    /// The segments between `{owner}/{repo}/` and the ref's name in a link to a file.
    fn web_path(kind: RefKind) -> Vec<&'static str>;
}

/// The 404 message: the same for a missing repo, ref, path, or a private repo (the hosts do not
/// tell them apart, and neither may we).
pub(super) fn not_found(what: &str) -> Error {
    Error::invalid_request(format!(
        "not found: {what} (a private repository the token cannot read also answers not found)"
    ))
    .with_reason(reason::NOT_FOUND)
}

/// The error for a file over the byte cap.
pub(super) fn too_large(cap: u64) -> Error {
    Error::invalid_request(format!(
        "the file is larger than the {cap}-byte limit (maxBytes)"
    ))
    .with_reason(reason::TOO_LARGE)
}

/// Lines in `bytes` as [`LineWindow`] counts them: one per `\n`, plus a last line without one.
fn line_count(bytes: &[u8]) -> usize {
    let newlines = bytes.iter().filter(|&&b| b == b'\n').count();
    newlines + usize::from(bytes.last().is_some_and(|&b| b != b'\n'))
}

impl<A: HostApi> HostClient<A> {
    /// A client for `config`; `invalid_request` for a bad URL, a zero timeout or cap.
    pub fn new(config: HostConfig<A>) -> Result<Self> {
        let settings = ServerSettings {
            base_url: config.base_url,
            timeout: config.timeout,
            max_bytes: config.max_bytes,
        };
        let base = settings.check()?;
        Ok(HostClient {
            api: A::for_server(&base),
            base,
            token: config.token,
            timeout: settings.timeout,
            max_bytes: settings.max_bytes,
        })
    }

    /// The server (or API) URL, with a trailing slash.
    pub fn base_url(&self) -> &str {
        self.base.as_str()
    }

    /// Whether a token is configured.
    pub fn has_token(&self) -> bool {
        self.token.is_some()
    }

    /// The call deadline.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The byte cap.
    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// The credentials of a request to the server.
    pub(super) fn auth(&self) -> Option<Auth<'_>> {
        self.token.as_ref().map(|t| Auth { header: &t.header })
    }

    /// The whole file `path` of `repo` at `r#ref` (default branch when `None`), as text
    /// (invalid UTF-8 replaced). `invalid_request` for a binary file, a directory, a file over
    /// the byte cap, an unknown ref or a 404.
    pub async fn get_raw_file(
        &self,
        repo: &str,
        path: &str,
        r#ref: Option<&str>,
    ) -> Result<String> {
        let repo = RepoName::parse(repo)?;
        let path = check_path(path)?;
        let r#ref = r#ref.map(check_ref).transpose()?;
        let deadline = Deadline::after(self.timeout);
        deadline
            .run(A::SERVICE, async {
                let served = match r#ref.as_deref() {
                    None if A::SERVES_DEFAULT_BRANCH => None,
                    r => Some(self.served(&repo, r, &deadline).await?),
                };
                let bytes = match A::open(self, &repo, &path, served.as_ref(), &deadline).await? {
                    Body::Whole(bytes) => bytes,
                    Body::Stream(response) => {
                        let cap = self.max_bytes;
                        http::read_capped(response, cap, A::SERVICE, &deadline, || too_large(cap))
                            .await?
                    }
                };
                if looks_binary(&bytes) {
                    return Err(binary_error());
                }
                Ok(match String::from_utf8(bytes) {
                    Ok(s) => s,
                    Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
                })
            })
            .await
    }

    /// Lines `start..=end` of `path` and the ref served; a streamed body is read only up to
    /// `end`.
    pub(crate) async fn file_window(
        &self,
        repo: &RepoName,
        path: &str,
        r#ref: Option<&str>,
        start: usize,
        end: usize,
    ) -> Result<(ServedRef, Window)> {
        let deadline = Deadline::after(self.timeout);
        deadline
            .run(A::SERVICE, async {
                let served = self.served(repo, r#ref, &deadline).await?;
                let mut window = LineWindow::new(start, end, self.max_bytes);
                match A::open(self, repo, path, Some(&served), &deadline).await? {
                    Body::Whole(bytes) => {
                        // The whole file is here: its line count is known even when the
                        // window stopped reading before its end.
                        window.feed(&bytes)?;
                        let mut w = window.finish(true)?;
                        w.total_lines = Some(line_count(&bytes));
                        Ok((served, w))
                    }
                    Body::Stream(response) => {
                        let stopped =
                            http::stream(response, A::SERVICE, &deadline, |c| window.feed(c))
                                .await?;
                        Ok((served, window.finish(!stopped)?))
                    }
                }
            })
            .await
    }

    /// The repository's default branch (remembered for a minute per server and repository).
    pub(crate) async fn default_branch(
        &self,
        repo: &RepoName,
        deadline: &Deadline,
    ) -> Result<String> {
        if let Some(branch) = settings::cached_default_branch(self.base.as_str(), repo) {
            return Ok(branch);
        }
        let name = A::describe_default_branch(self, repo, deadline).await?;
        let branch = check_ref(&name).map_err(|_| {
            Error::unavailable(format!(
                "{} answered with an invalid default branch name",
                A::SERVICE
            ))
        })?;
        settings::remember_default_branch(self.base.as_str(), repo, &branch);
        Ok(branch)
    }

    /// What `r#ref` is: a full SHA is a commit, `HEAD` the default branch; anything else is
    /// asked of the host ([`HostApi::find_ref`]).
    pub(crate) async fn resolve_ref(
        &self,
        repo: &RepoName,
        r#ref: &str,
        deadline: &Deadline,
    ) -> Result<ServedRef> {
        if is_full_sha(r#ref) {
            return Ok(ServedRef {
                name: r#ref.to_owned(),
                kind: RefKind::Commit,
            });
        }
        if r#ref == "HEAD" {
            return Ok(ServedRef {
                name: self.default_branch(repo, deadline).await?,
                kind: RefKind::Branch,
            });
        }
        A::find_ref(self, repo, r#ref, deadline).await
    }

    /// The ref served for `r#ref`: resolved, or the default branch when `None`.
    async fn served(
        &self,
        repo: &RepoName,
        r#ref: Option<&str>,
        deadline: &Deadline,
    ) -> Result<ServedRef> {
        match r#ref {
            Some(r) => self.resolve_ref(repo, r, deadline).await,
            None => Ok(ServedRef {
                name: self.default_branch(repo, deadline).await?,
                kind: RefKind::Branch,
            }),
        }
    }

    /// The web URL of `path` at `served` with a line-range anchor `#L{start}-L{end}`.
    pub fn web_url(
        &self,
        repo: &RepoName,
        served: &ServedRef,
        path: &str,
        start: usize,
        end: usize,
    ) -> String {
        let mut url = http::join_segments(
            A::web_root(self),
            [repo.owner.as_str(), repo.name.as_str()]
                .into_iter()
                .chain(A::web_path(served.kind))
                .chain(served.name.split('/'))
                .chain(path.split('/')),
        );
        url.set_fragment(Some(&format!("L{start}-L{end}")));
        url.into()
    }
}
