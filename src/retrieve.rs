//! Retrieval exports (Context Retrieval Contract v1): `retrieve`, `indexStatus`,
//! `prepareIndex`, and the same as `ContextEngine` methods.

use std::sync::Arc;

use napi::bindgen_prelude::*;
use napi::Env;
use napi_derive::napi;

use super::engine::ContextEngine;
use super::{args, bridge};
use context_engine_core::engine::Engine;
use context_engine_core::error::{Error as CoreError, Result as CoreResult};
use context_engine_core::retrieve::{self, IndexStatus as CoreStatus, Request, Snippet};

/// Which retrieval backend a request selects; the engine serves both.
#[napi(string_enum)]
pub enum ContextProviderId {
    /// The local file system provider.
    #[napi(value = "filesystem")]
    Filesystem,
    /// The engine-backed provider.
    #[napi(value = "mcp")]
    Mcp,
}

/// A retrieval request (Context Retrieval Contract v1 §3.1).
// Declares the TypeScript type; the value is read field by field with `args` so that every
// bad input is an `invalid_request`.
#[allow(dead_code)]
#[napi(object, object_to_js = false)]
pub struct ContextRetrievalRequest {
    /// What the agent is asked to do; terms, identifiers, paths and stack frames in it are
    /// used. An empty prompt gives `[]`. At most 256 KiB.
    pub prompt: String,
    /// The caller's space (echoed nowhere, required by the contract). At most 1 KiB.
    pub space_id: String,
    /// The caller's session (required by the contract). At most 1 KiB.
    pub session_id: String,
    /// Absolute path of the repository root; nothing outside it is read.
    pub root_path: String,
    /// The provider; echoed in each snippet's `provider`.
    pub provider_id: ContextProviderId,
    /// Snippets wanted: default 20, capped to 100.
    pub limit: Option<u32>,
    /// When true, each snippet carries the `signals` that scored it. Default false.
    pub explain: Option<bool>,
}

/// The parts of a snippet's score (its file's), returned when the request sets `explain`.
#[napi(object, object_from_js = false)]
pub struct SnippetSignals {
    /// BM25 of the whole file's text.
    pub bm25: f64,
    /// The best chunk's BM25F (text and defined names), weighted.
    pub chunk: f64,
    /// Directory and file names matching prompt terms.
    pub path: f64,
    /// Definitions of prompt terms in the file.
    pub symbol: f64,
    /// The prompt names the file (path, file name, module path or stem).
    pub mention: f64,
    /// What the file is for, from its path.
    #[napi(
        ts_type = "'source' | 'test' | 'fixture' | 'docs' | 'example' | 'config' | 'generated' | 'vendored' | 'legacy' | 'template'"
    )]
    pub role: String,
    /// The factor the role applies (1 for source and for roles the prompt asks for).
    pub role_factor: f64,
    /// The file's score: the sum of the parts times the role factor.
    pub total: f64,
}

/// A ranked snippet (Context Retrieval Contract v1 §3.2), with optional additions.
#[napi(object, object_from_js = false)]
pub struct ContextSnippet {
    /// Stable id: a hash of path, line range and content.
    pub id: String,
    /// The request's `providerId`.
    pub provider: ContextProviderId,
    /// Path relative to `rootPath`, `/`-separated.
    pub path: String,
    /// `path:startLine-endLine`.
    pub source: String,
    /// The snippet's lines (at most 60 lines and 4000 characters), secrets redacted.
    pub content: String,
    /// Relevance, finite and positive; the array is sorted by it, descending.
    pub score: f64,
    /// First line, 1-based.
    pub start_line: Option<u32>,
    /// Last line, 1-based, inclusive.
    pub end_line: Option<u32>,
    /// Language from the file name (`typescript`, `rust`, `python`...), if known.
    pub language: Option<String>,
    /// How the score was made; only when the request sets `explain`.
    pub signals: Option<SnippetSignals>,
}

/// The state of a root's retrieval index.
#[napi(object, object_from_js = false)]
pub struct IndexStatus {
    /// `'absent'` (never indexed or evicted), `'building'` or `'ready'`.
    #[napi(ts_type = "'absent' | 'building' | 'ready'")]
    pub state: String,
    /// Files read by the current (or last) build or update.
    pub files_read: u32,
    /// Files in the index.
    pub files: u32,
    /// Chunks (snippet candidates) in the index.
    pub chunks: u32,
    /// Distinct terms.
    pub terms: u32,
    /// Approximate memory held by the index, in bytes.
    pub bytes: f64,
}

