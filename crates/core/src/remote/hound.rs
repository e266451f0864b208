//! A faithful client of Hound's HTTP API (hound-search/hound, `api/api.go`).
//!
//! The server's quirks, and what this client does about them:
//! - **Errors come as HTTP 200** with `{"Error": "..."}` (a bad regexp in `q`, `files` or
//!   `excludeFiles`): an `invalid_request` whose message keeps the server's reason but not the
//!   echoed pattern.
//! - **A missing `repos` searches nothing** and returns `{"Results":{}}`: `repos` defaults to
//!   `*` here, names are trimmed one by one (the server does not trim, so `"a, b"` would
//!   silently drop `b`), and an empty list is refused.
//! - **`ctx` is capped at 20** by the server: larger values are refused here rather than
//!   silently clamped.
//! - **`limit` counts matches per repository**, and nothing in the response says it was hit:
//!   each repository result carries `limitReached`.
//! - **503 `text/plain` "Hound is not ready."** while indexes are built: `unavailable`.
//! - Repositories without a match are left out of `Results`, so an empty map is "no match".

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::{StatusCode, Url};
use serde::Deserialize;

use super::http::{self, Deadline, Get};
use super::settings::{self, ServerSettings};
use crate::error::{Error, Result};

/// Hound's default listen address, used when neither `baseUrl` nor `HOUND_URL` is set.
pub const DEFAULT_HOUND_URL: &str = "http://localhost:6080";
/// The server's cap on lines of context (`maxLinesOfContext`).
pub const HOUND_MAX_CONTEXT: u32 = 20;
/// The server's cap on `limit` (matches per repository).
pub const HOUND_LIMIT_CAP: u32 = 100_000;
/// Longest accepted query or file pattern.
const MAX_PATTERN_BYTES: usize = 8 * 1024;

/// Settings of a [`HoundClient`].
#[derive(Debug, Clone)]
pub struct HoundConfig {
    /// Server URL, e.g. `http://localhost:6080`.
    pub base_url: String,
    /// Deadline of one call.
    pub timeout: Duration,
    /// Byte cap of one response.
    pub max_bytes: u64,
}

impl Default for HoundConfig {
    fn default() -> Self {
        let s = ServerSettings::defaults(DEFAULT_HOUND_URL);
        HoundConfig {
            base_url: s.base_url,
            timeout: s.timeout,
            max_bytes: s.max_bytes,
        }
    }
}

impl HoundConfig {
    /// Defaults from the environment: `HOUND_URL`, `HOUND_TIMEOUT` (milliseconds).
    pub fn from_env() -> Result<HoundConfig> {
        Self::from_env_with(None, None, None)
    }

    /// Like [`from_env`](Self::from_env), but each setting given here wins.
    pub fn from_env_with(
        base_url: Option<String>,
        timeout: Option<Duration>,
        max_bytes: Option<u64>,
    ) -> Result<HoundConfig> {
        let s = ServerSettings::resolve(
            settings::Env {
                default_url: DEFAULT_HOUND_URL,
                url_var: "HOUND_URL",
                timeout_var: "HOUND_TIMEOUT",
            },
            base_url,
            timeout,
            max_bytes,
        )?;
        Ok(HoundConfig {
            base_url: s.base_url,
            timeout: s.timeout,
            max_bytes: s.max_bytes,
        })
    }
}

/// Paging over *files* (`rng=offset:limit`), per repository.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Paging {
    /// Matching files to skip.
    pub offset: u32,
    /// Matching files to return at most; `None` for all.
    pub limit: Option<u32>,
}

