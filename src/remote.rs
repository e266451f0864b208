//! Remote file context exports: `GiteaClient`, `HoundClient`, `remoteFileContext` (see
//! docs/design/adr-003-file-context-retrieval.md, section Decision).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use napi::bindgen_prelude::*;
use napi::{Env, ValueType};
use napi_derive::napi;

use super::args;
use super::bridge;
use super::engine::exports;
use super::secrets::{redactions_js, Redaction};
use context_engine_core::error::{Error as CoreError, Result as CoreResult};
use context_engine_core::remote::{
    self, GiteaConfig, HoundConfig, HoundSearch, Paging, RemoteConfig,
};

/// Largest accepted `maxBytes`: 1 GiB.
const MAX_BYTES_LIMIT: u64 = 1 << 30;
/// Largest accepted `limit` / paging value.
const MAX_COUNT: u64 = u32::MAX as u64;

// ---------------------------------------------------------------------------------------------
// Argument helpers

fn opt_field_string(obj: &Object<'_>, key: &str) -> CoreResult<Option<String>> {
    args::opt_string(args::field(obj, key)?, key)
}

fn opt_field_whole(obj: &Object<'_>, key: &str, min: u64, max: u64) -> CoreResult<Option<u64>> {
    args::field(obj, key)?
        .map(|v| args::whole(v, key, min, max))
        .transpose()
}

fn opt_field_bool(obj: &Object<'_>, key: &str) -> CoreResult<Option<bool>> {
    args::field(obj, key)?
        .map(|v| args::boolean(v, key))
        .transpose()
}

fn opt_field_ms(obj: &Object<'_>, key: &str) -> CoreResult<Option<Duration>> {
    Ok(opt_field_whole(obj, key, 1, remote::MAX_TIMEOUT_MS)?.map(Duration::from_millis))
}

/// A string is one name or a comma-separated list (`'*'` for all); an array lists names.
fn repos_arg(value: Unknown<'_>) -> CoreResult<Option<Vec<String>>> {
    let bad = || CoreError::invalid_request("repos must be a string or an array of strings");
    match value.get_type().unwrap_or(ValueType::Unknown) {
        ValueType::String => {
            let s = args::string(value, "repos")?;
            if s.trim() == "*" {
                return Ok(None);
            }
            Ok(Some(s.split(',').map(str::to_owned).collect()))
        }
        ValueType::Object if args::is_array(&value) => {
            args::string_list(value, "repos", 10_000).map(Some)
        }
        _ => Err(bad()),
    }
}

// ---------------------------------------------------------------------------------------------
// Config

/// Settings of a `GiteaClient`. All optional.
// Declared for the TypeScript types only: input objects are read field by field (see
// `context_args`, `search_args`), so a wrong type is an `invalid_request` naming the field.
#[allow(dead_code)]
#[napi(object, object_to_js = false)]
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
// Declared for the TypeScript types only: input objects are read field by field (see
// `context_args`, `search_args`), so a wrong type is an `invalid_request` naming the field.
#[allow(dead_code)]
#[napi(object, object_to_js = false)]
pub struct HoundClientConfig {
    /// Server URL. Default: `HOUND_URL`, else `http://localhost:6080`.
    pub base_url: Option<String>,
    /// Deadline of one call in milliseconds (1 to 600000). Default: `HOUND_TIMEOUT`, else 10000.
    pub timeout: Option<f64>,
    /// Largest response accepted, in bytes. Default 16 MiB, at most 1 GiB.
    pub max_bytes: Option<f64>,
}

/// Settings of `remoteFileContext`: the Gitea settings plus the Hound fallback. All optional.
// Declared for the TypeScript types only: input objects are read field by field (see
// `context_args`, `search_args`), so a wrong type is an `invalid_request` naming the field.
#[allow(dead_code)]
#[napi(object, object_to_js = false)]
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