fn u32_of(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl From<CoreStatus> for IndexStatus {
    fn from(s: CoreStatus) -> Self {
        IndexStatus {
            state: s.state.as_str().to_owned(),
            files_read: u32_of(s.files_read),
            files: u32_of(s.stats.files),
            chunks: u32_of(s.stats.chunks),
            terms: u32_of(s.stats.terms),
            bytes: s.stats.bytes as f64,
        }
    }
}

#[derive(Clone, Copy)]
enum Provider {
    Filesystem,
    Mcp,
}

fn id_string(value: Option<Unknown<'_>>, name: &str) -> CoreResult<String> {
    let value = value
        .filter(|v| !args::is_missing(v))
        .ok_or_else(|| CoreError::invalid_request(format!("{name} is required")))?;
    let s = args::string(value, name)?;
    if s.trim().is_empty() {
        return Err(CoreError::invalid_request(format!(
            "{name} must not be empty"
        )));
    }
    if s.len() > retrieve::MAX_ID_BYTES {
        return Err(CoreError::invalid_request(format!(
            "{name} is too long (at most {} bytes)",
            retrieve::MAX_ID_BYTES
        )));
    }
    Ok(s)
}

fn request_args(request: Unknown<'_>) -> CoreResult<(Request, Provider, bool)> {
    let object = args::object(request, "request")?;
    let required = |key: &str| -> CoreResult<Unknown<'_>> {
        args::field(&object, key)?
            .filter(|v| !args::is_missing(v))
            .ok_or_else(|| CoreError::invalid_request(format!("{key} is required")))
    };
    let prompt = args::string(required("prompt")?, "prompt")?;
    if prompt.len() > retrieve::MAX_PROMPT_BYTES {
        return Err(CoreError::invalid_request(format!(
            "prompt is too large (at most {} KiB)",
            retrieve::MAX_PROMPT_BYTES / 1024
        )));
    }
    id_string(args::field(&object, "spaceId")?, "spaceId")?;
    id_string(args::field(&object, "sessionId")?, "sessionId")?;
    let root = args::string(required("rootPath")?, "rootPath")?;
    if root.trim().is_empty() {
        return Err(CoreError::invalid_request("rootPath must not be empty"));
    }
    let provider = match args::string(required("providerId")?, "providerId")?.as_str() {
        "mcp" => Provider::Mcp,
        "filesystem" => Provider::Filesystem,
        _ => {
            return Err(CoreError::invalid_request(
                "providerId must be 'filesystem' or 'mcp'",
            ))
        }
    };
    let limit = match args::field(&object, "limit")? {
        Some(v) if !args::is_missing(&v) => {
            let n = args::whole(v, "limit", 1, u32::MAX as u64)?;
            (n as usize).min(retrieve::MAX_LIMIT)
        }
        _ => retrieve::DEFAULT_LIMIT,
    };
    let explain = match args::field(&object, "explain")? {
        Some(v) if !args::is_missing(&v) => {
            if args::type_of(&v) != napi::ValueType::Boolean {
                return Err(CoreError::invalid_request("explain must be a boolean"));
            }
            unsafe { v.cast::<bool>() }
                .map_err(|_| CoreError::invalid_request("explain must be a boolean"))?
        }
        _ => false,
    };
    Ok((
        Request {
            prompt,
            root,
            limit,
        },
        provider,
        explain,
    ))
}

fn to_js(s: Snippet, provider: Provider) -> ContextSnippet {
    ContextSnippet {
        id: s.id,
        provider: match provider {
            Provider::Filesystem => ContextProviderId::Filesystem,
            Provider::Mcp => ContextProviderId::Mcp,
        },
        path: s.path,
        source: s.source,
        content: s.content,
        score: s.score,
        start_line: Some(s.start_line),
        end_line: Some(s.end_line),
        language: s.language.map(str::to_owned),
        signals: s.signals.map(|g| SnippetSignals {
            bm25: f64::from(g.bm25),
            chunk: f64::from(g.chunk),
            path: f64::from(g.path),
            symbol: f64::from(g.symbol),
            mention: f64::from(g.mention),
            role: g.role.as_str().to_owned(),
            role_factor: f64::from(g.role_factor),
            total: f64::from(g.total),
        }),
    }
}

