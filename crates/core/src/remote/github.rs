//! The GitHub client: file contents, ref resolution and web links, through GitHub's REST API
//! (api.github.com, or a GitHub Enterprise Server's `https://host/api/v3`).
//!
//! How the API behaves (GitHub's REST documentation, "Repository contents" and "Rate limits"):
//! - `GET /repos/{owner}/{repo}/contents/{path}?ref={ref}` with `Accept:
//!   application/vnd.github+json` answers a JSON object `{ type: "file", encoding: "base64",
//!   content, size, ... }`; content is base64 with a newline every 60 characters. For files
//!   over 1 MB (up to 100 MB) `encoding` is `"none"` and `content` empty: the same URL with
//!   `Accept: application/vnd.github.raw+json` then serves the bytes, streamed here. A directory
//!   answers a JSON array, a symlink or submodule an object of that `type`.
//! - Unlike Gitea, an unknown ref is a 404 ("No commit found for the ref"), never the default
//!   branch. A ref is still resolved first, to report what was served (branch, tag or commit)
//!   and to serve a commit by its full SHA.
//! - A missing or private repository answers 404; bad credentials 401.
//! - Rate limits: `403` or `429` with `x-ratelimit-remaining: 0` (the reset time, in epoch
//!   seconds, in `x-ratelimit-reset`) or with `retry-after` (secondary limits). Both are
//!   `unavailable`, with the reset time in the message; any other 403 is `unauthorized`.
//! - `Authorization: token <T>` is accepted for every token kind; it is sent only to the
//!   configured origin ([`http::send`]).

use base64::Engine as _;
use reqwest::header::{HeaderMap, HeaderValue, ACCEPT};
use reqwest::{StatusCode, Url};
use serde::Deserialize;

use super::host::{is_full_sha, RefKind, RepoName, ServedRef, Token};
use super::host::{not_found, too_large, Body, HostApi, HostClient, HostConfig};
use super::http::{self, Deadline, Get};
use super::settings;
use crate::error::{Error, Result};

/// The public API, used when neither `baseUrl` nor `GITHUB_API_URL` is set.
pub const DEFAULT_GITHUB_URL: &str = "https://api.github.com";
/// Largest JSON description read (a 1 MB file is about 1.4 MB of base64).
const MAX_JSON_BYTES: u64 = 4 * 1024 * 1024;
const JSON: &str = "application/vnd.github+json";
const RAW: &str = "application/vnd.github.raw+json";
const API_VERSION: &str = "2022-11-28";

/// Settings of a [`GitHubClient`]: `base_url` is the API URL (`https://api.github.com`, or
/// `https://host/api/v3` for GitHub Enterprise). [`HostConfig::from_env`] reads
/// `GITHUB_API_URL`, `GITHUB_TOKEN` (else `GH_TOKEN`) and `GITHUB_TIMEOUT` (milliseconds).
pub type GitHubConfig = HostConfig<GitHubApi>;

#[derive(Deserialize)]
struct RepoInfo {
    default_branch: String,
}

#[derive(Deserialize)]
struct Contents {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    encoding: Option<String>,
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    size: u64,
}

#[derive(Deserialize)]
struct CommitInfo {
    sha: String,
}

/// What is particular to GitHub's API (see the module notes): the web root links point to;
/// the rest is [`HostClient`]'s.
#[derive(Debug, Clone)]
pub struct GitHubApi {
    web: Url,
}

/// A client of one GitHub (or GitHub Enterprise) API.
pub type GitHubClient = HostClient<GitHubApi>;

/// The web root for an API URL: `api.github.com` is `github.com`, an Enterprise
/// `https://host/api/v3/` is `https://host/`; any other URL is its own web root.
fn web_root(api: &Url) -> Url {
    let mut web = api.clone();
    if api.host_str() == Some("api.github.com") {
        let _ = web.set_host(Some("github.com"));
    } else if let Some(prefix) = api.path().strip_suffix("api/v3/") {
        web.set_path(prefix);
    }
    web
}

/// Seconds since the epoch as an RFC 3339 UTC time (`2026-11-23T15:04:05Z`).
fn utc(epoch: u64) -> String {
    let days = epoch / 86_400;
    let secs = epoch % 86_400;
    // Civil from days (Howard Hinnant's algorithm), for 1970 onwards.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// `unavailable` for a rate-limited answer (403/429 with `x-ratelimit-remaining: 0` or
/// `retry-after`), else `None`.
fn rate_limit(status: StatusCode, headers: &HeaderMap) -> Option<Error> {
    if !matches!(status.as_u16(), 403 | 429) {
        return None;
    }
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(secs) = header("retry-after").and_then(|v| v.parse::<u64>().ok()) {
        let at = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs())
            + secs;
        return Some(Error::unavailable(format!(
            "GitHub rate limit exceeded (HTTP {}); retry after {secs} s (at {})",
            status.as_u16(),
            utc(at)
        )));
    }
    if header("x-ratelimit-remaining") == Some("0") {
        let reset = header("x-ratelimit-reset")
            .and_then(|v| v.parse::<u64>().ok())
            .map_or_else(|| "unknown".to_owned(), utc);
        return Some(Error::unavailable(format!(
            "GitHub rate limit exceeded (HTTP {}); it resets at {reset}",
            status.as_u16()
        )));
    }
    if status.as_u16() == 429 {
        return Some(Error::unavailable(
            "GitHub rate limit exceeded (HTTP 429); retry later",
        ));
    }
    None
}

