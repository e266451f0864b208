//! The `ContextEngine` class: an engine with its own long-lived state (indexes, caches).
//! Capabilities add their methods in their own files (`#[napi] impl ContextEngine`).

use std::sync::Arc;

use napi::bindgen_prelude::*;
use napi::Env;
use napi_derive::napi;

use super::{args, bridge};
use crate::engine::{Engine, EngineOptions};
use crate::error::Result as CoreResult;

/// Options of a new `ContextEngine`. All optional.
// Declares the TypeScript type; the value is read field by field with `args` so that every
// bad input is an `invalid_request`.
#[allow(dead_code)]
#[napi(object, object_to_js = false)]
pub struct ContextEngineOptions {
    /// Repository roots whose retrieval indexes are kept in memory; the least recently used is
    /// dropped beyond this. Default 8, from 1 to 1024.
    pub max_roots: Option<f64>,
    /// Files indexed per root at most (the first ones in path order). Default 200000, from 1
    /// to 10000000.
    pub max_files_per_root: Option<f64>,
}

/// An engine with its own state: each instance keeps its own indexes. The module-level
/// functions share one default engine.
#[napi]
pub struct ContextEngine {
    pub(crate) inner: Arc<Engine>,
}

fn engine_options(options: Option<Unknown<'_>>) -> CoreResult<EngineOptions> {
    let mut out = EngineOptions::default();
    let Some(object) = args::opt_object(options, "options")? else {
        return Ok(out);
    };
    out.retrieval.max_roots = args::opt_whole(
        args::field(&object, "maxRoots")?,
        "maxRoots",
        out.retrieval.max_roots as u64,
        1,
        1024,
    )? as usize;
    out.retrieval.max_files = args::opt_whole(
        args::field(&object, "maxFilesPerRoot")?,
        "maxFilesPerRoot",
        out.retrieval.max_files as u64,
        1,
        10_000_000,
    )? as usize;
    Ok(out)
}

#[napi]
impl ContextEngine {
    /// A new engine. Throws `invalid_request` for bad options.
    #[napi(constructor, ts_args_type = "options?: ContextEngineOptions")]
    pub fn new(env: Env, options: Option<Unknown<'_>>) -> napi::Result<Self> {
        let options = engine_options(options);
        bridge::run_sync(&env, || {
            Ok(ContextEngine {
                inner: Arc::new(Engine::new(options?)),
            })
        })
    }
}