pub(crate) fn gitea_args(obj: Option<&Object<'_>>) -> CoreResult<GiteaArgs> {
    let Some(obj) = obj else {
        return Ok(GiteaArgs {
            base_url: None,
            token: None,
            timeout: None,
            max_bytes: None,
        });
    };
    Ok(GiteaArgs {
        base_url: opt_field_string(obj, "baseUrl")?,
        token: opt_field_string(obj, "token")?,
        timeout: opt_field_ms(obj, "timeout")?,
        max_bytes: opt_field_whole(obj, "maxBytes", 1, MAX_BYTES_LIMIT)?,
    })
}

impl GiteaArgs {
    fn resolve(self) -> CoreResult<GiteaConfig> {
        GiteaConfig::from_env_with(self.base_url, self.token, self.timeout, self.max_bytes)
    }
}

// ---------------------------------------------------------------------------------------------
// GiteaClient

/// The `#[napi]` methods of a code-host client class (`GiteaClient`, `GitHubClient`, each a
/// struct with an `inner: Arc<HostClient<_>>`): the constructor from the host's settings (read
/// by `gitea_args`, resolved by `$resolve`), the `baseUrl` and `hasToken` getters and
/// `getRawFile`, the same for every host but for their docs. `$extra` methods stand between
/// `baseUrl` and `hasToken`. One definition, so the hosts cannot drift apart.
///
/// The docs of the invocation are written as `#[doc = "..."]`: a `///` comment passed through
/// `macro_rules!` reaches napi as a raw string, which it would copy into `index.d.ts` verbatim.
macro_rules! host_client_class {
    (
        $class:ident($core:ty, $config_ts:tt, $resolve:path),
        $(#[doc = $new_doc:tt])*
        new;
        $(#[doc = $base_doc:tt])*
        base_url;
        { $($extra:tt)* }
        $(#[doc = $raw_doc:tt])*
        get_raw_file;
    ) => {
        #[napi]
        impl $class {
            $(#[doc = $new_doc])*
            #[napi(constructor, ts_args_type = $config_ts)]
            pub fn new(env: &Env, config: Option<Unknown<'_>>) -> napi::Result<Self> {
                bridge::run_sync(env, || {
                    let obj = args::opt_object(config, "config")?;
                    let config = $resolve(gitea_args(obj.as_ref())?)?;
                    Ok($class {
                        inner: Arc::new(<$core>::new(config)?),
                    })
                })
            }

            $(#[doc = $base_doc])*
            #[napi(getter)]
            pub fn base_url(&self) -> String {
                self.inner.base_url().to_owned()
            }

            $($extra)*

            /// Whether a token is configured (the token itself is never readable).
            #[napi(getter)]
            pub fn has_token(&self) -> bool {
                self.inner.has_token()
            }

            $(#[doc = $raw_doc])*
            #[napi(
                ts_args_type = "repo: string, filepath: string, ref?: string | null, options?: CallOptions",
                ts_return_type = "Promise<string>"
            )]
            pub fn get_raw_file<'env>(
                &self,
                env: &'env Env,
                repo: Unknown<'_>,
                filepath: Unknown<'_>,
                r#ref: Option<Unknown<'_>>,
                options: Option<Unknown<'env>>,
            ) -> napi::Result<PromiseRaw<'env, String>> {
                let client = self.inner.clone();
                let parsed = raw_file_args(repo, filepath, r#ref, options);
                bridge::or_reject(env, parsed, |(repo, path, r#ref, call)| {
                    let work = async move { client.get_raw_file(&repo, &path, r#ref.as_deref()).await };
                    bridge::spawn_async_call(env, call, move |_| work, |_, s| Ok(s))
                })
            }
        }
    };
}
pub(crate) use host_client_class;

/// A client of one Gitea server. Holds no connection of its own; all clients share
/// one connection pool.
#[napi]
pub struct GiteaClient {
    inner: Arc<remote::GiteaClient>,
}

host_client_class! {
    GiteaClient(remote::GiteaClient, "config?: GiteaClientConfig", GiteaArgs::resolve),
    #[doc = " Settings default from `GITEA_URL`, `GITEA_TOKEN` (or `~/.config/gitea/token`) and"]
    #[doc = " `GITEA_TIMEOUT`. Throws `invalid_request` for a bad setting."]
    new;
    #[doc = " The server URL, with a trailing slash."]
    base_url;
    {}
    #[doc = " The whole file `filepath` of `repo` (`owner/name`) at `ref` (branch, tag or full commit"]
    #[doc = " SHA; the default branch when omitted). A ref Gitea does not know is `invalid_request`"]
    #[doc = " (Gitea itself would silently serve the default branch). Binary files and files over"]
    #[doc = " `maxBytes` are `invalid_request`; a missing or private file is `invalid_request`"]
    #[doc = " \"not found\"; 401/403 `unauthorized`; unreachable or 5xx `unavailable`; `timeout`."]
    get_raw_file;
}

/// The arguments of `getRawFile` (Gitea's and GitHub's): repository, path, ref, call options.
pub(crate) fn raw_file_args(
    repo: Unknown<'_>,
    filepath: Unknown<'_>,
    r#ref: Option<Unknown<'_>>,
    options: Option<Unknown<'_>>,
) -> CoreResult<(String, String, Option<String>, bridge::Call)> {
    Ok((
        args::string_max(repo, "repo", 4096)?,
        args::string_max(filepath, "filepath", 64 * 1024)?,
        args::opt_string(r#ref, "ref")?,
        bridge::call_options(options, "options")?,
    ))
}

// ---------------------------------------------------------------------------------------------
// remoteFileContext

/// What `remoteFileContext` fetches.
// Declared for the TypeScript types only: input objects are read field by field (see
// `context_args`, `search_args`), so a wrong type is an `invalid_request` naming the field.
#[allow(dead_code)]
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

fn context_args(request: Unknown<'_>, config: Option<Unknown<'_>>) -> CoreResult<ContextArgs> {
    let req = args::object(request, "request")?;
    let repo = args::string(
        args::field(&req, "repo")?.ok_or_else(|| CoreError::invalid_request("repo is required"))?,
        "repo",
    )?;
    let file = args::string(
        args::field(&req, "file")?.ok_or_else(|| CoreError::invalid_request("file is required"))?,
        "file",
    )?;
    let line = args::whole(
        args::field(&req, "line")?.ok_or_else(|| CoreError::invalid_request("line is required"))?,
        "line",
        1,
        remote::MAX_LINE as u64,
    )? as usize;
    let context =
        opt_field_whole(&req, "context", 0, remote::MAX_CONTEXT_LINES as u64)?.map(|n| n as usize);
    let r#ref = opt_field_string(&req, "ref")?;
    let config = args::opt_object(config, "config")?;
    let (hound_url, hound_timeout, fallback) = match &config {
        Some(obj) => (
            opt_field_string(obj, "houndUrl")?,
            opt_field_ms(obj, "houndTimeout")?,
            opt_field_bool(obj, "fallback")?.unwrap_or(true),
        ),
        None => (None, None, true),
    };
    let github = match &config {
        Some(obj) => super::github::provider_is_github(obj)?,
        None => false,
    };
    Ok(ContextArgs {
        request: remote::FileContextRequest {
            repo,
            file,
            line,
            context,
            r#ref,
        },
        gitea: gitea_args(config.as_ref())?,
        hound_url,
        hound_timeout,
        fallback,
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

exports! {
    #[doc = " Lines `line - context ..= line + context` of a file on Gitea, numbered, with a web link to"]
    #[doc = " the exact ref served (the design's `hound_file_context`). The body is streamed and reading"]
    #[doc = " stops after the last line needed. When Gitea is unavailable or times out and a Hound URL is"]
    #[doc = " known (`houndUrl` or `HOUND_URL`), the same lines are rebuilt from Hound's index and"]
    #[doc = " `source` is `'hound'`."]
    #[doc = ""]
    #[doc = " Rejects with `invalid_request` (bad input, not found, unknown ref, binary file, line past"]
    #[doc = " the end), `unauthorized` (401/403), `unavailable` or `timeout`."]
    #[napi(
        ts_args_type = "request: FileContextRequest, config?: RemoteFileContextConfig & CallOptions",
        ts_return_type = "Promise<FileContextResult>"
    )]
    async fn remote_file_context(env, request; config) -> FileContextResult {
        let parsed = context_args(request, config)
            .and_then(|a| Ok((a, bridge::call_options(config, "config")?)));
        bridge::or_reject(env, parsed, |(a, call)| {
            bridge::spawn_async_call(
                env,
                call,
                move |_| run_context(a),
                |_, r| Ok(FileContextResult::from(r)),
            )
        })
    }
}

// ---------------------------------------------------------------------------------------------
// HoundClient

/// Options of `HoundClient.search`. All optional; names map to Hound's parameters.
// Declared for the TypeScript types only: input objects are read field by field (see
// `context_args`, `search_args`), so a wrong type is an `invalid_request` naming the field.
#[allow(dead_code)]
#[napi(object, object_to_js = false)]
pub struct HoundSearchOptions {
    /// `repos`: repository names, or a comma-separated string; `'*'` (the default) for all.
    /// Names are trimmed (Hound itself would silently drop `' beta'`).
    #[napi(ts_type = "string | string[]")]
    pub repos: Option<String>,
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
// Declared for the TypeScript types only: input objects are read field by field (see
// `context_args`, `search_args`), so a wrong type is an `invalid_request` naming the field.
#[allow(dead_code)]
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

fn search_args(query: Unknown<'_>, options: Option<Unknown<'_>>) -> CoreResult<HoundSearch> {
    let mut search = HoundSearch {
        query: args::string(query, "query")?,
        ..HoundSearch::default()
    };
    let Some(obj) = args::opt_object(options, "options")? else {
        return Ok(search);
    };
    search.repos = match args::field(&obj, "repos")? {
        Some(v) if !args::is_missing(&v) => repos_arg(v)?,
        _ => None,
    };
    search.files = opt_field_string(&obj, "files")?;
    search.exclude_files = opt_field_string(&obj, "excludeFiles")?;
    search.ignore_case = opt_field_bool(&obj, "ignoreCase")?.unwrap_or(false);
    search.literal = opt_field_bool(&obj, "literal")?.unwrap_or(false);
    search.context = opt_field_whole(&obj, "context", 0, u64::from(remote::HOUND_MAX_CONTEXT))?
        .map(|n| n as u32);
    search.limit =
        opt_field_whole(&obj, "limit", 0, u64::from(remote::HOUND_LIMIT_CAP))?.map(|n| n as u32);
    search.stats = opt_field_bool(&obj, "stats")?.unwrap_or(false);
    if let Some(rng) = args::opt_object(args::field(&obj, "rng")?, "rng")? {
        search.paging = Some(Paging {
            offset: opt_field_whole(&rng, "offset", 0, MAX_COUNT)?.unwrap_or(0) as u32,
            limit: opt_field_whole(&rng, "limit", 0, MAX_COUNT)?.map(|n| n as u32),
        });
    }
    Ok(search)
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
    #[napi(constructor, ts_args_type = "config?: HoundClientConfig")]
    pub fn new(env: &Env, config: Option<Unknown<'_>>) -> napi::Result<Self> {
        bridge::run_sync(env, || {
            let obj = args::opt_object(config, "config")?;
            let (base_url, timeout, max_bytes) = match &obj {
                Some(o) => (
                    opt_field_string(o, "baseUrl")?,
                    opt_field_ms(o, "timeout")?,
                    opt_field_whole(o, "maxBytes", 1, MAX_BYTES_LIMIT)?,
                ),
                None => (None, None, None),
            };
            let config = HoundConfig::from_env_with(base_url, timeout, max_bytes)?;
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
    #[napi(
        ts_args_type = "query: string, options?: HoundSearchOptions & CallOptions",
        ts_return_type = "Promise<HoundSearchResult>"
    )]
    pub fn search<'env>(
        &self,
        env: &'env Env,
        query: Unknown<'_>,
        options: Option<Unknown<'env>>,
    ) -> napi::Result<PromiseRaw<'env, JsHoundSearchResult>> {
        let parsed = search_args(query, options)
            .and_then(|s| Ok((s, bridge::call_options(options, "options")?)));
        let client = self.inner.clone();
        bridge::or_reject(env, parsed, |(search, call)| {
            bridge::spawn_async_call(
                env,
                call,
                move |_| async move { client.search_linked(&search).await },
                |_, r| Ok(search_to_js(r)),
            )
        })
    }

    /// The configured repositories (`/api/v1/repos`), by name.
    #[napi(
        ts_args_type = "options?: CallOptions",
        ts_return_type = "Promise<Record<string, HoundRepo>>"
    )]
    pub fn repos<'env>(
        &self,
        env: &'env Env,
        options: Option<Unknown<'env>>,
    ) -> napi::Result<PromiseRaw<'env, BTreeMap<String, JsHoundRepo>>> {
        let client = self.inner.clone();
        bridge::or_reject(env, bridge::call_options(options, "options"), |call| {
            bridge::spawn_async_call(
                env,
                call,
                move |_| async move { client.repos().await },
                |_, r| Ok(r.into_iter().map(|(k, v)| (k, repo_to_js(v))).collect()),
            )
        })
    }

    /// Hound's key of the code-host repository `ownerRepo` (`owner/name`): a key equal to it,
    /// else the repository whose clone URL names it, else `owner-name`, else `name`; `null`
    /// when Hound does not index it.
    #[napi(
        ts_args_type = "ownerRepo: string",
        ts_return_type = "Promise<string | null>"
    )]
    pub fn repo_key<'env>(
        &self,
        env: &'env Env,
        owner_repo: Unknown<'_>,
    ) -> napi::Result<PromiseRaw<'env, Option<String>>> {
        let client = self.inner.clone();
        bridge::or_reject(env, args::string(owner_repo, "ownerRepo"), |name| {
            let work = async move { client.repo_key(&name).await };
            bridge::spawn_async_call(env, bridge::Call::none(), move |_| work, |_, k| Ok(k))
        })
    }

    /// `owner/name` on the code host of Hound repository `key` (from its clone URL); `null`
    /// for an unknown key.
    #[napi(
        ts_args_type = "key: string",
        ts_return_type = "Promise<string | null>"
    )]
    pub fn repo_name<'env>(
        &self,
        env: &'env Env,
        key: Unknown<'_>,
    ) -> napi::Result<PromiseRaw<'env, Option<String>>> {
        let client = self.inner.clone();
        bridge::or_reject(env, args::string(key, "key"), |key| {
            let work = async move { client.repo_name(&key).await };
            bridge::spawn_async_call(env, bridge::Call::none(), move |_| work, |_, n| Ok(n))
        })
    }

    /// Files of `repo` that Hound did not index (`/api/v1/excludes`), e.g. binaries.
    #[napi(
        ts_args_type = "repo: string, options?: CallOptions",
        ts_return_type = "Promise<HoundExcludedFile[]>"
    )]
    pub fn excludes<'env>(
        &self,
        env: &'env Env,
        repo: Unknown<'_>,
        options: Option<Unknown<'env>>,
    ) -> napi::Result<PromiseRaw<'env, Vec<JsExcluded>>> {
        let parsed = args::string_max(repo, "repo", 4096)
            .and_then(|r| Ok((r, bridge::call_options(options, "options")?)));
        let client = self.inner.clone();
        bridge::or_reject(env, parsed, |(repo, call)| {
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
        })
    }
}
