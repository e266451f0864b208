//! How results and errors cross into JavaScript: one conversion for errors, one runner for sync
//! exports and one for async exports.

use napi::bindgen_prelude::*;
use napi::{Env, JsValue};

use context_engine_core::error::{catch_panic, Error as CoreError, Result as CoreResult};

/// Builds the JavaScript `Error` for a core error: `message` is the core's user-safe message,
/// `code` the contract category. Returned as a `napi::Error` that holds a reference to that
/// exact object, so throwing or rejecting with it hands the object itself to JavaScript.
pub(crate) fn to_js_error(env: &Env, error: &CoreError) -> napi::Error {
    let build = || -> napi::Result<napi::Error> {
        let mut object = env.create_error(napi::Error::new(
            Status::GenericFailure,
            error.message().to_owned(),
        ))?;
        object.set("code", error.kind().as_str())?;
        Ok(napi::Error::from(object.to_unknown()))
    };
    build().unwrap_or_else(|e| e)
}

/// Runs a sync export's core work on the JS thread: a panic becomes `internal`, a core error
/// becomes a thrown `Error` with its `code`.
pub(crate) fn run_sync<T>(env: &Env, work: impl FnOnce() -> CoreResult<T>) -> napi::Result<T> {
    catch_panic(work).map_err(|e| to_js_error(env, &e))
}

/// Runs an async export whose core work is CPU-bound or blocking: `work` runs on tokio's
/// blocking pool (never on the JS thread), then `convert` turns its value into JavaScript on the
/// JS thread. A panic in `work` becomes `internal`.
pub(crate) fn spawn<'env, T, V>(
    env: &'env Env,
    work: impl FnOnce() -> CoreResult<T> + Send + 'static,
    convert: impl FnOnce(&'env Env, T) -> napi::Result<V> + 'static,
) -> napi::Result<PromiseRaw<'env, V>>
where
    T: Send + 'static,
    V: ToNapiValue,
{
    spawn_async(
        env,
        async move {
            match tokio::task::spawn_blocking(move || catch_panic(work)).await {
                Ok(result) => result,
                Err(join) => Err(panicked().with_source(join)),
            }
        },
        convert,
    )
}

/// Runs an async export whose core work is itself a future (HTTP, `tokio::process`): `work`
/// runs on the tokio runtime, then `convert` turns its value into JavaScript on the JS thread.
/// Core errors reject with `to_js_error`; a panic while polling `work` becomes `internal`.
pub(crate) fn spawn_async<'env, T, V, F>(
    env: &'env Env,
    work: F,
    convert: impl FnOnce(&'env Env, T) -> napi::Result<V> + 'static,
) -> napi::Result<PromiseRaw<'env, V>>
where
    F: std::future::Future<Output = CoreResult<T>> + Send + 'static,
    T: Send + 'static,
    V: ToNapiValue,
{
    let future = async move {
        // A separate task, so that a panic inside `work` is caught by tokio as a JoinError
        // instead of unwinding through napi's promise machinery.
        let outcome = match tokio::spawn(work).await {
            Ok(result) => result,
            Err(join) => Err(panicked().with_source(join)),
        };
        Ok::<_, napi::Error>(outcome)
    };
    env.spawn_future_with_callback(future, move |env, outcome| match outcome {
        Ok(value) => catch_panic_napi(|| convert(env, value)),
        Err(error) => Err(to_js_error(env, &error)),
    })
}

fn panicked() -> CoreError {
    CoreError::internal("internal error: the operation failed unexpectedly")
}

/// Rejects at once with `error` (for arguments that failed validation in an async export).
pub(crate) fn reject<'env, V: ToNapiValue>(
    env: &'env Env,
    error: CoreError,
) -> napi::Result<PromiseRaw<'env, V>> {
    spawn(
        env,
        move || Err::<(), _>(error),
        |_, ()| {
            Err(napi::Error::from_reason(
                "unreachable: a rejected call has no value",
            ))
        },
    )
}

fn catch_panic_napi<V>(f: impl FnOnce() -> napi::Result<V>) -> napi::Result<V> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|_| {
        Err(napi::Error::new(
            Status::GenericFailure,
            "internal error: the operation failed unexpectedly",
        ))
    })
}
