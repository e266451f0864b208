//! The Gitea client: raw files, ref resolution and web links.
//!
//! How the real server behaves (from its source; see the project's Gitea fixture notes):
//! - `GET /api/v1/repos/{owner}/{repo}/raw/{path}?ref={ref}` serves the blob bytes; with `?ref=`
//!   the whole path is the file path and `ref` is looked up as a branch, then a tag, then a
//!   full-length commit SHA. **An unknown ref (a short SHA included) silently serves the default
//!   branch.** So a ref is resolved here first: `GET .../branches/{ref}`, then `.../tags/{ref}`;
//!   a 40- or 64-character lowercase hex string is a commit. An unknown ref is an
//!   `invalid_request`, never someone else's content.
//! - A missing repo, file, directory or a private repo without access all answer 404, never 401.
//! - Bad credentials answer 401; `Authorization: token <T>` is the header used here.
//! - Text is served as `text/plain; charset=...`; binaries as `application/octet-stream` or
//!   their media type. Both the type and the first 8 KiB are checked.

use std::path::PathBuf;

use reqwest::header::CONTENT_TYPE;
use reqwest::{StatusCode, Url};
use serde::Deserialize;

use super::host::{
    not_found, Body, HostApi, HostClient, HostConfig, RefKind, RepoName, ServedRef, Token,
};
use super::http::{self, Deadline, Get};
use super::lines::binary_error;
use super::settings::{self, env_var};
use crate::error::{Error, Result};
use crate::fs_scope::{ReadLimits, Scope};

/// The ADR's default server, used when neither `baseUrl` nor `GITEA_URL` is set.
pub const DEFAULT_GITEA_URL: &str = "https://git.integrolabs.net";

/// Settings of a [`GiteaClient`]. [`HostConfig::from_env`] reads `GITEA_URL`, `GITEA_TOKEN`
/// (else the file `~/.config/gitea/token`) and `GITEA_TIMEOUT` (milliseconds); an invalid
/// `GITEA_TIMEOUT` or token is an `invalid_request` naming the variable (never its value), and
/// an explicit `token` also skips the token file.
pub type GiteaConfig = HostConfig<GiteaApi>;

/// Reads `~/.config/gitea/token` through `fs_scope` (a symlink leaving that directory, a FIFO
/// or a huge file is refused). A missing file is no token.
fn token_file() -> Result<Option<Token>> {
    let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) else {
        return Ok(None);
    };
    let dir = PathBuf::from(home).join(".config").join("gitea");
    if !dir.is_dir() {
        return Ok(None);
    }
    let Ok(scope) = Scope::new(&dir) else {
        return Ok(None);
    };
    let limits = ReadLimits {
        max_bytes: 4096,
        ..ReadLimits::default()
    };
    match scope.read_text("token", &limits) {
        Ok(file) => Token::new(&file.text).map(Some).map_err(|_| {
            Error::invalid_request("the token file ~/.config/gitea/token is not a valid token")
        }),
        Err(_) => Ok(None),
    }
}

#[derive(Deserialize)]
struct RepoInfo {
    default_branch: String,
    #[serde(default)]
    empty: bool,
}

/// What is particular to Gitea's API (see the module notes); the rest is [`HostClient`]'s.
#[derive(Debug, Clone, Copy)]
pub struct GiteaApi;

/// A client of one Gitea server.
pub type GiteaClient = HostClient<GiteaApi>;

impl GiteaClient {
    fn api<'a>(&self, repo: &'a RepoName, rest: impl IntoIterator<Item = &'a str>) -> Url {
        http::join_segments(
            &self.base,
            [
                "api",
                "v1",
                "repos",
                repo.owner.as_str(),
                repo.name.as_str(),
            ]
            .into_iter()
            .chain(rest),
        )
    }

    async fn get(&self, url: Url, deadline: &Deadline) -> Result<reqwest::Response> {
        http::send(
            Get {
                url,
                auth: self.auth(),
                service: "Gitea",
            },
            deadline,
        )
        .await
    }
}

impl HostApi for GiteaApi {
    const SERVICE: &'static str = "Gitea";
    const ENV: settings::Env = settings::Env::new(DEFAULT_GITEA_URL, "GITEA_URL", "GITEA_TIMEOUT");
    /// Gitea's raw-file API serves the default branch when no `ref` is given.
    const SERVES_DEFAULT_BRANCH: bool = true;

