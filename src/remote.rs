//! Remote file context exports: `GiteaClient`, `HoundClient`, `remoteFileContext` (see
//! docs/design/adr-003-file-context-retrieval.md, section Decision).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use napi::bindgen_prelude::*;
use napi::Env;
use napi_derive::napi;

use super::args;
use super::bridge;
use super::secrets::{redactions_js, Redaction};
use context_engine_core::error::Result as CoreResult;
use context_engine_core::remote::{
    self, GiteaConfig, HoundConfig, HoundSearch, Paging, RemoteConfig,
};

/// Largest accepted `maxBytes`: 1 GiB.
const MAX_BYTES_LIMIT: u64 = 1 << 30;
/// Largest accepted `limit` / paging value.
const MAX_COUNT: u64 = u32::MAX as u64;

// ---------------------------------------------------------------------------------------------
// Argument helpers

/// An optional whole number `name` in `min..=max`.
fn opt_whole(value: Option<f64>, name: &str, min: u64, max: u64) -> CoreResult<Option<u64>> {
    value
        .map(|n| args::whole_number(n, name, min, max))
        .transpose()
}

/// An optional deadline in milliseconds.
fn opt_ms(value: Option<f64>, name: &str) -> CoreResult<Option<Duration>> {
    Ok(opt_whole(value, name, 1, remote::MAX_TIMEOUT_MS)?.map(Duration::from_millis))
}

/// A string is one name or a comma-separated list (`'*'` for all); an array lists names.
fn repos_arg(value: Either<String, Vec<String>>) -> Option<Vec<String>> {
    match value {
        Either::A(s) if s.trim() == "*" => None,
        Either::A(s) => Some(s.split(',').map(str::to_owned).collect()),
        Either::B(list) => Some(list),
    }
}

// ---------------------------------------------------------------------------------------------
// Config

/// Settings of a `GiteaClient`. All optional.
#[napi(object, object_to_js = false)]
#[derive(Default)]
pub struct GiteaClientConfig {
    /// Server URL. Default: `GITEA_URL`, else `https://git.integrolabs.net`.
    pub base_url: Option<String>,
    /// API token, sent as `Authorization: token ...` to `baseUrl`'s origin only. Default:
    /// `GITEA_TOKEN`, else the file `~/.config/gitea/token`, else none (public repositories).
    pub token: Option<String>,
    /// Deadline of one call in milliseconds (1 to 600000), ref resolution, redirects and body
    /// included. Default: `GITEA_TIMEOUT`, else 10000.
    pub timeout: Option<f64>,
    /// Byte cap: `getRawFile` refuses larger files; `remoteFileContext` reads at most this far
    /// into a file. Default 16 MiB (16777216), at most 1 GiB.
    pub max_bytes: Option<f64>,
}

/// Settings of a `HoundClient`. All optional.
#[napi(object, object_to_js = false)]
#[derive(Default)]
pub struct HoundClientConfig {
    /// Server URL. Default: `HOUND_URL`, else `http://localhost:6080`.
    pub base_url: Option<String>,
    /// Deadline of one call in milliseconds (1 to 600000). Default: `HOUND_TIMEOUT`, else 10000.
    pub timeout: Option<f64>,
    /// Largest response accepted, in bytes. Default 16 MiB, at most 1 GiB.
    pub max_bytes: Option<f64>,
}