fn retrieve_with<'env>(
    env: &'env Env,
    engine: Arc<Engine>,
    request: Unknown<'_>,
) -> napi::Result<PromiseRaw<'env, Vec<ContextSnippet>>> {
    match request_args(request) {
        Ok((request, provider, explain)) => bridge::spawn(
            env,
            move || engine.retrieval.retrieve_with(&request, explain),
            move |_, snippets| Ok(snippets.into_iter().map(|s| to_js(s, provider)).collect()),
        ),
        Err(e) => bridge::reject(env, e),
    }
}

fn root_arg(root: Unknown<'_>) -> CoreResult<String> {
    let root = args::string(root, "rootPath")?;
    if root.trim().is_empty() {
        return Err(CoreError::invalid_request("rootPath must not be empty"));
    }
    Ok(root)
}

fn status_with(engine: &Engine, root: Unknown<'_>) -> CoreResult<IndexStatus> {
    Ok(engine.retrieval.status(&root_arg(root)?)?.into())
}

fn prepare_with<'env>(
    env: &'env Env,
    engine: Arc<Engine>,
    root: Unknown<'_>,
) -> napi::Result<PromiseRaw<'env, IndexStatus>> {
    match root_arg(root) {
        Ok(root) => bridge::spawn(
            env,
            move || {
                engine.retrieval.prepare(&root)?;
                engine.retrieval.status(&root)
            },
            |_, s| Ok(s.into()),
        ),
        Err(e) => bridge::reject(env, e),
    }
}

/// Ranked snippets of `request.rootPath` for `request.prompt` (Context Retrieval Contract v1).
/// The first call for a root indexes it (concurrent first calls share one build); later calls
/// see changed, added and deleted files. `[]` when nothing matches. Rejects with
/// `invalid_request` for a malformed request or a root that is not an absolute path to a
/// directory.
#[napi(
    ts_args_type = "request: ContextRetrievalRequest",
    ts_return_type = "Promise<ContextSnippet[]>"
)]
pub fn retrieve<'env>(
    env: &'env Env,
    request: Unknown<'_>,
) -> napi::Result<PromiseRaw<'env, Vec<ContextSnippet>>> {
    retrieve_with(env, Engine::global(), request)
}

/// The state of `rootPath`'s index in the default engine, without waiting for a build:
/// poll it while a first `retrieve` or `prepareIndex` runs to show progress.
#[napi(catch_unwind, ts_args_type = "rootPath: string")]
pub fn index_status(env: &Env, root_path: Unknown<'_>) -> napi::Result<IndexStatus> {
    let engine = Engine::global();
    bridge::run_sync(env, || status_with(&engine, root_path))
}

/// Indexes `rootPath` in the default engine ahead of the first `retrieve` (or brings its index
/// up to date), resolving to the index status.
#[napi(
    ts_args_type = "rootPath: string",
    ts_return_type = "Promise<IndexStatus>"
)]
pub fn prepare_index<'env>(
    env: &'env Env,
    root_path: Unknown<'_>,
) -> napi::Result<PromiseRaw<'env, IndexStatus>> {
    prepare_with(env, Engine::global(), root_path)
}

#[napi]
impl ContextEngine {
    /// `retrieve` on this engine's own indexes.
    #[napi(
        ts_args_type = "request: ContextRetrievalRequest",
        ts_return_type = "Promise<ContextSnippet[]>"
    )]
    pub fn retrieve<'env>(
        &self,
        env: &'env Env,
        request: Unknown<'_>,
    ) -> napi::Result<PromiseRaw<'env, Vec<ContextSnippet>>> {
        retrieve_with(env, self.inner.clone(), request)
    }

    /// `indexStatus` on this engine.
    #[napi(catch_unwind, ts_args_type = "rootPath: string")]
    pub fn index_status(&self, env: &Env, root_path: Unknown<'_>) -> napi::Result<IndexStatus> {
        bridge::run_sync(env, || status_with(&self.inner, root_path))
    }

    /// `prepareIndex` on this engine.
    #[napi(
        ts_args_type = "rootPath: string",
        ts_return_type = "Promise<IndexStatus>"
    )]
    pub fn prepare_index<'env>(
        &self,
        env: &'env Env,
        root_path: Unknown<'_>,
    ) -> napi::Result<PromiseRaw<'env, IndexStatus>> {
        prepare_with(env, self.inner.clone(), root_path)
    }

    /// Drops this engine's index of `rootPath`; returns whether one was kept.
    #[napi(catch_unwind, ts_args_type = "rootPath: string")]
    pub fn evict(&self, env: &Env, root_path: Unknown<'_>) -> napi::Result<bool> {
        bridge::run_sync(env, || self.inner.retrieval.evict(&root_arg(root_path)?))
    }
}
