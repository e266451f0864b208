//! How results and errors cross into JavaScript: one conversion for errors, one runner for sync
//! exports, one for async exports, and the per-call controls of async exports in [`Call`].
//!
//! Cancellation: the package entry (`lib/index.ts`) races each call with the caller's
//! `AbortSignal` and the engine's deadline, and on either cancels the call's token,
//! which it passes as the `signal` field of the export's last options argument. The token sets
//! the call's [`Cancel`], so the core stops its loops (blocking work) or the future is dropped
//! (network, git).

use std::time::Duration;

use napi::bindgen_prelude::*;
use napi::{sys, Env, ValueType};
use napi_derive::napi;

use context_engine_core::cancel::Cancel;
use context_engine_core::error::{catch_panic, Error as CoreError, Result as CoreResult};

/// Builds the JavaScript `Error` for a core error: `message` is the core's user-safe message,
/// `code` the contract category, `reason` the core's sub-case when it set one. Returned as a
/// `napi::Error` that holds a reference to that exact object, so throwing or rejecting with it
/// hands the object itself to JavaScript.
pub(crate) fn to_js_error(env: &Env, error: &CoreError) -> napi::Error {
    let build = || -> napi::Result<napi::Error> {
        let mut object = env.create_error(napi::Error::new(
            Status::GenericFailure,
            error.message().to_owned(),
        ))?;
        object.set("code", error.kind().as_str())?;
        if let Some(reason) = error.reason() {
            object.set("reason", reason)?;
        }
        Ok(napi::Error::from(object.to_unknown()))
    };
    build().unwrap_or_else(|e| e)
}

/// Runs a sync export's core work on the JS thread: a panic becomes `internal`, a core error
/// becomes a thrown `Error` with its `code`.
pub(crate) fn run_sync<T>(env: &Env, work: impl FnOnce() -> CoreResult<T>) -> napi::Result<T> {
    catch_panic(work).map_err(|e| to_js_error(env, &e))
}

/// A new cancellation token for one call, made by the package entry for each async call that
/// has an `AbortSignal` or a deadline, and passed as the `signal` field of the call's options.
#[napi(ts_return_type = "ExternalObject<'CancelToken'>")]
pub fn cancel_token() -> External<Cancel> {
    External::new(Cancel::new())
}

/// Cancels the call that holds `token`: the core stops its work, the call's promise rejects.
#[napi(ts_args_type = "token: ExternalObject<'CancelToken'>")]
pub fn cancel_call(token: &External<Cancel>) {
    token.cancel();
}

/// The options argument of an async export: its fields `T` and the call's controls, read from
/// its `signal` field (the token of [`cancel_token`] the package entry puts in place of the
/// caller's `AbortSignal`). Declare it with `#[napi(ts_arg_type = "options?: X & CallOptions")]`.
pub struct CallOptions<T> {
    pub(crate) options: T,
    pub(crate) call: Call,
}

impl<T> TypeName for CallOptions<T> {
    fn type_name() -> &'static str {
        "object"
    }

    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl<T> ValidateNapiValue for CallOptions<T> {}

impl<T: FromNapiValue> FromNapiValue for CallOptions<T> {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> napi::Result<Self> {
        // SAFETY: napi hands a conversion a live value of `env`; both conversions check its type.
        let (options, object) = unsafe {
            (
                T::from_napi_value(env, value)?,
                Object::from_napi_value(env, value)?,
            )
        };
        let mut call = Call::none();
        if let Some(token) = object.get::<&External<Cancel>>("signal")? {
            call.cancel = Cancel::clone(token);
        }
        Ok(CallOptions { options, call })
    }
}

impl<T: Default> CallOptions<T> {
    /// The fields and the controls of an optional options argument (defaults and no controls
    /// when absent).
    pub(crate) fn split(options: Option<CallOptions<T>>) -> (T, Call) {
        options.map_or_else(|| (T::default(), Call::none()), |o| (o.options, o.call))
    }
}

/// The per-call controls of an async export: the entry's token (from the `signal`
/// field of its last options argument) and a deadline (the engine's `timeoutMs`) that the core
/// checks in its loops.
pub struct Call {
    cancel: Cancel,
    timeout: Option<Duration>,
}

impl Call {
    /// No token, no deadline.
    pub(crate) fn none() -> Call {
        Call {
            cancel: Cancel::new(),
            timeout: None,
        }
    }

    /// Adds a deadline `timeout` from now (none when `None`), checked by the core's loops.
    pub(crate) fn with_timeout(mut self, timeout: Option<Duration>) -> Call {
        self.timeout = timeout;
        self
    }