impl GitHubClient {
    /// The web root links point to (with a trailing slash).
    pub fn web_base_url(&self) -> &str {
        self.api.web.as_str()
    }

    fn api<'a>(&self, repo: &'a RepoName, rest: impl IntoIterator<Item = &'a str>) -> Url {
        http::join_segments(
            &self.base,
            ["repos", repo.owner.as_str(), repo.name.as_str()]
                .into_iter()
                .chain(rest),
        )
    }

    async fn get(
        &self,
        url: Url,
        accept: &'static str,
        deadline: &Deadline,
    ) -> Result<reqwest::Response> {
        http::send_with(
            Get {
                url,
                auth: self.auth(),
                service: "GitHub",
            },
            &[
                (ACCEPT, HeaderValue::from_static(accept)),
                (
                    reqwest::header::HeaderName::from_static("x-github-api-version"),
                    HeaderValue::from_static(API_VERSION),
                ),
            ],
            deadline,
        )
        .await
    }

    /// The error for a non-200 answer: rate limits first, then 404 as `not found: {what}`.
    fn status_error(response: &reqwest::Response, what: &str) -> Error {
        let status = response.status();
        if let Some(e) = rate_limit(status, response.headers()) {
            return e;
        }
        if status == StatusCode::NOT_FOUND {
            return not_found(what);
        }
        http::status_error(status, "GitHub")
    }

    async fn json<T: serde::de::DeserializeOwned>(
        &self,
        url: Url,
        what: &str,
        deadline: &Deadline,
    ) -> Result<Option<T>> {
        let response = self.get(url, JSON, deadline).await?;
        match response.status() {
            StatusCode::OK => {}
            StatusCode::NOT_FOUND => return Ok(None),
            _ => return Err(Self::status_error(&response, what)),
        }
        let body = http::read_capped(response, MAX_JSON_BYTES, "GitHub", deadline, || {
            Error::unavailable("GitHub answered with an oversized description")
        })
        .await?;
        serde_json::from_slice(&body).map(Some).map_err(|e| {
            Error::unavailable("GitHub answered with a response that is not the expected JSON")
                .with_source(e)
        })
    }

    /// The contents URL of `path` at `served` (the default branch when `None`).
    fn contents_url(&self, repo: &RepoName, path: &str, served: Option<&ServedRef>) -> Url {
        let mut url = self.api(repo, std::iter::once("contents").chain(path.split('/')));
        if let Some(served) = served {
            url.query_pairs_mut().append_pair("ref", &served.name);
        }
        url
    }

    /// Asks the contents API: `Ok(Some(bytes))` for a base64-encoded file, `Ok(None)` when the
    /// file is too large for the JSON form (then the raw media type serves it).
    async fn contents(
        &self,
        repo: &RepoName,
        path: &str,
        served: Option<&ServedRef>,
        deadline: &Deadline,
    ) -> Result<Option<Vec<u8>>> {
        let value: serde_json::Value = self
            .json(
                self.contents_url(repo, path, served),
                "repository, ref or file",
                deadline,
            )
            .await?
            .ok_or_else(|| not_found("repository, ref or file"))?;
        if value.is_array() {
            return Err(Error::invalid_request(
                "the path is a directory; only files have line context",
            ));
        }
        let contents: Contents = serde_json::from_value(value).map_err(|e| {
            Error::unavailable("GitHub answered with a response that is not the expected JSON")
                .with_source(e)
        })?;
        if contents.kind != "file" {
            return Err(Error::invalid_request(format!(
                "the path is a {}, not a file",
                match contents.kind.as_str() {
                    "symlink" => "symbolic link",
                    "submodule" => "submodule",
                    "dir" => "directory",
                    _ => "non-file entry",
                }
            )));
        }
        if contents.size > self.max_bytes && contents.encoding.as_deref() == Some("base64") {
            return Err(too_large(self.max_bytes));
        }
        match (contents.encoding.as_deref(), contents.content) {
            (Some("base64"), Some(text)) => {
                let compact: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
                base64::engine::general_purpose::STANDARD
                    .decode(compact)
                    .map(Some)
                    .map_err(|e| {
                        Error::unavailable("GitHub answered with invalid base64 content")
                            .with_source(e)
                    })
            }
            // Files over 1 MB: `encoding: "none"` and no content.
            _ => Ok(None),
        }
    }
}

