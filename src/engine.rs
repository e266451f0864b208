//! The `ContextEngine` class: one engine's long-lived state (caches, indexes, clients), for
//! callers that want their own instead of the process-wide default behind the module-level
//! functions. Each capability adds its methods in its own `#[napi] impl ContextEngine` block,
//! in its own file.

use std::sync::Arc;

use napi::bindgen_prelude::*;
use napi::Env;
use napi_derive::napi;

use super::{args, bridge};
use context_engine_core::engine::{Engine, EngineOptions};
use context_engine_core::error::{Error as CoreError, Result as CoreResult};

/// Options of `new ContextEngine()`. All optional.
#[napi(object, object_to_js = false)]
pub struct ContextEngineOptions {
    /// Limits of the file cache used by `expandChunk`. Defaults: see `FileCacheOptions`.
    pub file_cache: Option<super::expand::FileCacheOptions>,
    /// Watch every workspace this engine expands in and drop cached files as soon as they
    /// change (at most 16 workspaces). Default `false`: the cache revalidates every hit anyway.
    pub watch: Option<bool>,
    /// Repository roots whose retrieval indexes are kept in memory; the least recently used is
    /// dropped beyond this. Default 8, from 1 to 1024.
    pub max_roots: Option<f64>,
    /// Files indexed per root at most (the first ones in path order). Default 200000, from 1
    /// to 10000000.
    pub max_files_per_root: Option<f64>,
    /// Absolute path of a directory where each root's retrieval index is saved (one file per
    /// root, created as needed) and loaded from when this engine first sees the root, so a
    /// restart re-reads only files changed since. Default: none (indexes live in memory only).
    pub index_cache_dir: Option<String>,
    /// Most bytes all retrieval indexes of this engine may hold together (their own estimate,
    /// `indexStatus().bytes`); the least recently used roots are dropped beyond it, never the
    /// one in use. Default: no budget (only `maxRoots`). From 1 to 2^53.
    pub max_index_bytes: Option<f64>,
}

/// An engine with its own state (file cache, ...). The module-level functions use one
/// process-wide default engine; create a `ContextEngine` to isolate state or to change limits.
#[napi]
pub struct ContextEngine {
    pub(crate) inner: Arc<Engine>,
}

fn parse_options(value: Option<Unknown<'_>>) -> CoreResult<EngineOptions> {
    let mut options = EngineOptions::default();
    let Some(object) = args::opt_object(value, "options")? else {
        return Ok(options);
    };
    let parsed = unsafe { ContextEngineOptions::from_napi_value(object.value().env, object.raw()) }
        .map_err(|e| CoreError::invalid_request(format!("options are invalid: {}", e.reason)))?;
    if let Some(cache) = parsed.file_cache {
        options.file_cache = super::expand::cache_config(cache)?;
    }
    options.watch_workspaces = parsed.watch.unwrap_or(false);
    let whole = |value: Option<f64>, name: &str, default: usize, max: f64| match value {
        None => Ok(default),
        Some(n) if n.is_finite() && n.fract() == 0.0 && (1.0..=max).contains(&n) => Ok(n as usize),
        Some(_) => Err(CoreError::invalid_request(format!(
            "{name} must be a whole number from 1 to {max}"
        ))),
    };
    options.retrieval.max_roots = whole(
        parsed.max_roots,
        "maxRoots",
        options.retrieval.max_roots,
        1024.0,
    )?;
    options.retrieval.max_files = whole(
        parsed.max_files_per_root,
        "maxFilesPerRoot",
        options.retrieval.max_files,
        10_000_000.0,
    )?;
    if let Some(dir) = parsed.index_cache_dir {
        options.retrieval.cache_dir = Some(cache_dir(&dir)?);
    }
    if parsed.max_index_bytes.is_some() {
        options.retrieval.max_index_bytes = Some(whole(
            parsed.max_index_bytes,
            "maxIndexBytes",
            0,
            9_007_199_254_740_992.0,
        )?);
    }
    Ok(options)
}

/// Checks an `indexCacheDir`: a non-empty absolute path of at most 4096 bytes without NUL.
/// The message never echoes the path.
pub(crate) fn cache_dir(dir: &str) -> CoreResult<std::path::PathBuf> {
    let path = std::path::Path::new(dir);
    if dir.is_empty() || dir.len() > 4096 || dir.contains('\0') || !path.is_absolute() {
        return Err(CoreError::invalid_request(
            "indexCacheDir must be an absolute directory path",
        ));
    }
    Ok(path.to_path_buf())
}

#[napi]
impl ContextEngine {
    /// A new engine. Throws `invalid_request` for malformed options.
    #[napi(constructor, ts_args_type = "options?: ContextEngineOptions")]
    pub fn new(env: Env, options: Option<Unknown<'_>>) -> napi::Result<Self> {
        let parsed = parse_options(options);
        bridge::run_sync(&env, || {
            Ok(ContextEngine {
                inner: Arc::new(Engine::new(parsed?)),
            })
        })
    }
}