/// Settings of `remoteFileContext`: the Gitea settings plus the Hound fallback. All optional.
#[napi(object, object_to_js = false)]
#[derive(Default)]
pub struct RemoteFileContextConfig {
    /// Gitea server URL. Default: `GITEA_URL`, else `https://git.integrolabs.net`.
    pub base_url: Option<String>,
    /// Gitea API token. Default: `GITEA_TOKEN`, else `~/.config/gitea/token`, else none.
    pub token: Option<String>,
    /// Gitea deadline in milliseconds. Default: `GITEA_TIMEOUT`, else 10000.
    pub timeout: Option<f64>,
    /// Byte cap of the file read. Default 16 MiB.
    pub max_bytes: Option<f64>,
    /// Hound server URL for the fallback. Default: `HOUND_URL`; without either there is no
    /// fallback.
    pub hound_url: Option<String>,
    /// Hound deadline in milliseconds. Default: `HOUND_TIMEOUT`, else 10000.
    pub hound_timeout: Option<f64>,
    /// Use Hound when Gitea is unavailable or times out. Default `true` (when a Hound URL is
    /// known).
    pub fallback: Option<bool>,
    /// The code host: `'gitea'` (default) or `'github'`. With `'github'`, `baseUrl`, `token`,
    /// `timeout` and `maxBytes` are GitHub's (defaults: `GITHUB_API_URL`, else
    /// `https://api.github.com`, or an Enterprise `https://host/api/v3`; `GITHUB_TOKEN`, else
    /// `GH_TOKEN`; `GITHUB_TIMEOUT`, else 10000), and `source` is `'github'`.
    #[napi(ts_type = "'gitea' | 'github'")]
    pub provider: Option<String>,
}

pub(crate) struct GiteaArgs {
    pub(crate) base_url: Option<String>,
    pub(crate) token: Option<String>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) max_bytes: Option<u64>,
}

impl GiteaArgs {
    /// The host settings `config.*` (a Gitea's or a GitHub's), checked.
    pub(crate) fn new(
        base_url: Option<String>,
        token: Option<String>,
        timeout: Option<f64>,
        max_bytes: Option<f64>,
    ) -> CoreResult<GiteaArgs> {
        Ok(GiteaArgs {
            base_url,
            token,
            timeout: opt_ms(timeout, "config.timeout")?,
            max_bytes: opt_whole(max_bytes, "config.maxBytes", 1, MAX_BYTES_LIMIT)?,
        })
    }
}

impl GiteaArgs {
    fn resolve(self) -> CoreResult<GiteaConfig> {
        GiteaConfig::from_env_with(self.base_url, self.token, self.timeout, self.max_bytes)
    }
}

// ---------------------------------------------------------------------------------------------
// GiteaClient

/// `getRawFile` of a code-host client (Gitea's and GitHub's): `fetch` under the call's
/// controls.
pub(crate) fn raw_file(
    env: &Env,
    options: Option<bridge::CallOptions<bridge::NoOptions>>,
    fetch: impl std::future::Future<Output = CoreResult<String>> + Send + 'static,
) -> napi::Result<PromiseRaw<'_, String>> {
    let (_, call) = bridge::CallOptions::split(options);
    bridge::spawn_async_call(env, call, move |_| fetch, |_, s| Ok(s))
}

/// A client of one Gitea server. Holds no connection of its own; all clients share
/// one connection pool.
#[napi]
pub struct GiteaClient {
    inner: Arc<remote::GiteaClient>,
}

#[napi]
impl GiteaClient {
    /// Settings default from `GITEA_URL`, `GITEA_TOKEN` (or `~/.config/gitea/token`) and
    /// `GITEA_TIMEOUT`. Throws `invalid_request` for a bad setting.
    #[napi(constructor)]
    pub fn new(env: &Env, config: Option<GiteaClientConfig>) -> napi::Result<Self> {
        bridge::run_sync(env, || {
            let c = config.unwrap_or_default();
            let config = GiteaArgs::new(c.base_url, c.token, c.timeout, c.max_bytes)?.resolve()?;
            Ok(GiteaClient {
                inner: Arc::new(remote::GiteaClient::new(config)?),
            })
        })
    }

    /// The server URL, with a trailing slash.
    #[napi(getter)]
    pub fn base_url(&self) -> String {
        self.inner.base_url().to_owned()
    }

    /// Whether a token is configured (the token itself is never readable).
    #[napi(getter)]
    pub fn has_token(&self) -> bool {
        self.inner.has_token()
    }