/// One search. `Default` is Hound's own default for everything except `repos` (all
/// repositories instead of none).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HoundSearch {
    /// The pattern (`q`): a regular expression unless `literal`; empty matches every line.
    pub query: String,
    /// Repository names (`repos`); `None` for all (`*`).
    pub repos: Option<Vec<String>>,
    /// Only files whose repo-relative path matches this regexp (`files`).
    pub files: Option<String>,
    /// Drop files whose path matches this regexp (`excludeFiles`).
    pub exclude_files: Option<String>,
    /// Case-insensitive (`i`).
    pub ignore_case: bool,
    /// Match `query` literally (`literal`).
    pub literal: bool,
    /// Lines of context on both sides (`ctx`, 0 to 20); `None` for the server default (2).
    pub context: Option<u32>,
    /// Most matches per repository (`limit`); `Some(0)` for no limit; `None` for the server's
    /// configured default (5000 unless configured).
    pub limit: Option<u32>,
    /// Paging over files (`rng`).
    pub paging: Option<Paging>,
    /// Ask for `Stats` (`stats`).
    pub stats: bool,
}

/// One matching line.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct HoundMatch {
    /// The line, without its `\n` (a `\r` of a CRLF file is kept, as Hound sends it).
    #[serde(rename = "Line")]
    pub line: String,
    /// 1-based line number.
    #[serde(rename = "LineNumber")]
    pub line_number: u32,
    /// Lines before it (only those after the previous match).
    #[serde(rename = "Before", default)]
    pub before: Vec<String>,
    /// Lines after it.
    #[serde(rename = "After", default)]
    pub after: Vec<String>,
    /// Set by [`HoundClient::search_linked`]: the code host's link to this line at the indexed
    /// revision, by the repository's URL pattern.
    #[serde(skip)]
    pub url: Option<String>,
}

/// The matches in one file.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct HoundFileMatch {
    /// Repo-relative path.
    #[serde(rename = "Filename")]
    pub filename: String,
    /// One entry per matching line.
    #[serde(rename = "Matches", default)]
    pub matches: Vec<HoundMatch>,
    /// Marked `linguist-generated` in `.gitattributes`.
    #[serde(rename = "AutoGenerated", default)]
    pub auto_generated: bool,
    /// Set by [`HoundClient::search_linked`]: the code host's link to the file at the indexed
    /// revision.
    #[serde(skip)]
    pub url: Option<String>,
}

/// The result for one repository.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct HoundRepoResult {
    /// Matching files in index order.
    #[serde(rename = "Matches", default)]
    pub matches: Vec<HoundFileMatch>,
    /// Files with a match, counting those skipped by paging but not those skipped once the
    /// limit was reached.
    #[serde(rename = "FilesWithMatch", default)]
    pub files_with_match: u32,
    /// The commit the index was built from.
    #[serde(rename = "Revision", default)]
    pub revision: String,
    /// Set by this client: the match count reached `limit`, so more matches may exist.
    #[serde(skip)]
    pub limit_reached: bool,
}

/// `Stats` of a search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct HoundStats {
    /// Files opened.
    #[serde(rename = "FilesOpened", default)]
    pub files_opened: u32,
    /// Server time in milliseconds.
    #[serde(rename = "Duration", default)]
    pub duration_ms: u64,
}

/// A search response.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct HoundSearchResult {
    /// Per repository name, in name order; repositories without a match are absent.
    #[serde(rename = "Results", default)]
    pub results: BTreeMap<String, HoundRepoResult>,
    /// Present when `stats` was asked for.
    #[serde(rename = "Stats", default)]
    pub stats: Option<HoundStats>,
}

/// How the web UI links to a file.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct UrlPattern {
    /// E.g. `{url}/blob/{rev}/{path}{anchor}`.
    #[serde(rename = "base-url", default)]
    pub base_url: String,
    /// E.g. `#L{line}`.
    #[serde(default)]
    pub anchor: String,
}