    /// The call's cancellation flag, with its deadline.
    fn token(&self) -> Cancel {
        self.cancel.clone().with_timeout(self.timeout)
    }
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
    spawn_call(env, Call::none(), move |_| work(), convert)
}

/// [`spawn`] under a [`Call`]'s controls: `work` gets the call's [`Cancel`] to check in its
/// loops (its token and its deadline set it).
pub(crate) fn spawn_call<'env, T, V>(
    env: &'env Env,
    call: Call,
    work: impl FnOnce(&Cancel) -> CoreResult<T> + Send + 'static,
    convert: impl FnOnce(&'env Env, T) -> napi::Result<V> + 'static,
) -> napi::Result<PromiseRaw<'env, V>>
where
    T: Send + 'static,
    V: ToNapiValue,
{
    let token = call.token();
    let mine = token.clone();
    spawn_async_call(
        env,
        call,
        move |_| async move {
            match tokio::task::spawn_blocking(move || catch_panic(|| work(&mine))).await {
                Ok(result) => result,
                Err(join) => Err(panicked().with_source(join)),
            }
        },
        convert,
    )
    .inspect_err(|_| token.cancel())
}

/// Runs an async export whose core work is itself a future (HTTP, `tokio::process`): `work`
/// runs on the tokio runtime, then `convert` turns its value into JavaScript on the JS thread.
/// Core errors reject with `to_js_error`; a panic while polling `work` becomes `internal`.
/// Under the [`Call`]'s controls (pass [`Call::none`] for none), the future is dropped (a child
/// process it owns is killed) when the call's token is cancelled.
pub(crate) fn spawn_async_call<'env, T, V, F>(
    env: &'env Env,
    call: Call,
    work: impl FnOnce(Cancel) -> F,
    convert: impl FnOnce(&'env Env, T) -> napi::Result<V> + 'static,
) -> napi::Result<PromiseRaw<'env, V>>
where
    F: std::future::Future<Output = CoreResult<T>> + Send + 'static,
    T: Send + 'static,
    V: ToNapiValue,
{
    let token = call.token();
    let work = work(token.clone());
    let future = async move {
        // A separate task, so that a panic inside `work` is caught by tokio as a JoinError
        // instead of unwinding through napi's promise machinery.
        let task = tokio::spawn(work);
        let outcome = tokio::select! {
            joined = task => match joined {
                Ok(result) => result,
                Err(join) => Err(panicked().with_source(join)),
            },
            () = token.cancelled() => Err(CoreError::aborted()),
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
pub(crate) fn reject<V: ToNapiValue>(
    env: &Env,
    error: CoreError,
) -> napi::Result<PromiseRaw<'_, V>> {
    PromiseRaw::reject(env, to_js_error(env, &error))
}

/// [`spawn`] on arguments read beforehand: `parsed` holds them for `work`, or the error that
/// rejects at once (as [`reject`]).
pub(crate) fn spawn_parsed<'env, A, T, V>(
    env: &'env Env,
    parsed: CoreResult<A>,
    work: impl FnOnce(A) -> CoreResult<T> + Send + 'static,
    convert: impl FnOnce(&'env Env, T) -> napi::Result<V> + 'static,
) -> napi::Result<PromiseRaw<'env, V>>
where
    A: Send + 'static,
    T: Send + 'static,
    V: ToNapiValue,
{
    or_reject(env, parsed, |a| spawn(env, move || work(a), convert))
}

/// Starts an async export on arguments read beforehand: `start` gets them when `parsed` holds
/// them; otherwise the promise rejects at once with the error reading them gave (as
/// [`reject`]).
pub(crate) fn or_reject<'env, A, V: ToNapiValue>(
    env: &'env Env,
    parsed: CoreResult<A>,
    start: impl FnOnce(A) -> napi::Result<PromiseRaw<'env, V>>,
) -> napi::Result<PromiseRaw<'env, V>> {
    match parsed {
        Ok(a) => start(a),
        Err(e) => reject(env, e),
    }
}

/// Runs an export's result conversion, turning a panic into an `internal` error.
pub(crate) fn catch_panic_napi<V>(f: impl FnOnce() -> napi::Result<V>) -> napi::Result<V> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|_| {
        Err(napi::Error::new(
            Status::GenericFailure,
            "internal error: the operation failed unexpectedly",
        ))
    })
}

/// Options that are only the per-call controls (`{ signal }`), for exports with no other
/// option.
#[derive(Default)]
pub struct NoOptions;

impl FromNapiValue for NoOptions {
    unsafe fn from_napi_value(_: sys::napi_env, _: sys::napi_value) -> napi::Result<Self> {
        Ok(NoOptions)
    }
}