    /// The whole file `filepath` of `repo` (`owner/name`) at `ref` (branch, tag or full commit
    /// SHA; the default branch when omitted). A ref Gitea does not know is `invalid_request`
    /// (Gitea itself would silently serve the default branch). Binary files and files over
    /// `maxBytes` are `invalid_request`; a missing or private file is `invalid_request`
    /// "not found"; 401/403 `unauthorized`; unreachable or 5xx `unavailable`; `timeout`.
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

// ---------------------------------------------------------------------------------------------
// remoteFileContext

/// What `remoteFileContext` fetches.
#[napi(object, object_to_js = false)]
pub struct FileContextRequest {
    /// `owner/name` on Gitea or GitHub.
    pub repo: String,
    /// Repository-relative path of the file.
    pub file: String,
    /// The 1-based line to centre on.
    pub line: f64,
    /// Lines on each side, 0 to 1000. Default 10.
    pub context: Option<f64>,
    /// Branch, tag or full commit SHA. Default: the repository's default branch (asked from
    /// the API, never assumed).
    pub r#ref: Option<String>,
}

/// A window of a remote file.
#[napi(object, object_from_js = false)]
pub struct FileContextResult {
    /// `owner/name`.
    pub repo: String,
    /// Repository-relative path.
    pub file: String,
    /// The line asked for.
    pub line: u32,
    /// First line returned (1-based).
    pub start_line: u32,
    /// Last line returned (before `line + context` at the end of the file).
    pub end_line: u32,
    /// The lines with numbers, one per `\n`: `" 148 | text"`, the asked line marked `">"`.
    pub content: String,
    /// The same lines without numbers (CR of CRLF removed, lines over 2000 characters cut).
    pub lines: Vec<String>,
    /// Gitea web link to the exact ref served:
    /// `{baseUrl}{owner}/{repo}/src/{branch|tag|commit}/{ref}/{file}#L{startLine}-L{endLine}`.
    pub url: String,
    /// The ref served: branch or tag name, or full commit SHA (Hound serves its indexed commit).
    pub r#ref: String,
    /// What `ref` is.
    #[napi(ts_type = "'branch' | 'tag' | 'commit'")]
    pub ref_kind: String,
    /// Which server served the lines: `'hound'` when the code host was unavailable or timed
    /// out.
    #[napi(ts_type = "'gitea' | 'github' | 'hound'")]
    pub source: String,
    /// Lines in the file, when the whole file was read (reading stops after `endLine`).
    pub total_lines: Option<u32>,
    /// Suspected secrets (API keys, tokens, private keys) replaced by `[REDACTED:<kind>]` in
    /// `lines` and `content` before they reach a model: how many. `getRawFile` never redacts.
    pub redacted: u32,
    /// The same secrets: kind and 1-based file line each, never the value.
    pub redactions: Vec<Redaction>,
    /// What the caller should know: why Hound served it, a ref Hound cannot vouch for,
    /// redactions.
    pub warnings: Vec<String>,
}

impl From<remote::FileContextResult> for FileContextResult {
    fn from(r: remote::FileContextResult) -> Self {
        FileContextResult {
            repo: r.repo,
            file: r.file,
            line: args::clamp_u32(r.line),
            start_line: args::clamp_u32(r.start_line),
            end_line: args::clamp_u32(r.end_line),
            content: r.content,
            lines: r.lines,
            url: r.url,
            r#ref: r.r#ref,
            ref_kind: r.ref_kind.as_str().to_owned(),
            source: r.source.as_str().to_owned(),
            total_lines: r.total_lines.map(args::clamp_u32),
            redacted: args::clamp_u32(r.redacted),
            redactions: redactions_js(&r.redactions),
            warnings: r.warnings,
        }
    }
}

struct ContextArgs {
    request: remote::FileContextRequest,
    gitea: GiteaArgs,
    hound_url: Option<String>,
    hound_timeout: Option<Duration>,
    fallback: bool,
    github: bool,
}

fn context_args(
    request: FileContextRequest,
    config: RemoteFileContextConfig,
) -> CoreResult<ContextArgs> {
    let line = args::whole_number(request.line, "request.line", 1, remote::MAX_LINE as u64)?;
    let context = opt_whole(
        request.context,
        "request.context",
        0,
        remote::MAX_CONTEXT_LINES as u64,
    )?;
    let github = config.provider.as_deref() == Some("github");
    Ok(ContextArgs {
        request: remote::FileContextRequest {
            repo: request.repo,
            file: request.file,
            line: line as usize,
            context: context.map(|n| n as usize),
            r#ref: request.r#ref,
        },
        gitea: GiteaArgs::new(
            config.base_url,
            config.token,
            config.timeout,
            config.max_bytes,
        )?,
        hound_url: config.hound_url,
        hound_timeout: opt_ms(config.hound_timeout, "config.houndTimeout")?,
        fallback: config.fallback.unwrap_or(true),
        github,
    })
}

async fn run_context(a: ContextArgs) -> CoreResult<remote::FileContextResult> {
    let (gitea, github) = if a.github {
        (
            GiteaConfig::default(),
            Some(super::github::resolve(a.gitea)?),
        )
    } else {
        (a.gitea.resolve()?, None)
    };
    let max_bytes = github.as_ref().map_or(gitea.max_bytes, |g| g.max_bytes);
    let hound = if a.fallback && (a.hound_url.is_some() || remote_env_hound()) {
        Some(HoundConfig::from_env_with(
            a.hound_url,
            a.hound_timeout,
            Some(max_bytes.max(remote::DEFAULT_MAX_BYTES)),
        )?)
    } else {
        None
    };
    remote::remote_file_context(
        &a.request,
        RemoteConfig {
            gitea,
            github,
            hound,
        },
    )
    .await
}

fn remote_env_hound() -> bool {
    std::env::var("HOUND_URL").is_ok_and(|v| !v.trim().is_empty())
}

/// Lines `line - context ..= line + context` of a file on Gitea, numbered, with a web link to
/// the exact ref served (the design's `hound_file_context`). The body is streamed and reading
/// stops after the last line needed. When Gitea is unavailable or times out and a Hound URL is
/// known (`houndUrl` or `HOUND_URL`), the same lines are rebuilt from Hound's index and
/// `source` is `'hound'`.
///
/// Rejects with `invalid_request` (bad input, not found, unknown ref, binary file, line past
/// the end), `unauthorized` (401/403), `unavailable` or `timeout`.
#[napi(ts_return_type = "Promise<FileContextResult>")]
pub fn remote_file_context(
    env: &Env,
    request: FileContextRequest,
    #[napi(ts_arg_type = "RemoteFileContextConfig & CallOptions")] config: Option<
        bridge::CallOptions<RemoteFileContextConfig>,
    >,
) -> napi::Result<PromiseRaw<'_, FileContextResult>> {
    let (config, call) = bridge::CallOptions::split(config);
    bridge::or_reject(env, context_args(request, config), |a| {
        bridge::spawn_async_call(
            env,
            call,
            move |_| run_context(a),
            |_, r| Ok(FileContextResult::from(r)),
        )
    })
}