impl HostApi for GitHubApi {
    const SERVICE: &'static str = "GitHub";
    const ENV: settings::Env =
        settings::Env::new(DEFAULT_GITHUB_URL, "GITHUB_API_URL", "GITHUB_TIMEOUT");
    /// The default branch is looked up (and remembered) even for a whole file.
    const SERVES_DEFAULT_BRANCH: bool = false;

    fn for_server(base: &Url) -> Self {
        GitHubApi {
            web: web_root(base),
        }
    }

    /// `GITHUB_TOKEN`, else `GH_TOKEN`.
    fn env_token() -> Result<Option<Token>> {
        match settings::env_var("GITHUB_TOKEN")
            .map(|t| ("GITHUB_TOKEN", t))
            .or_else(|| settings::env_var("GH_TOKEN").map(|t| ("GH_TOKEN", t)))
        {
            Some((name, t)) => Token::new(&t).map(Some).map_err(|_| {
                Error::invalid_request(format!("{name} must be visible ASCII characters"))
            }),
            None => Ok(None),
        }
    }

    /// `GET /repos/{owner}/{repo}`.
    async fn describe_default_branch(
        client: &GitHubClient,
        repo: &RepoName,
        deadline: &Deadline,
    ) -> Result<String> {
        let info: RepoInfo = client
            .json(client.api(repo, []), "repository", deadline)
            .await?
            .ok_or_else(|| not_found("repository"))?;
        Ok(info.default_branch)
    }

    /// A branch (`/branches/{ref}`), else a tag (`/git/ref/tags/{ref}`), else a commit-ish
    /// GitHub knows (`/commits/{ref}`, served by its full SHA), else `invalid_request`.
    async fn find_ref(
        client: &GitHubClient,
        repo: &RepoName,
        r#ref: &str,
        deadline: &Deadline,
    ) -> Result<ServedRef> {
        let segments: Vec<&str> = r#ref.split('/').collect();
        let branch = client.api(
            repo,
            ["branches"].into_iter().chain(segments.iter().copied()),
        );
        if client
            .json::<serde_json::Value>(branch, "repository", deadline)
            .await?
            .is_some()
        {
            return Ok(ServedRef {
                name: r#ref.to_owned(),
                kind: RefKind::Branch,
            });
        }
        let tag = client.api(
            repo,
            ["git", "ref", "tags"]
                .into_iter()
                .chain(segments.iter().copied()),
        );
        if client
            .json::<serde_json::Value>(tag, "repository", deadline)
            .await?
            .is_some()
        {
            return Ok(ServedRef {
                name: r#ref.to_owned(),
                kind: RefKind::Tag,
            });
        }
        let commit = client.api(repo, ["commits", r#ref]);
        // An unknown commit-ish answers 404 or 422 ("No commit found for SHA").
        let found = match client
            .json::<CommitInfo>(commit, "repository", deadline)
            .await
        {
            Ok(found) => found,
            Err(e) if e.message().contains("HTTP 422") => None,
            Err(e) => return Err(e),
        };
        match found {
            Some(c) if is_full_sha(&c.sha) => Ok(ServedRef {
                name: c.sha,
                kind: RefKind::Commit,
            }),
            _ => Err(Error::invalid_request(
                "not found: ref is not a branch, tag or commit of the repository",
            )
            .with_reason(crate::error::reason::NOT_FOUND)),
        }
    }

    /// The contents API's base64 form, else (files over 1 MB) the raw media type, streamed.
    async fn open(
        client: &GitHubClient,
        repo: &RepoName,
        path: &str,
        served: Option<&ServedRef>,
        deadline: &Deadline,
    ) -> Result<Body> {
        if let Some(bytes) = client.contents(repo, path, served, deadline).await? {
            return Ok(Body::Whole(bytes));
        }
        let response = client
            .get(client.contents_url(repo, path, served), RAW, deadline)
            .await?;
        if response.status() != StatusCode::OK {
            return Err(GitHubClient::status_error(
                &response,
                "repository, ref or file",
            ));
        }
        Ok(Body::Stream(response))
    }

    /// Links are `{web}{owner}/{repo}/blob/{ref}/{path}`.
    fn web_root(client: &GitHubClient) -> &Url {
        &client.api.web
    }

    fn web_path(_: RefKind) -> Vec<&'static str> {
        vec!["blob"]
    }
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn epoch_seconds_format_as_utc() {
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc(1_700_000_000), "2023-11-14T22:13:20Z");
        assert_eq!(utc(4_102_444_799), "2099-12-31T23:59:59Z");
    }

    #[test]
    fn web_roots_of_api_urls() {
        let root = |u: &str| web_root(&http::parse_base_url(u, "baseUrl").unwrap()).to_string();
        assert_eq!(root("https://api.github.com"), "https://github.com/");
        assert_eq!(
            root("https://ghe.example.com/api/v3"),
            "https://ghe.example.com/"
        );
        assert_eq!(
            root("https://ghe.example.com/sub/api/v3/"),
            "https://ghe.example.com/sub/"
        );
        assert_eq!(root("http://127.0.0.1:9/"), "http://127.0.0.1:9/");
    }
}
