//! GitHub exports: `GitHubClient`, and the `provider: 'github'` setting of
//! `remoteFileContext` (read here, used by `remote.rs`).

use std::sync::Arc;

use napi::bindgen_prelude::*;
use napi::Env;
use napi_derive::napi;

use super::bridge;
use super::remote::{raw_file, GiteaArgs};
use context_engine_core::error::Result as CoreResult;
use context_engine_core::remote::{self, GitHubConfig};

/// Settings of a `GitHubClient`. All optional.
#[napi(object, object_to_js = false)]
#[derive(Default)]
pub struct GitHubClientConfig {
    /// API URL: `https://api.github.com`, or `https://host/api/v3` for GitHub Enterprise
    /// Server. Default: `GITHUB_API_URL`, else `https://api.github.com`.
    pub base_url: Option<String>,
    /// API token, sent as `Authorization: token ...` to `baseUrl`'s origin only (never on a
    /// redirect to another origin). Default: `GITHUB_TOKEN`, else `GH_TOKEN`, else none
    /// (public repositories, with GitHub's low anonymous rate limit).
    pub token: Option<String>,
    /// Deadline of one call in milliseconds (1 to 600000), ref resolution, redirects and body
    /// included. Default: `GITHUB_TIMEOUT`, else 10000.
    pub timeout: Option<f64>,
    /// Byte cap: `getRawFile` refuses larger files; `remoteFileContext` reads at most this far
    /// into a file. Default 16 MiB (16777216), at most 1 GiB.
    pub max_bytes: Option<f64>,
}

/// The GitHub settings from the same fields as Gitea's, defaulted from `GITHUB_*`.
pub(crate) fn resolve(a: GiteaArgs) -> CoreResult<GitHubConfig> {
    GitHubConfig::from_env_with(a.base_url, a.token, a.timeout, a.max_bytes)
}

/// A client of GitHub or a GitHub Enterprise Server, shaped like `GiteaClient`. Holds no
/// connection of its own; all clients share one connection pool.
#[napi]
pub struct GitHubClient {
    inner: Arc<remote::GitHubClient>,
}

#[napi]
impl GitHubClient {
    /// Settings default from `GITHUB_API_URL`, `GITHUB_TOKEN` (or `GH_TOKEN`) and
    /// `GITHUB_TIMEOUT`. Throws `invalid_request` for a bad setting.
    #[napi(constructor)]
    pub fn new(env: &Env, config: Option<GitHubClientConfig>) -> napi::Result<Self> {
        bridge::run_sync(env, || {
            let c = config.unwrap_or_default();
            let config = resolve(GiteaArgs::new(c.base_url, c.token, c.timeout, c.max_bytes)?)?;
            Ok(GitHubClient {
                inner: Arc::new(remote::GitHubClient::new(config)?),
            })
        })
    }

    /// The API URL, with a trailing slash.
    #[napi(getter)]
    pub fn base_url(&self) -> String {
        self.inner.base_url().to_owned()
    }

    /// The web root that links point to (`https://github.com/` for the public API).
    #[napi(getter)]
    pub fn web_url(&self) -> String {
        self.inner.web_base_url().to_owned()
    }

    /// Whether a token is configured (the token itself is never readable).
    #[napi(getter)]
    pub fn has_token(&self) -> bool {
        self.inner.has_token()
    }

    /// The whole file `filepath` of `repo` (`owner/name`) at `ref` (branch, tag or commit SHA;
    /// the default branch, looked up and remembered for a minute, when omitted). Files over
    /// 1 MB are read through the raw media type. Binary files, directories and files over
    /// `maxBytes` are `invalid_request`; a missing or private file or an unknown ref is
    /// `invalid_request` "not found"; 401/403 `unauthorized`; a rate limit (403/429 with
    /// `x-ratelimit-remaining: 0` or `retry-after`) is `unavailable` with the reset time;
    /// unreachable or 5xx `unavailable`; `timeout`.
    #[napi(
        ts_args_type = "repo: string, filepath: string, ref?: string | null, options?: CallOptions",
        ts_return_type = "Promise<string>"
    )]
    pub fn get_raw_file<'env>(
        &self,
        env: &'env Env,
        repo: String,
        filepath: String,
        r#ref: Option<String>,
        options: Option<bridge::CallOptions<bridge::NoOptions>>,
    ) -> napi::Result<PromiseRaw<'env, String>> {
        let client = self.inner.clone();
        raw_file(env, options, async move {
            client
                .get_raw_file(&repo, &filepath, r#ref.as_deref())
                .await
        })
    }
}