// ---------------------------------------------------------------------------------------------
// HoundClient

/// Options of `HoundClient.search`. All optional; names map to Hound's parameters.
#[napi(object, object_to_js = false)]
#[derive(Default)]
pub struct HoundSearchOptions {
    /// `repos`: repository names, or a comma-separated string; `'*'` (the default) for all.
    /// Names are trimmed (Hound itself would silently drop `' beta'`).
    #[napi(ts_type = "string | string[]")]
    pub repos: Option<Either<String, Vec<String>>>,
    /// `files`: only paths matching this regexp.
    pub files: Option<String>,
    /// `excludeFiles`: drop paths matching this regexp.
    pub exclude_files: Option<String>,
    /// `i`: case-insensitive. Default `false`.
    pub ignore_case: Option<bool>,
    /// `literal`: match the query literally, not as a regexp. Default `false`.
    pub literal: Option<bool>,
    /// `ctx`: lines of context on both sides, 0 to 20 (Hound's cap). Default: Hound's, 2.
    pub context: Option<f64>,
    /// `limit`: most matches **per repository**; 0 for no limit (at most 100000). Default: the
    /// server's `result-limit` (5000 unless configured).
    pub limit: Option<f64>,
    /// `rng`: paging over matching **files**, per repository.
    pub rng: Option<HoundPaging>,
    /// `stats`: add `stats` to the result. Default `false`.
    pub stats: Option<bool>,
}

