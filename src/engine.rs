//! The `ContextEngine` class: one engine's long-lived state (caches, indexes, clients), for
//! callers that want their own instead of the process-wide default behind the module-level
//! functions. An engine operation is exported twice, as a module-level function on the default
//! engine (`Engine::global()`) and as a `ContextEngine` method on the engine's own state, both
//! calling the same `*_on` definition in the capability's own file.

use std::sync::Arc;
use std::time::Duration;

use napi::Env;
use napi_derive::napi;

use super::args;
use super::bridge;
use context_engine_core::engine::{Engine, EngineOptions};
use context_engine_core::error::Result as CoreResult;

/// Longest `timeoutMs`: one day.
const MAX_TIMEOUT_MS: u64 = 24 * 3600 * 1000;

/// Options of `new ContextEngine()`. All optional; `null` means the same as absent.
#[napi(object, object_to_js = false)]
#[derive(Default)]
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
    /// Directories (absolute paths of existing directories, at most 1024) that every root and
    /// workspace argument of this engine's methods must lie in, after following symlinks;
    /// anything else rejects with `invalid_request`, reason `'outside_allowed_roots'`.
    /// Default: no restriction.
    pub allowed_roots: Option<Vec<String>>,
    /// Deadline of each async method call of this engine in milliseconds (1 to 86400000): the
    /// call rejects with `timeout` (reason `'deadline'`) when it runs longer, and its work
    /// stops. Default: none.
    pub timeout_ms: Option<f64>,
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

/// The core options from the JavaScript ones, merged over the core's defaults.
fn engine_options(parsed: ContextEngineOptions) -> CoreResult<EngineOptions> {
    let mut options = EngineOptions::default();
    if let Some(cache) = parsed.file_cache {
        options.file_cache = super::expand::cache_config(cache)?;
    }
    options.watch_workspaces = parsed.watch.unwrap_or(false);
    // A count of at least 1 and at most `max`, `default` when absent.
    let count = |value, name, default: usize, max| {
        args::opt_whole_number(value, name, default as u64, 1, max).map(|n| n as usize)
    };
    let retrieval = &mut options.retrieval;
    retrieval.max_roots = count(
        parsed.max_roots,
        "options.maxRoots",
        retrieval.max_roots,
        1024,
    )?;
    retrieval.max_files = count(
        parsed.max_files_per_root,
        "options.maxFilesPerRoot",
        retrieval.max_files,
        10_000_000,
    )?;
    if let Some(dir) = parsed.index_cache_dir {
        options.retrieval.cache_dir = Some(cache_dir(&dir)?);
    }
    if let Some(roots) = parsed.allowed_roots {
        options.set_allowed_roots(&roots)?;
    }
    if parsed.timeout_ms.is_some() {
        let ms =
            args::opt_whole_number(parsed.timeout_ms, "options.timeoutMs", 0, 1, MAX_TIMEOUT_MS)?;
        options.timeout = Some(Duration::from_millis(ms));
    }
    if parsed.max_index_bytes.is_some() {
        let bytes = args::opt_whole_number(
            parsed.max_index_bytes,
            "options.maxIndexBytes",
            0,
            1,
            9_007_199_254_740_992,
        )?;
        options.retrieval.max_index_bytes = Some(usize::try_from(bytes).unwrap_or(usize::MAX));
    }
    Ok(options)
}

/// Checks an `indexCacheDir`: a non-empty absolute path of at most 4096 bytes without NUL.
/// The message never echoes the path.
pub(crate) fn cache_dir(dir: &str) -> CoreResult<std::path::PathBuf> {
    let path = std::path::Path::new(dir);
    if dir.is_empty() || dir.len() > 4096 || dir.contains('\0') || !path.is_absolute() {
        return Err(args::expected(
            "options.indexCacheDir",
            "an absolute directory path",
        ));
    }
    Ok(path.to_path_buf())
}

#[napi]
impl ContextEngine {
    /// A new engine. Throws `invalid_request` for malformed options (and when called without
    /// `new`).
    #[napi(constructor)]
    pub fn new(env: Env, options: Option<ContextEngineOptions>) -> napi::Result<Self> {
        bridge::run_sync(&env, || {
            let options = engine_options(options.unwrap_or_default())?;
            Ok(ContextEngine {
                inner: Arc::new(Engine::new(options)),
            })
        })
    }
}
