//! GitHub exports: `GitHubClient`, and the `provider: 'github'` setting of
//! `remoteFileContext` (read here, used by `remote.rs`).

use std::sync::Arc;

use napi::bindgen_prelude::*;
use napi::Env;
use napi_derive::napi;

use super::remote::{gitea_args, host_client_class, raw_file_args, GiteaArgs};
use super::{args, bridge};
use context_engine_core::error::{Error as CoreError, Result as CoreResult};
use context_engine_core::remote::{self, GitHubConfig};

/// Settings of a `GitHubClient`. All optional.
// Declared for the TypeScript types only: the object is read field by field (`gitea_args`),
// so a wrong type is an `invalid_request` naming the field.
#[allow(dead_code)]
#[napi(object, object_to_js = false)]
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

/// Whether `remoteFileContext`'s config names GitHub (`provider: 'github'`); `'gitea'` or
/// no provider is Gitea; anything else is `invalid_request`.
pub(crate) fn provider_is_github(config: &Object<'_>) -> CoreResult<bool> {
    match args::opt_string(args::field(config, "provider")?, "provider")?.as_deref() {
        None | Some("gitea") => Ok(false),
        Some("github") => Ok(true),
        Some(_) => Err(CoreError::invalid_request(
            "provider must be 'gitea' or 'github'",
        )),
    }
}

/// A client of GitHub or a GitHub Enterprise Server, shaped like `GiteaClient`. Holds no
/// connection of its own; all clients share one connection pool.
#[napi]
pub struct GitHubClient {
    inner: Arc<remote::GitHubClient>,
}

host_client_class! {
    GitHubClient(remote::GitHubClient, "config?: GitHubClientConfig", resolve),
    #[doc = " Settings default from `GITHUB_API_URL`, `GITHUB_TOKEN` (or `GH_TOKEN`) and"]
    #[doc = " `GITHUB_TIMEOUT`. Throws `invalid_request` for a bad setting."]
    new;
    #[doc = " The API URL, with a trailing slash."]
    base_url;
    {
        #[doc = " The web root that links point to (`https://github.com/` for the public API)."]
        #[napi(getter)]
        pub fn web_url(&self) -> String {
            self.inner.web_base_url().to_owned()
        }
    }
    #[doc = " The whole file `filepath` of `repo` (`owner/name`) at `ref` (branch, tag or commit SHA;"]
    #[doc = " the default branch, looked up and remembered for a minute, when omitted). Files over"]
    #[doc = " 1 MB are read through the raw media type. Binary files, directories and files over"]
    #[doc = " `maxBytes` are `invalid_request`; a missing or private file or an unknown ref is"]
    #[doc = " `invalid_request` \"not found\"; 401/403 `unauthorized`; a rate limit (403/429 with"]
    #[doc = " `x-ratelimit-remaining: 0` or `retry-after`) is `unavailable` with the reset time;"]
    #[doc = " unreachable or 5xx `unavailable`; `timeout`."]
    get_raw_file;
}
