//! Diagnostic exports that prove the error model end to end: every contract code, from a sync
//! and from an async export, and a panic from each. They do no work and touch no state; the
//! TypeScript tests use them because real exports cannot be made to fail with every category
//! on demand (an `unauthorized` needs a server, a `timeout` a slow one).

use napi::bindgen_prelude::*;
use napi::Env;
use napi_derive::napi;

use super::bridge;
use context_engine_core::error::{Error as CoreError, ErrorKind, Result as CoreResult};

fn parse_kind(code: &str) -> CoreResult<ErrorKind> {
    Ok(match code {
        "invalid_request" => ErrorKind::InvalidRequest,
        "unauthorized" => ErrorKind::Unauthorized,
        "unavailable" => ErrorKind::Unavailable,
        "timeout" => ErrorKind::Timeout,
        "internal" => ErrorKind::Internal,
        "panic" => panic!("diagnostic panic requested"),
        _ => {
            return Err(CoreError::invalid_request(
                "code must be one of invalid_request, unauthorized, unavailable, timeout, internal, panic",
            ))
        }
    })
}

fn raise(code: &str) -> CoreResult<()> {
    let kind = parse_kind(code)?;
    Err(CoreError::new(kind, format!("diagnostic {kind} error")))
}

/// Internal diagnostic: throws an `Error` whose `code` is `code` (one of the five contract
/// codes), or panics inside the engine when `code` is `"panic"` (which must surface as
/// `internal`). For tests of the error model only.
#[napi(js_name = "__raiseErrorSync", catch_unwind)]
pub fn raise_error_sync(env: &Env, code: String) -> napi::Result<()> {
    bridge::run_sync(env, || raise(&code))
}

/// Internal diagnostic: like `__raiseErrorSync`, but rejects a promise. With `viaFuture` the
/// failure (or panic) happens inside a tokio future rather than on the blocking pool, the path
/// the network and git exports take.
#[napi(js_name = "__raiseErrorAsync", ts_return_type = "Promise<void>")]
pub fn raise_error_async(
    env: &Env,
    code: String,
    via_future: Option<bool>,
) -> napi::Result<PromiseRaw<'_, ()>> {
    if via_future.unwrap_or(false) {
        let work = async move {
            tokio::task::yield_now().await;
            raise(&code)
        };
        bridge::spawn_async_call(env, bridge::Call::none(), move |_| work, |_, v| Ok(v))
    } else {
        bridge::spawn(env, move || raise(&code), |_, v| Ok(v))
    }
}
