//! How results and errors cross into JavaScript: one conversion for errors, one runner for sync
//! exports, one for async exports, and the per-call controls of async exports (an
//! `AbortSignal` and the engine's deadline) in [`Call`].
//!
//! Cancellation works the way Node's own APIs do: `signal` is read from the export's last
//! options argument; an already-aborted signal rejects at once, an abort during the call
//! rejects at once (an `Error` whose `name` is `AbortError` and `code` `ABORT_ERR`, `cause` the
//! signal's reason) and sets the call's [`Cancel`], so the core stops its loops (blocking work)
//! or the future is dropped (network, git). The JavaScript side is one small function,
//! [`RACE_JS`], shared by every export.

use std::time::{Duration, Instant};

use napi::bindgen_prelude::*;
use napi::{sys, Env, JsValue, ValueType};

use super::args::{self, Fields};
use context_engine_core::cancel::{deadline_error, Cancel};
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
/// becomes a thrown `Error` with its `code`. Any JavaScript exception left pending by argument
/// reading is cleared first, so the thrown error is always ours.
pub(crate) fn run_sync<T>(env: &Env, work: impl FnOnce() -> CoreResult<T>) -> napi::Result<T> {
    catch_panic(work).map_err(|e| {
        args::clear_exception(env.raw());
        to_js_error(env, &e)
    })
}

/// The per-call controls of an async export: the caller's `AbortSignal` (from the `signal`
/// field of its last options argument) and a deadline (the engine's `timeoutMs`).
pub(crate) struct Call<'env> {
    signal: Option<Object<'env>>,
    cancel: Cancel,
    timeout: Option<Duration>,
}

impl<'env> Call<'env> {
    /// No signal, no deadline.
    pub(crate) fn none() -> Call<'env> {
        Call {
            signal: None,
            cancel: Cancel::new(),
            timeout: None,
        }
    }

    /// Reads `signal` from an options object (absent, `undefined` and `null` mean none). It
    /// must be an `AbortSignal`; one already aborted sets the call's [`Cancel`] at once.
    pub(crate) fn from_options(options: Option<&Fields<'env>>) -> CoreResult<Call<'env>> {
        let mut call = Call::none();
        let Some(value) = options.map(|o| o.get("signal")).transpose()?.flatten() else {
            return Ok(call);
        };
        let name = options.map_or_else(|| "signal".to_owned(), |o| o.name("signal"));
        let not_signal = || args::expected(&name, "an AbortSignal");
        if args::type_of(&value) != ValueType::Object {
            return Err(not_signal());
        }
        let signal = args::object(value, &name).map_err(|_| not_signal())?;
        let aborted = args::field(&signal, "aborted").map_err(|_| not_signal())?;
        let aborted = match aborted {
            Some(v) => args::boolean(v, &name).map_err(|_| not_signal())?,
            None => return Err(not_signal()),
        };
        match args::field(&signal, "addEventListener").map_err(|_| not_signal())? {
            Some(f) if args::type_of(&f) == ValueType::Function => {}
            _ => return Err(not_signal()),
        }
        if aborted {
            call.cancel.cancel();
        }
        call.signal = Some(signal);
        Ok(call)
    }

    /// Adds a deadline `timeout` from now (none when `None`).
    pub(crate) fn with_timeout(mut self, timeout: Option<Duration>) -> Call<'env> {
        self.timeout = timeout;
        self
    }

    /// The call's cancellation flag, with its deadline.
    fn token(&self) -> Cancel {
        self.cancel.clone().with_timeout(self.timeout)
    }
}

/// Sleeps until `deadline`, or forever without one.
async fn until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d.into()).await,
        None => std::future::pending::<()>().await,
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
/// loops; an abort or the deadline rejects at once and sets it.
pub(crate) fn spawn_call<'env, T, V>(
    env: &'env Env,
    call: Call<'env>,
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
/// process it owns is killed) when the call is aborted or its deadline passes, and the promise
/// rejects at once.
pub(crate) fn spawn_async_call<'env, T, V, F>(
    env: &'env Env,
    call: Call<'env>,
    work: impl FnOnce(Cancel) -> F,
    convert: impl FnOnce(&'env Env, T) -> napi::Result<V> + 'static,
) -> napi::Result<PromiseRaw<'env, V>>
where
    F: std::future::Future<Output = CoreResult<T>> + Send + 'static,
    T: Send + 'static,
    V: ToNapiValue,
{
    args::clear_exception(env.raw());
    let token = call.token();
    let work = work(token.clone());
    let deadline = token.deadline();
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
            () = until(deadline) => {
                token.cancel();
                Err(deadline_error())
            }
        };
        Ok::<_, napi::Error>(outcome)
    };
    let promise = env.spawn_future_with_callback(future, move |env, outcome| match outcome {
        Ok(value) => catch_panic_napi(|| convert(env, value)),
        Err(error) => Err(to_js_error(env, &error)),
    })?;
    match call.signal {
        None => Ok(promise),
        Some(signal) => race(env, promise, signal, call.cancel),
    }
}