/// A repository's configuration as `/api/v1/repos` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct HoundRepo {
    /// Clone URL.
    pub url: String,
    /// Display name (empty when unset).
    #[serde(rename = "display-name", default)]
    pub display_name: String,
    /// Poll interval in milliseconds.
    #[serde(rename = "ms-between-poll", default)]
    pub ms_between_poll: u64,
    /// Version control system (`git` by default).
    #[serde(default)]
    pub vcs: String,
    /// Whether a `vcs-config` is set (the server never shows its content).
    #[serde(rename = "vcs-config", default, deserialize_with = "is_set")]
    pub vcs_config_set: bool,
    /// Web links.
    #[serde(rename = "url-pattern")]
    pub url_pattern: Option<UrlPattern>,
    /// Dotfiles are not indexed.
    #[serde(rename = "exclude-dot-files", default)]
    pub exclude_dot_files: bool,
    /// `null` (server default), `true` or `false`.
    #[serde(rename = "enable-poll-updates", default)]
    pub enable_poll_updates: Option<bool>,
    /// `null` (server default), `true` or `false`.
    #[serde(rename = "enable-push-updates", default)]
    pub enable_push_updates: Option<bool>,
    /// Globs of generated files, if configured.
    #[serde(rename = "auto-generated-files", default)]
    pub auto_generated_files: Option<Vec<String>>,
}

/// Hound's default link pattern (its `config.go`), for a repository that shows none.
const DEFAULT_BASE_URL_PATTERN: &str = "{url}/blob/{rev}/{path}{anchor}";
/// Hound's default line anchor.
const DEFAULT_ANCHOR_PATTERN: &str = "#L{line}";

/// A clone URL as a web URL, the way Hound's UI reads it: `.git` and a trailing `/` dropped;
/// `ssh://[user@]host[:port]/path` and scp-like `user@host:path` become `https://host/path`.
/// `None` for anything that is not then an `http(s)` URL (a local path, for instance).
fn web_repo_url(clone_url: &str) -> Option<String> {
    let url = clone_url.trim().trim_end_matches('/');
    let url = url.strip_suffix(".git").unwrap_or(url);
    let web = if url.starts_with("http://") || url.starts_with("https://") {
        url.to_owned()
    } else if let Some(rest) = url
        .strip_prefix("ssh://")
        .or_else(|| url.strip_prefix("git://"))
    {
        let rest = rest
            .rsplit_once('@')
            .map_or(rest, |(_, r)| r)
            .split_once('/')?;
        let host = rest.0.split(':').next()?;
        format!("https://{host}/{}", rest.1)
    } else {
        let (left, path) = url.split_once(':')?;
        let host = left.rsplit_once('@').map_or(left, |(_, h)| h);
        if host.is_empty() || host.contains('/') || path.starts_with("//") {
            return None;
        }
        format!("https://{host}/{}", path.trim_start_matches('/'))
    };
    let parsed = Url::parse(&web).ok()?;
    (matches!(parsed.scheme(), "http" | "https") && parsed.host().is_some()).then_some(web)
}

fn expand(pattern: &str, vars: &[(&str, &str)]) -> String {
    let mut out = pattern.to_owned();
    for (name, value) in vars {
        out = out.replace(&format!("{{{name}}}"), value);
    }
    out
}

impl HoundRepo {
    /// The code host's link to `path` at revision `rev` (with the line anchor when `line` is
    /// given), by this repository's URL pattern as Hound's own UI builds it; `None` for an
    /// empty revision (never a guessed branch) or a clone URL with no web form.
    pub fn file_url(&self, rev: &str, path: &str, line: Option<u32>) -> Option<String> {
        if rev.trim().is_empty() {
            return None;
        }
        let url = web_repo_url(&self.url)?;
        let (base, anchor) = match &self.url_pattern {
            Some(p) if !p.base_url.is_empty() => (p.base_url.as_str(), p.anchor.as_str()),
            _ => (DEFAULT_BASE_URL_PATTERN, DEFAULT_ANCHOR_PATTERN),
        };
        let filename = path.rsplit('/').next().unwrap_or(path);
        let anchor = match line {
            Some(n) => expand(anchor, &[("line", &n.to_string()), ("filename", filename)]),
            None => String::new(),
        };
        let link = expand(
            base,
            &[
                ("url", &url),
                ("rev", rev),
                ("path", path),
                ("anchor", &anchor),
                ("filename", filename),
            ],
        );
        (link.starts_with("http://") || link.starts_with("https://")).then_some(link)
    }