/// Paging over matching files.
#[napi(object, object_to_js = false)]
pub struct HoundPaging {
    /// Files to skip. Default 0.
    pub offset: Option<f64>,
    /// Files to return at most. Default: all.
    pub limit: Option<f64>,
}

/// One matching line.
#[napi(object, object_from_js = false, js_name = "HoundMatch")]
pub struct JsHoundMatch {
    /// The line without its `\n` (a CR of a CRLF file is kept, as Hound sends it).
    pub line: String,
    /// 1-based line number.
    pub line_number: u32,
    /// Context before (only lines after the previous match in the same file).
    pub before: Vec<String>,
    /// Context after (may include the next matching line).
    pub after: Vec<String>,
    /// Link to this line on the code host at the revision Hound indexed, by the repository's
    /// URL pattern (`/api/v1/repos`); absent when the repository has no web form.
    pub url: Option<String>,
}

/// The matches in one file.
#[napi(object, object_from_js = false, js_name = "HoundFileMatch")]
pub struct JsHoundFileMatch {
    /// Repo-relative path.
    pub filename: String,
    /// One entry per matching line.
    pub matches: Vec<JsHoundMatch>,
    /// Marked `linguist-generated` in `.gitattributes`.
    pub auto_generated: bool,
    /// Link to the file on the code host at the revision Hound indexed (no line anchor).
    pub url: Option<String>,
}

/// The result for one repository.
#[napi(object, object_from_js = false, js_name = "HoundRepoResult")]
pub struct JsHoundRepoResult {
    /// Matching files in index order (sorted by path).
    pub matches: Vec<JsHoundFileMatch>,
    /// Files with a match (counting files skipped by `rng`, not those skipped after `limit`).
    pub files_with_match: u32,
    /// The commit the index was built from.
    pub revision: String,
    /// The match count reached `limit`: more matches may exist (Hound does not say).
    pub limit_reached: bool,
}

/// Search statistics.
#[napi(object, object_from_js = false, js_name = "HoundStats")]
pub struct JsHoundStats {
    /// Files opened.
    pub files_opened: u32,
    /// Server time in milliseconds.
    pub duration_ms: f64,
}

/// What `HoundClient.search` returns.
#[napi(object, object_from_js = false, js_name = "HoundSearchResult")]
pub struct JsHoundSearchResult {
    /// Per repository name, in name order; repositories without a match are absent, so `{}`
    /// means no match.
    pub results: BTreeMap<String, JsHoundRepoResult>,
    /// Present when `stats: true` was asked for.
    pub stats: Option<JsHoundStats>,
}

/// How Hound's UI links to a file.
#[napi(object, object_from_js = false, js_name = "HoundUrlPattern")]
pub struct JsUrlPattern {
    /// E.g. `{url}/blob/{rev}/{path}{anchor}`.
    pub base_url: String,
    /// E.g. `#L{line}`.
    pub anchor: String,
}

/// A repository's configuration as Hound shows it.
#[napi(object, object_from_js = false, js_name = "HoundRepo")]
pub struct JsHoundRepo {
    /// Clone URL.
    pub url: String,
    /// Display name (`''` when unset).
    pub display_name: String,
    /// Poll interval in milliseconds.
    pub ms_between_poll: f64,
    /// Version control system (`'git'`).
    pub vcs: String,
    /// Whether a `vcs-config` is set (Hound never shows its content).
    pub vcs_config_set: bool,
    /// Web link pattern.
    pub url_pattern: Option<JsUrlPattern>,
    /// Dotfiles are not indexed.
    pub exclude_dot_files: bool,
    /// Absent when the server default applies.
    pub enable_poll_updates: Option<bool>,
    /// Absent when the server default applies.
    pub enable_push_updates: Option<bool>,
    /// Globs of generated files, when configured.
    pub auto_generated_files: Option<Vec<String>>,
}

/// A file Hound did not index.
#[napi(object, object_from_js = false, js_name = "HoundExcludedFile")]
pub struct JsExcluded {
    /// Repo-relative path.
    pub filename: String,
    /// Why, e.g. `'Not a text file.'`.
    pub reason: String,
}