/// The JavaScript side of cancellation, shared by every export: settles with `work` unless
/// `signal` aborts first, in which case it calls `cancel` and rejects with an `AbortError` as
/// Node's APIs do; the listener is removed when `work` settles.
const RACE_JS: &str = r"(function race(work, signal, cancel) {
  const abortError = () => {
    const e = new Error('The operation was aborted', { cause: signal.reason })
    e.name = 'AbortError'
    e.code = 'ABORT_ERR'
    return e
  }
  if (signal.aborted) {
    cancel()
    work.catch(() => {})
    return Promise.reject(abortError())
  }
  // One 'abort' listener per signal, shared by all calls in flight on it (a signal shared by
  // hundreds of calls must not trip Node's MaxListeners warning); removed with the last call.
  const KEY = Symbol.for('context-engine.abortRegistry')
  if (!globalThis[KEY]) Object.defineProperty(globalThis, KEY, { value: new WeakMap() })
  const registry = globalThis[KEY]
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      cancel()
      reject(abortError())
    }
    let entry = registry.get(signal)
    try {
      if (!entry) {
        const calls = new Set()
        const dispatch = () => {
          registry.delete(signal)
          for (const f of calls) f()
        }
        signal.addEventListener('abort', dispatch, { once: true })
        entry = { calls, dispatch }
        registry.set(signal, entry)
      }
    } catch {
      cancel()
      work.catch(() => {})
      const e = new Error('options.signal must be an AbortSignal')
      e.code = 'invalid_request'
      e.reason = 'invalid_argument'
      reject(e)
      return
    }
    entry.calls.add(onAbort)
    const done = () => {
      entry.calls.delete(onAbort)
      if (entry.calls.size === 0 && registry.get(signal) === entry) {
        registry.delete(signal)
        try { signal.removeEventListener('abort', entry.dispatch) } catch {}
      }
    }
    work.then(
      (value) => { done(); resolve(value) },
      (error) => { done(); reject(error) },
    )
  })
})";

fn race<'env, V>(
    env: &'env Env,
    work: PromiseRaw<'env, V>,
    signal: Object<'env>,
    cancel: Cancel,
) -> napi::Result<PromiseRaw<'env, V>> {
    let raw_env = env.raw();
    let on_cancel = cancel.clone();
    let result = (|| -> napi::Result<sys::napi_value> {
        let helper: Unknown<'_> = env.run_script(RACE_JS)?;
        let cancel_fn: Function<'_, (), ()> =
            env.create_function_from_closure("cancel", move |_| {
                on_cancel.cancel();
                Ok(())
            })?;
        let argv = [work.raw(), signal.raw(), cancel_fn.raw()];
        let mut undefined = std::ptr::null_mut();
        let mut out = std::ptr::null_mut();
        // SAFETY: `helper` is the function compiled above; the arguments are live values of
        // this env.
        unsafe {
            napi::check_status!(sys::napi_get_undefined(raw_env, &raw mut undefined))?;
            napi::check_status!(sys::napi_call_function(
                raw_env,
                undefined,
                helper.raw(),
                argv.len(),
                argv.as_ptr(),
                &raw mut out,
            ))?;
        }
        Ok(out)
    })();
    if let Ok(out) = result {
        Ok(PromiseRaw::new(raw_env, out))
    } else {
        // The helper could not run: the call cannot be aborted, so it is stopped now.
        args::clear_exception(raw_env);
        cancel.cancel();
        Err(to_js_error(
            env,
            &CoreError::internal("internal error: the call could not be set up"),
        ))
    }
}

fn panicked() -> CoreError {
    CoreError::internal("internal error: the operation failed unexpectedly")
}

/// Rejects at once with `error` (for arguments that failed validation in an async export).
/// Never throws: a JavaScript exception left pending by argument reading is cleared first.
pub(crate) fn reject<V: ToNapiValue>(
    env: &Env,
    error: CoreError,
) -> napi::Result<PromiseRaw<'_, V>> {
    args::clear_exception(env.raw());
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

/// The last options argument of an async export: its typed fields and the per-call controls
/// (`signal`). `undefined`/`null` give the defaults and no signal.
pub(crate) fn options_call<'env, T: args::FromFields>(
    value: Option<Unknown<'env>>,
    name: &str,
) -> CoreResult<(T, Call<'env>)> {
    match Fields::of_opt(value, name)? {
        Some(fields) => Ok((T::from_fields(&fields)?, Call::from_options(Some(&fields))?)),
        None => Ok((T::default(), Call::none())),
    }
}

/// Options that are only the per-call controls (`{ signal }`), for exports with no other
/// option.
#[derive(Default)]
pub(crate) struct NoOptions;

impl args::FromFields for NoOptions {
    fn from_fields(_: &Fields<'_>) -> CoreResult<Self> {
        Ok(NoOptions)
    }
}

/// The per-call controls from an optional `{ signal }` argument.
pub(crate) fn call_options<'env>(
    value: Option<Unknown<'env>>,
    name: &str,
) -> CoreResult<Call<'env>> {
    options_call::<NoOptions>(value, name).map(|(_, call)| call)
}
