//! Diagnostic exports that prove the error model end to end: every contract code, from a sync
//! and from an async export, and a panic from each. They do no work and touch no state; the
//! TypeScript tests use them because real exports cannot be made to fail with every category
//! on demand (an `unauthorized` needs a server, a `timeout` a slow one).

use napi::bindgen_prelude::*;
use napi::Env;
use napi_derive::napi;

use super::engine::exports;
use super::{args, bridge};
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

fn raise(code: CoreResult<String>) -> CoreResult<()> {
    let kind = parse_kind(&code?)?;
    Err(CoreError::new(kind, format!("diagnostic {kind} error")))
}

exports! {
    #[doc = " Internal diagnostic: throws an `Error` whose `code` is `code` (one of the five contract"]
    #[doc = " codes), or panics inside the engine when `code` is `\"panic\"` (which must surface as"]
    #[doc = " `internal`). For tests of the error model only."]
    #[napi(
        js_name = "__raiseErrorSync",
        catch_unwind,
        ts_args_type = "code: string"
    )]
    fn raise_error_sync(env, code) -> () {
        let code = args::string(code, "code");
        bridge::run_sync(env, || raise(code))
    }
}

exports! {
    #[doc = " Internal diagnostic: like `__raiseErrorSync`, but rejects a promise. With `viaFuture` the"]
    #[doc = " failure (or panic) happens inside a tokio future rather than on the blocking pool, the path"]
    #[doc = " the network and git exports take."]
    #[napi(
        js_name = "__raiseErrorAsync",
        ts_args_type = "code: string, viaFuture?: boolean",
        ts_return_type = "Promise<void>"
    )]
    async fn raise_error_async(env, code; via_future) -> () {
        let code = args::string(code, "code");
        let via_future = match args::present(via_future).map(|v| args::boolean(v, "viaFuture")) {
            Some(Err(e)) => return bridge::reject(env, e),
            Some(Ok(b)) => b,
            None => false,
        };
        if via_future {
            let work = async move {
                tokio::task::yield_now().await;
                raise(code)
            };
            bridge::spawn_async_call(env, bridge::Call::none(), move |_| work, |_, v| Ok(v))
        } else {
            bridge::spawn(env, move || raise(code), |_, v| Ok(v))
        }
    }
}