    fn for_server(_: &Url) -> Self {
        GiteaApi
    }

    /// `GITEA_TOKEN`, else the file `~/.config/gitea/token`.
    fn env_token() -> Result<Option<Token>> {
        match env_var("GITEA_TOKEN") {
            Some(t) => Token::new(&t).map(Some).map_err(|_| {
                Error::invalid_request("GITEA_TOKEN must be visible ASCII characters")
            }),
            None => token_file(),
        }
    }

    /// `GET /api/v1/repos/{owner}/{repo}`; an empty repository is not found.
    async fn describe_default_branch(
        client: &GiteaClient,
        repo: &RepoName,
        deadline: &Deadline,
    ) -> Result<String> {
        let response = client.get(client.api(repo, []), deadline).await?;
        match response.status() {
            StatusCode::OK => {}
            StatusCode::NOT_FOUND => return Err(not_found("repository")),
            status => return Err(http::status_error(status, "Gitea")),
        }
        let body = http::read_capped(response, 1 << 20, "Gitea", deadline, || {
            Error::unavailable("Gitea answered with an oversized repository description")
        })
        .await?;
        let info: RepoInfo = serde_json::from_slice(&body).map_err(|e| {
            Error::unavailable("Gitea answered with an invalid repository description")
                .with_source(e)
        })?;
        if info.empty {
            return Err(Error::invalid_request("not found: the repository is empty")
                .with_reason(crate::error::reason::NOT_FOUND));
        }
        Ok(info.default_branch)
    }

    /// A branch, else a tag, else `invalid_request`: what Gitea would silently replace by the
    /// default branch is refused.
    async fn find_ref(
        client: &GiteaClient,
        repo: &RepoName,
        r#ref: &str,
        deadline: &Deadline,
    ) -> Result<ServedRef> {
        for (kind, segment) in [(RefKind::Branch, "branches"), (RefKind::Tag, "tags")] {
            let url = client.api(repo, std::iter::once(segment).chain(r#ref.split('/')));
            let response = client.get(url, deadline).await?;
            match response.status() {
                StatusCode::OK => {
                    return Ok(ServedRef {
                        name: r#ref.to_owned(),
                        kind,
                    })
                }
                StatusCode::NOT_FOUND => {}
                status => return Err(http::status_error(status, "Gitea")),
            }
        }
        Err(Error::invalid_request(
            "not found: ref is not a branch, tag or full commit SHA of the repository \
             (Gitea would silently serve the default branch instead; short SHAs are not accepted)",
        )
        .with_reason(crate::error::reason::NOT_FOUND))
    }

    /// The raw-file request, its status and content type checked.
    async fn open(
        client: &GiteaClient,
        repo: &RepoName,
        path: &str,
        served: Option<&ServedRef>,
        deadline: &Deadline,
    ) -> Result<Body> {
        let mut url = client.api(repo, std::iter::once("raw").chain(path.split('/')));
        if let Some(served) = served {
            url.query_pairs_mut().append_pair("ref", &served.name);
        }
        let response = client.get(url, deadline).await?;
        match response.status() {
            StatusCode::OK => {}
            StatusCode::NOT_FOUND => return Err(not_found("repository, ref or file")),
            status => return Err(http::status_error(status, "Gitea")),
        }
        let binary_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_ascii_lowercase)
            .is_some_and(|t| {
                let t = t.split(';').next().unwrap_or("").trim().to_owned();
                (t == "application/octet-stream"
                    || t == "application/pdf"
                    || t.starts_with("image/")
                    || t.starts_with("audio/")
                    || t.starts_with("video/"))
                    && t != "image/svg+xml"
            });
        if binary_type {
            return Err(binary_error());
        }
        Ok(Body::Stream(response))
    }

    /// Links are `{base}{owner}/{repo}/src/{branch|tag|commit}/{ref}/{path}`.
    fn web_root(client: &GiteaClient) -> &Url {
        &client.base
    }

    fn web_path(kind: RefKind) -> Vec<&'static str> {
        vec!["src", kind.as_str()]
    }
}
