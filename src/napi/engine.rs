//! The `ContextEngine` class: one engine's long-lived state (caches, indexes, clients), for
//! callers that want their own instead of the process-wide default behind the module-level
//! functions. Each capability adds its methods in its own `#[napi] impl ContextEngine` block,
//! in its own file.

use std::sync::Arc;

use napi::bindgen_prelude::*;
use napi::Env;
use napi_derive::napi;

use super::{args, bridge};
use crate::engine::{Engine, EngineOptions};
use crate::error::{Error as CoreError, Result as CoreResult};

/// Options of `new ContextEngine()`. All optional.
#[napi(object, object_to_js = false)]
pub struct ContextEngineOptions {
    /// Limits of the file cache used by `expandChunk`. Defaults: see `FileCacheOptions`.
    pub file_cache: Option<super::expand::FileCacheOptions>,
    /// Watch every workspace this engine expands in and drop cached files as soon as they
    /// change (at most 16 workspaces). Default `false`: the cache revalidates every hit anyway.
    pub watch: Option<bool>,
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
    Ok(options)
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