fn search_to_js(r: remote::HoundSearchResult) -> JsHoundSearchResult {
    JsHoundSearchResult {
        results: r
            .results
            .into_iter()
            .map(|(name, repo)| {
                let value = JsHoundRepoResult {
                    matches: repo
                        .matches
                        .into_iter()
                        .map(|f| JsHoundFileMatch {
                            filename: f.filename,
                            matches: f
                                .matches
                                .into_iter()
                                .map(|m| JsHoundMatch {
                                    line: m.line,
                                    line_number: m.line_number,
                                    before: m.before,
                                    after: m.after,
                                    url: m.url,
                                })
                                .collect(),
                            auto_generated: f.auto_generated,
                            url: f.url,
                        })
                        .collect(),
                    files_with_match: repo.files_with_match,
                    revision: repo.revision,
                    limit_reached: repo.limit_reached,
                };
                (name, value)
            })
            .collect(),
        stats: r.stats.map(|s| JsHoundStats {
            files_opened: s.files_opened,
            duration_ms: s.duration_ms as f64,
        }),
    }
}

fn repo_to_js(r: remote::HoundRepo) -> JsHoundRepo {
    JsHoundRepo {
        url: r.url,
        display_name: r.display_name,
        ms_between_poll: r.ms_between_poll as f64,
        vcs: r.vcs,
        vcs_config_set: r.vcs_config_set,
        url_pattern: r.url_pattern.map(|p| JsUrlPattern {
            base_url: p.base_url,
            anchor: p.anchor,
        }),
        exclude_dot_files: r.exclude_dot_files,
        enable_poll_updates: r.enable_poll_updates,
        enable_push_updates: r.enable_push_updates,
        auto_generated_files: r.auto_generated_files,
    }
}

fn search_args(query: String, o: HoundSearchOptions) -> CoreResult<HoundSearch> {
    let count = |value, name| opt_whole(value, name, 0, MAX_COUNT).map(|n| n.map(|n| n as u32));
    Ok(HoundSearch {
        query,
        repos: o.repos.and_then(repos_arg),
        files: o.files,
        exclude_files: o.exclude_files,
        ignore_case: o.ignore_case.unwrap_or(false),
        literal: o.literal.unwrap_or(false),
        context: opt_whole(
            o.context,
            "options.context",
            0,
            u64::from(remote::HOUND_MAX_CONTEXT),
        )?
        .map(|n| n as u32),
        limit: opt_whole(
            o.limit,
            "options.limit",
            0,
            u64::from(remote::HOUND_LIMIT_CAP),
        )?
        .map(|n| n as u32),
        stats: o.stats.unwrap_or(false),
        paging: match o.rng {
            Some(rng) => Some(Paging {
                offset: count(rng.offset, "options.rng.offset")?.unwrap_or(0),
                limit: count(rng.limit, "options.rng.limit")?,
            }),
            None => None,
        },
    })
}

/// A client of one Hound server (hound-search/hound).
#[napi]
pub struct HoundClient {
    inner: Arc<remote::HoundClient>,
}

#[napi]
impl HoundClient {
    /// Settings default from `HOUND_URL` and `HOUND_TIMEOUT`. Throws `invalid_request` for a
    /// bad setting.
    #[napi(constructor)]
    pub fn new(env: &Env, config: Option<HoundClientConfig>) -> napi::Result<Self> {
        bridge::run_sync(env, || {
            let c = config.unwrap_or_default();
            let timeout = opt_ms(c.timeout, "config.timeout")?;
            let max_bytes = opt_whole(c.max_bytes, "config.maxBytes", 1, MAX_BYTES_LIMIT)?;
            let config = HoundConfig::from_env_with(c.base_url, timeout, max_bytes)?;
            Ok(HoundClient {
                inner: Arc::new(remote::HoundClient::new(config)?),
            })
        })
    }

    /// The server URL, with a trailing slash.
    #[napi(getter)]
    pub fn base_url(&self) -> String {
        self.inner.base_url().to_owned()
    }

