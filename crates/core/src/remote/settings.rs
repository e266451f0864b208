//! The settings every remote client shares, defaulted in one place: the server URL, the
//! deadline of one call and the byte cap of one response, each from an explicit value, else
//! the client's environment variable, else the default.

use std::time::Duration;

use reqwest::Url;

use super::http;
use crate::error::{Error, Result};

/// Default timeout of one call, in milliseconds (the file-context design record's default).
pub const DEFAULT_TIMEOUT_MS: u64 = 10_000;
/// Largest accepted timeout: ten minutes.
pub const MAX_TIMEOUT_MS: u64 = 600_000;
/// Default byte cap of one response (a file, a search result).
pub const DEFAULT_MAX_BYTES: u64 = 16 * 1024 * 1024;

/// Where a client's defaults come from.
#[derive(Debug, Clone, Copy)]
pub struct Env {
    /// The URL when neither an explicit one nor `url_var` is set.
    pub default_url: &'static str,
    /// E.g. `GITEA_URL`.
    pub url_var: &'static str,
    /// E.g. `GITEA_TIMEOUT` (milliseconds).
    pub timeout_var: &'static str,
}

impl Env {
    /// The default URL and the names of the URL and timeout variables.
    pub const fn new(
        default_url: &'static str,
        url_var: &'static str,
        timeout_var: &'static str,
    ) -> Env {
        Env {
            default_url,
            url_var,
            timeout_var,
        }
    }
}

/// A server URL, a call deadline and a byte cap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ServerSettings {
    pub base_url: String,
    pub timeout: Duration,
    pub max_bytes: u64,
}

impl ServerSettings {
    /// The defaults for a server at `url`.
    pub fn defaults(url: &str) -> ServerSettings {
        ServerSettings {
            base_url: url.to_owned(),
            timeout: Duration::from_millis(DEFAULT_TIMEOUT_MS),
            max_bytes: DEFAULT_MAX_BYTES,
        }
    }

    /// Each explicit value wins (its variable is not read); else the environment; else the
    /// default. An invalid timeout variable is an `invalid_request` naming it (never its value).
    pub fn resolve(
        env: Env,
        base_url: Option<String>,
        timeout: Option<Duration>,
        max_bytes: Option<u64>,
    ) -> Result<ServerSettings> {
        let mut s = ServerSettings::defaults(env.default_url);
        if let Some(url) = base_url.or_else(|| env_var(env.url_var)) {
            s.base_url = url;
        }
        s.timeout = match timeout {
            Some(t) => t,
            None => match env_var(env.timeout_var) {
                Some(ms) => parse_timeout_env(&ms, env.timeout_var)?,
                None => s.timeout,
            },
        };
        if let Some(max) = max_bytes {
            s.max_bytes = max;
        }
        Ok(s)
    }

    /// Checks the settings as a client is built: `invalid_request` for a bad URL, a zero or
    /// too long timeout, a zero cap. Returns the URL with a trailing slash.
    pub fn check(&self) -> Result<Url> {
        let base = http::parse_base_url(&self.base_url, "baseUrl")?;
        if self.timeout.is_zero() || self.timeout > Duration::from_millis(MAX_TIMEOUT_MS) {
            return Err(Error::invalid_request(format!(
                "timeout must be from 1 to {MAX_TIMEOUT_MS} ms"
            )));
        }
        if self.max_bytes == 0 {
            return Err(Error::invalid_request("maxBytes must be at least 1"));
        }
        Ok(base)
    }
}

/// A set, non-empty environment variable.
pub(crate) fn env_var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// Parses a timeout in milliseconds from an environment variable.
pub(crate) fn parse_timeout_env(value: &str, name: &str) -> Result<Duration> {
    value
        .trim()
        .parse::<u64>()
        .ok()
        .filter(|ms| (1..=MAX_TIMEOUT_MS).contains(ms))
        .map(Duration::from_millis)
        .ok_or_else(|| {
            Error::invalid_request(format!(
                "{name} must be a whole number of milliseconds from 1 to {MAX_TIMEOUT_MS}"
            ))
        })
}

/// How long a repository's default branch is remembered.
const DEFAULT_BRANCH_TTL: Duration = Duration::from_secs(60);
/// Most remembered default branches (the cache is cleared when full).
const DEFAULT_BRANCH_CACHE: usize = 1024;

type BranchCache = std::sync::Mutex<
    std::collections::HashMap<(String, super::RepoName), (String, std::time::Instant)>,
>;

fn default_branch_cache() -> &'static BranchCache {
    static CACHE: std::sync::OnceLock<BranchCache> = std::sync::OnceLock::new();
    CACHE.get_or_init(BranchCache::default)
}

/// The default branch of `repo` on the code host whose API is `base`, if it was looked up in
/// the last minute (one cache for every code host: the base URL tells them apart).
pub(crate) fn cached_default_branch(base: &str, repo: &super::RepoName) -> Option<String> {
    let cache = default_branch_cache().lock().ok()?;
    let (branch, at) = cache.get(&(base.to_owned(), repo.clone()))?;
    (at.elapsed() < DEFAULT_BRANCH_TTL).then(|| branch.clone())
}

/// Remembers the default branch of `repo` on the code host whose API is `base`.
pub(crate) fn remember_default_branch(base: &str, repo: &super::RepoName, branch: &str) {
    if let Ok(mut cache) = default_branch_cache().lock() {
        if cache.len() >= DEFAULT_BRANCH_CACHE {
            cache.clear();
        }
        cache.insert(
            (base.to_owned(), repo.clone()),
            (branch.to_owned(), std::time::Instant::now()),
        );
    }
}