    /// `owner/name` of this repository on its code host: the last two segments of its clone
    /// URL.
    pub fn owner_repo(&self) -> Option<String> {
        let web = web_repo_url(&self.url)?;
        let url = Url::parse(&web).ok()?;
        let segments: Vec<&str> = url.path_segments()?.filter(|s| !s.is_empty()).collect();
        match segments.as_slice() {
            [.., owner, name] => Some(format!("{owner}/{name}")),
            _ => None,
        }
    }
}

/// Hound's key of the code-host repository `owner/name` among `repos`: a key equal to it, else
/// the repository whose clone URL names it (`.../owner/name[.git]`, case-insensitive), else the
/// key `owner-name` (a common naming of Hound configurations), else a key equal to `name`.
pub fn hound_repo_key(repos: &BTreeMap<String, HoundRepo>, owner_repo: &str) -> Option<String> {
    let full = owner_repo.trim().trim_matches('/');
    let (owner, name) = full.split_once('/')?;
    if repos.contains_key(full) {
        return Some(full.to_owned());
    }
    let wanted = full.to_ascii_lowercase();
    if let Some((key, _)) = repos.iter().find(|(_, r)| {
        r.owner_repo()
            .is_some_and(|o| o.to_ascii_lowercase() == wanted)
    }) {
        return Some(key.clone());
    }
    let dashed = format!("{owner}-{name}");
    if repos.contains_key(&dashed) {
        return Some(dashed);
    }
    repos.contains_key(name).then(|| name.to_owned())
}

fn is_set<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<bool, D::Error> {
    let value = serde_json::Value::deserialize(d)?;
    Ok(!value.is_null())
}

/// A file Hound did not index, and why.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Excluded {
    /// Repo-relative path.
    #[serde(rename = "Filename")]
    pub filename: String,
    /// E.g. `Not a text file.`
    #[serde(rename = "Reason")]
    pub reason: String,
}

#[derive(Deserialize)]
struct ErrorBody {
    #[serde(rename = "Error")]
    error: String,
}

/// A client of one Hound server.
#[derive(Debug, Clone)]
pub struct HoundClient {
    base: Url,
    timeout: Duration,
    max_bytes: u64,
    /// `/api/v1/repos`, remembered for [`REPOS_TTL`] (links and key lookups need it).
    repos: Arc<Mutex<Option<ReposSnapshot>>>,
}

/// The repository list and when it was fetched.
type ReposSnapshot = (Instant, Arc<BTreeMap<String, HoundRepo>>);

/// How long the repository list is remembered by one client.
const REPOS_TTL: Duration = Duration::from_secs(60);