    /// Searches with Hound's `/api/v1/search`. `query` is a regexp (unless `literal`); `''`
    /// matches every line. A bad regexp (which Hound reports with HTTP 200) rejects with
    /// `invalid_request`; Hound still indexing (503) with `unavailable`. Files and lines carry
    /// `url`: the code host's link at the revision Hound indexed, by each repository's URL
    /// pattern from `/api/v1/repos` (fetched once a minute at most).
    #[napi(ts_return_type = "Promise<HoundSearchResult>")]
    pub fn search<'env>(
        &self,
        env: &'env Env,
        query: String,
        #[napi(ts_arg_type = "HoundSearchOptions & CallOptions")] options: Option<
            bridge::CallOptions<HoundSearchOptions>,
        >,
    ) -> napi::Result<PromiseRaw<'env, JsHoundSearchResult>> {
        let (options, call) = bridge::CallOptions::split(options);
        let client = self.inner.clone();
        bridge::or_reject(env, search_args(query, options), |search| {
            bridge::spawn_async_call(
                env,
                call,
                move |_| async move { client.search_linked(&search).await },
                |_, r| Ok(search_to_js(r)),
            )
        })
    }

    /// The configured repositories (`/api/v1/repos`), by name.
    #[napi(ts_return_type = "Promise<Record<string, HoundRepo>>")]
    pub fn repos<'env>(
        &self,
        env: &'env Env,
        #[napi(ts_arg_type = "CallOptions")] options: Option<
            bridge::CallOptions<bridge::NoOptions>,
        >,
    ) -> napi::Result<PromiseRaw<'env, BTreeMap<String, JsHoundRepo>>> {
        let (_, call) = bridge::CallOptions::split(options);
        let client = self.inner.clone();
        bridge::spawn_async_call(
            env,
            call,
            move |_| async move { client.repos().await },
            |_, r| Ok(r.into_iter().map(|(k, v)| (k, repo_to_js(v))).collect()),
        )
    }

    /// Hound's key of the code-host repository `ownerRepo` (`owner/name`): a key equal to it,
    /// else the repository whose clone URL names it, else `owner-name`, else `name`; `null`
    /// when Hound does not index it.
    #[napi(ts_return_type = "Promise<string | null>")]
    pub fn repo_key<'env>(
        &self,
        env: &'env Env,
        owner_repo: String,
    ) -> napi::Result<PromiseRaw<'env, Option<String>>> {
        let client = self.inner.clone();
        let work = async move { client.repo_key(&owner_repo).await };
        bridge::spawn_async_call(env, bridge::Call::none(), move |_| work, |_, k| Ok(k))
    }

    /// `owner/name` on the code host of Hound repository `key` (from its clone URL); `null`
    /// for an unknown key.
    #[napi(ts_return_type = "Promise<string | null>")]
    pub fn repo_name<'env>(
        &self,
        env: &'env Env,
        key: String,
    ) -> napi::Result<PromiseRaw<'env, Option<String>>> {
        let client = self.inner.clone();
        let work = async move { client.repo_name(&key).await };
        bridge::spawn_async_call(env, bridge::Call::none(), move |_| work, |_, n| Ok(n))
    }

    /// Files of `repo` that Hound did not index (`/api/v1/excludes`), e.g. binaries.
    #[napi(ts_return_type = "Promise<HoundExcludedFile[]>")]
    pub fn excludes<'env>(
        &self,
        env: &'env Env,
        repo: String,
        #[napi(ts_arg_type = "CallOptions")] options: Option<
            bridge::CallOptions<bridge::NoOptions>,
        >,
    ) -> napi::Result<PromiseRaw<'env, Vec<JsExcluded>>> {
        let (_, call) = bridge::CallOptions::split(options);
        let client = self.inner.clone();
        bridge::spawn_async_call(
            env,
            call,
            move |_| async move { client.excludes(&repo).await },
            |_, r| {
                Ok(r.into_iter()
                    .map(|e| JsExcluded {
                        filename: e.filename,
                        reason: e.reason,
                    })
                    .collect())
            },
        )
    }
}