/// Quotes `text` for a Go (RE2) regexp: every metacharacter escaped.
pub fn quote_regexp(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The server's reason without the pattern it echoes: "error parsing regexp: missing closing
/// ): (?m)x(" becomes "error parsing regexp: missing closing )".
fn safe_reason(reason: &str) -> String {
    let cut = reason.find(": `").map_or(reason, |i| &reason[..i]);
    let cut: String = cut.chars().filter(|c| !c.is_control()).take(200).collect();
    cut.trim().to_owned()
}

fn check_pattern(p: &str, name: &str) -> Result<()> {
    if p.len() > MAX_PATTERN_BYTES {
        return Err(Error::invalid_request(format!(
            "{name} is too long (at most {MAX_PATTERN_BYTES} bytes)"
        )));
    }
    if p.contains('\0') {
        return Err(Error::invalid_request(format!(
            "{name} must not contain a NUL character"
        )));
    }
    Ok(())
}

impl HoundClient {
    /// A client for `config`; `invalid_request` for a bad URL, a zero timeout or cap.
    pub fn new(config: HoundConfig) -> Result<HoundClient> {
        let s = ServerSettings {
            base_url: config.base_url,
            timeout: config.timeout,
            max_bytes: config.max_bytes,
        };
        Ok(HoundClient {
            base: s.check()?,
            timeout: s.timeout,
            max_bytes: s.max_bytes,
            repos: Arc::default(),
        })
    }

    /// The server URL (with a trailing slash).
    pub fn base_url(&self) -> &str {
        self.base.as_str()
    }

    /// The query string for `search` (only the parameters that differ from the server's
    /// defaults, in a fixed order), or `invalid_request`.
    pub fn search_url(&self, search: &HoundSearch) -> Result<Url> {
        check_pattern(&search.query, "query")?;
        let mut url = http::join_segments(&self.base, ["api", "v1", "search"]);
        {
            let mut q = url.query_pairs_mut();
            q.append_pair("q", &search.query);
            let repos = match &search.repos {
                None => "*".to_owned(),
                Some(list) => {
                    let names: Vec<&str> = list.iter().map(|r| r.trim()).collect();
                    if names.is_empty() || names.iter().any(|n| n.is_empty()) {
                        return Err(Error::invalid_request(
                            "repos must name at least one repository, and no name may be empty",
                        ));
                    }
                    if names.iter().any(|n| n.contains(',') || n.len() > 200) {
                        return Err(Error::invalid_request(
                            "a repository name must not contain a comma (at most 200 bytes)",
                        ));
                    }
                    names.join(",")
                }
            };
            q.append_pair("repos", &repos);
            if let Some(files) = &search.files {
                check_pattern(files, "files")?;
                q.append_pair("files", files);
            }
            if let Some(exclude) = &search.exclude_files {
                check_pattern(exclude, "excludeFiles")?;
                q.append_pair("excludeFiles", exclude);
            }
            if search.ignore_case {
                q.append_pair("i", "true");
            }
            if search.literal {
                q.append_pair("literal", "true");
            }
            if let Some(ctx) = search.context {
                if ctx > HOUND_MAX_CONTEXT {
                    return Err(Error::invalid_request(format!(
                        "context must be from 0 to {HOUND_MAX_CONTEXT} (Hound's own cap)"
                    )));
                }
                q.append_pair("ctx", &ctx.to_string());
            }
            if let Some(limit) = search.limit {
                if limit > HOUND_LIMIT_CAP {
                    return Err(Error::invalid_request(format!(
                        "limit must be from 0 (no limit) to {HOUND_LIMIT_CAP}"
                    )));
                }
                q.append_pair("limit", &limit.to_string());
            }
            if let Some(p) = search.paging {
                let rng = match p.limit {
                    Some(l) => format!("{}:{l}", p.offset),
                    None => format!("{}:", p.offset),
                };
                q.append_pair("rng", &rng);
            }
            if search.stats {
                q.append_pair("stats", "true");
            }
        }
        Ok(url)
    }

    async fn get_json(&self, url: Url) -> Result<Vec<u8>> {
        let deadline = Deadline::after(self.timeout);
        deadline
            .run("Hound", async {
                let response = http::send(
                    Get {
                        url,
                        auth: None,
                        service: "Hound",
                    },
                    &deadline,
                )
                .await?;
                let status = response.status();
                let cap = self.max_bytes;
                let body = http::read_capped(response, cap, "Hound", &deadline, || {
                    Error::invalid_request(format!(
                        "the Hound response is larger than the {cap}-byte limit (maxBytes); \
                         narrow the search or lower its limit"
                    ))
                })
                .await?;
                match status {
                    StatusCode::OK => Ok(body),
                    StatusCode::SERVICE_UNAVAILABLE => Err(Error::unavailable(
                        "Hound is unavailable (HTTP 503; it answers so while it builds its indexes)",
                    )),
                    // Newer houndd answers an unknown `repo` of /excludes with a JSON 404; any
                    // other 404 is its UI's plain-text "page not found".
                    StatusCode::NOT_FOUND if serde_json::from_slice::<ErrorBody>(&body).is_ok() => {
                        Err(Error::invalid_request(
                            "not found: Hound has no repository of that name",
                        )
                        .with_reason(crate::error::reason::NOT_FOUND))
                    }
                    StatusCode::NOT_FOUND => Err(Error::invalid_request(
                        "Hound has no such API endpoint (HTTP 404); check baseUrl",
                    )),
                    status => {
                        if let Ok(e) = serde_json::from_slice::<ErrorBody>(&body) {
                            if status.is_client_error() && !matches!(status.as_u16(), 401 | 403 | 408 | 429) {
                                return Err(Error::invalid_request(format!(
                                    "Hound rejected the request (HTTP {}): {}",
                                    status.as_u16(),
                                    safe_reason(&e.error)
                                )));
                            }
                        }
                        Err(http::status_error(status, "Hound"))
                    }
                }
            })
            .await
    }

    fn parse<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T> {
        if let Ok(e) = serde_json::from_slice::<ErrorBody>(body) {
            return Err(Error::invalid_request(format!(
                "Hound rejected the search: {}",
                safe_reason(&e.error)
            )));
        }
        serde_json::from_slice(body).map_err(|e| {
            Error::unavailable("Hound answered with a response that is not the expected JSON")
                .with_source(e)
        })
    }

    /// Runs a search.
    pub async fn search(&self, search: &HoundSearch) -> Result<HoundSearchResult> {
        let url = self.search_url(search)?;
        let body = self.get_json(url).await?;
        let mut result: HoundSearchResult = Self::parse(&body)?;
        if let Some(limit) = search.limit.filter(|&l| l > 0) {
            for repo in result.results.values_mut() {
                let n: usize = repo.matches.iter().map(|f| f.matches.len()).sum();
                repo.limit_reached = n >= limit as usize;
            }
        }
        Ok(result)
    }

    /// The configured repositories, by name.
    pub async fn repos(&self) -> Result<BTreeMap<String, HoundRepo>> {
        let url = http::join_segments(&self.base, ["api", "v1", "repos"]);
        let repos: BTreeMap<String, HoundRepo> = Self::parse(&self.get_json(url).await?)?;
        if let Ok(mut cache) = self.repos.lock() {
            *cache = Some((Instant::now(), Arc::new(repos.clone())));
        }
        Ok(repos)
    }

    /// The repository list, from this client's memory when fetched less than a minute ago.
    async fn repos_cached(&self) -> Result<Arc<BTreeMap<String, HoundRepo>>> {
        if let Some((at, repos)) = self.repos.lock().ok().and_then(|c| c.clone()) {
            if at.elapsed() < REPOS_TTL {
                return Ok(repos);
            }
        }
        self.repos().await.map(Arc::new)
    }

    /// [`search`](Self::search), with each file and line linked to the code host at the
    /// revision Hound indexed, by each repository's URL pattern from `/api/v1/repos`. Links
    /// are left out (`None`) when the repository list cannot be had or a repository has no
    /// web form; the search itself is not failed for that.
    pub async fn search_linked(&self, search: &HoundSearch) -> Result<HoundSearchResult> {
        let mut result = self.search(search).await?;
        if result.results.is_empty() {
            return Ok(result);
        }
        let Ok(repos) = self.repos_cached().await else {
            return Ok(result);
        };
        for (key, repo_result) in &mut result.results {
            let Some(repo) = repos.get(key) else { continue };
            let rev = repo_result.revision.clone();
            for file in &mut repo_result.matches {
                file.url = repo.file_url(&rev, &file.filename, None);
                for m in &mut file.matches {
                    m.url = repo.file_url(&rev, &file.filename, Some(m.line_number));
                }
            }
        }
        Ok(result)
    }

    /// Hound's key of the code-host repository `owner/name` ([`hound_repo_key`]); `None` when
    /// Hound does not index it.
    pub async fn repo_key(&self, owner_repo: &str) -> Result<Option<String>> {
        if owner_repo.split('/').filter(|s| !s.is_empty()).count() != 2 || owner_repo.len() > 200 {
            return Err(Error::invalid_request("repo must be \"owner/name\""));
        }
        Ok(hound_repo_key(&*self.repos_cached().await?, owner_repo))
    }

    /// `owner/name` on the code host of Hound repository `key` (from its clone URL); `None`
    /// for an unknown key or a URL without two path segments.
    pub async fn repo_name(&self, key: &str) -> Result<Option<String>> {
        if key.trim().is_empty() || key.len() > 200 {
            return Err(Error::invalid_request(
                "key must be a Hound repository name",
            ));
        }
        Ok(self
            .repos_cached()
            .await?
            .get(key.trim())
            .and_then(HoundRepo::owner_repo))
    }

    /// Files of `repo` that Hound did not index (binary, too large...).
    pub async fn excludes(&self, repo: &str) -> Result<Vec<Excluded>> {
        if repo.trim().is_empty() || repo.len() > 200 {
            return Err(Error::invalid_request("repo must be a repository name"));
        }
        let mut url = http::join_segments(&self.base, ["api", "v1", "excludes"]);
        url.query_pairs_mut().append_pair("repo", repo.trim());
        let body = self.get_json(url).await?;
        // Older houndd answers an empty body when the index has no exclusion list.
        if body.iter().all(u8::is_ascii_whitespace) {
            return Ok(Vec::new());
        }
        Self::parse::<Option<Vec<Excluded>>>(&body).map(Option::unwrap_or_default)
    }

    /// Lines `start..=end` of `file` in Hound repository `repo`, rebuilt from an empty query
    /// (one match per line, in order) restricted to that file, with `limit = end`. Returns the
    /// lines, the indexed revision and whether the file ended before `end`.
    pub(crate) async fn file_lines(
        &self,
        repo: &str,
        file: &str,
        start: usize,
        end: usize,
    ) -> Result<(Vec<String>, String, usize)> {
        if end > HOUND_LIMIT_CAP as usize {
            return Err(Error::invalid_request(format!(
                "Hound can only rebuild the first {HOUND_LIMIT_CAP} lines of a file"
            )));
        }
        let search = HoundSearch {
            query: String::new(),
            repos: Some(vec![repo.to_owned()]),
            files: Some(format!("^{}$", quote_regexp(file))),
            context: Some(0),
            limit: Some(end as u32),
            ..HoundSearch::default()
        };
        let result = self.search(&search).await?;
        let Some(repo_result) = result.results.get(repo) else {
            return Err(Error::invalid_request(
                "not found: Hound has not indexed this file (missing, binary or excluded)",
            )
            .with_reason(crate::error::reason::NOT_FOUND));
        };
        let Some(file_match) = repo_result.matches.iter().find(|f| f.filename == file) else {
            return Err(Error::invalid_request(
                "not found: Hound has not indexed this file (missing, binary or excluded)",
            )
            .with_reason(crate::error::reason::NOT_FOUND));
        };
        let mut lines = Vec::with_capacity(end + 1 - start);
        let mut total = 0usize;
        for m in &file_match.matches {
            let n = m.line_number as usize;
            total = total.max(n);
            if n < start || n > end {
                continue;
            }
            if n != start + lines.len() {
                return Err(Error::unavailable(
                    "Hound answered with a gap in the file's lines; the range cannot be rebuilt",
                ));
            }
            let line = m.line.strip_suffix('\r').unwrap_or(&m.line);
            lines.push(
                crate::fs_scope::truncate_long_lines(line, super::lines::MAX_LINE_CHARS)
                    .into_owned(),
            );
        }
        Ok((lines, repo_result.revision.clone(), total))
    }
}
