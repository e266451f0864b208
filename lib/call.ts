// How every export calls the binding: arguments checked against their declaration and read
// once (a throwing getter or Proxy trap becomes `invalid_request` here, so the binding only ever
// sees plain data of the types it declares), errors shaped in one place (`fromBinding`), and the per-call controls of async exports: the
// caller's `AbortSignal` and the engine's deadline, raced here and passed on to the binding as
// a cancellation token that stops the engine's work.

import { abortError, codedError, expected, fromBinding, isEngineError, unreadable } from './errors.js'
import { native } from './native.js'
import type { Check } from './schema.js'

/** An export's declared arguments (lib/schema.ts): name and check of each, in order. */
export type ArgChecks = ReadonlyArray<readonly [string, Check<unknown>]>

/**
 * The arguments to pass on: each checked by its declared check (lib/args.ts), which reads it
 * once and rebuilds it with only the fields of its type. Anything a check did not expect to
 * throw (a revoked Proxy asked whether it is an array) is `{name} could not be read`. Without a
 * declaration (the test addon's diagnostic exports) the arguments go to the binding as they
 * are, and napi's own conversion errors reach `fromBinding`.
 */
export function readArgs(args: readonly unknown[], checks: ArgChecks | undefined): unknown[] {
  if (checks === undefined) return [...args]
  return checks.map(([name, c], i) => {
    try {
      return c(args[i], name)
    } catch (error) {
      throw isEngineError(error) ? error : unreadable(name)
    }
  })
}

/** A sync export: checked arguments in, errors shaped by `fromBinding`. */
export function callSync<T>(
  f: (...args: never[]) => T,
  self: unknown,
  args: readonly unknown[],
  checks?: ArgChecks,
): T {
  try {
    return Reflect.apply(f, self, readArgs(args, checks)) as T
  } catch (error) {
    throw fromBinding(error)
  }
}

/** The controls of one async call: which argument holds the options, and the deadline. */
export interface Controls {
  /** Position of the options argument whose `signal` is the caller's `AbortSignal`. */
  optionsAt?: number
  /** The engine's `timeoutMs`. */
  timeoutMs?: number
  /** The export's declared arguments. */
  checks?: ArgChecks
}

/** The caller's `AbortSignal` from an options object, checked; `undefined` when absent. */
function signalOf(options: unknown): AbortSignal | undefined {
  if (options === null || typeof options !== 'object') return undefined
  const signal = (options as { signal?: unknown }).signal
  if (signal === undefined || signal === null) return undefined
  const notSignal = () => expected('options.signal', 'an AbortSignal')
  if (typeof signal !== 'object') throw notSignal()
  try {
    const s = signal as AbortSignal
    if (typeof s.aborted !== 'boolean' || typeof s.addEventListener !== 'function') throw notSignal()
  } catch {
    throw notSignal()
  }
  return signal as AbortSignal
}

/**
 * An async export: never throws (a bad argument rejects), plain arguments in, errors shaped by
 * `fromBinding`. With a signal in the options argument or a deadline, the call gets a
 * cancellation token in place of the signal and rejects at once when either fires (an
 * `AbortError`, or `timeout` with reason `deadline`), cancelling the engine's work.
 */
export function callAsync<T>(
  f: (...args: never[]) => Promise<T>,
  self: unknown,
  args: readonly unknown[],
  controls: Controls = {},
): Promise<T> {
  let argv: unknown[]
  let signal: AbortSignal | undefined
  try {
    argv = readArgs(args, controls.checks)
    if (controls.optionsAt !== undefined) signal = signalOf(argv[controls.optionsAt])
  } catch (error) {
    return Promise.reject(fromBinding(error))
  }
  const { optionsAt, timeoutMs } = controls
  if (optionsAt === undefined || (signal === undefined && timeoutMs === undefined)) {
    return start(f, self, argv)
  }
  const token = native.cancelToken()
  const options = argv[optionsAt]
  // Without a prototype, so the binding never reads an inherited key as an option.
  argv[optionsAt] = Object.assign(Object.create(null), typeof options === 'object' ? options : null, { signal: token })
  if (signal?.aborted) {
    native.cancelCall(token)
    return Promise.reject(abortError(signal))
  }
  return race(start(f, self, argv), token, signal, timeoutMs)
}

function start<T>(f: (...args: never[]) => Promise<T>, self: unknown, argv: unknown[]): Promise<T> {
  try {
    return (Reflect.apply(f, self, argv) as Promise<T>).catch((error: unknown) => {
      throw fromBinding(error)
    })
  } catch (error) {
    return Promise.reject(fromBinding(error))
  }
}

/** What runs when a signal aborts: every call in flight on it. */
interface Listeners {
  calls: Set<() => void>
  dispatch: () => void
}

/**
 * One 'abort' listener per signal, shared by all calls in flight on it (a signal shared by
 * hundreds of calls must not trip Node's MaxListeners warning); removed with the last call.
 */
const listeners = new WeakMap<AbortSignal, Listeners>()

function listen(signal: AbortSignal, onAbort: () => void): () => void {
  let entry = listeners.get(signal)
  if (entry === undefined) {
    const calls = new Set<() => void>()
    const dispatch = () => {
      listeners.delete(signal)
      for (const f of calls) f()
    }
    signal.addEventListener('abort', dispatch, { once: true })
    entry = { calls, dispatch }
    listeners.set(signal, entry)
  }
  const mine = entry
  mine.calls.add(onAbort)
  return () => {
    mine.calls.delete(onAbort)
    if (mine.calls.size === 0 && listeners.get(signal) === mine) {
      listeners.delete(signal)
      signal.removeEventListener('abort', mine.dispatch)
    }
  }
}

/** The error of a call that ran past the engine's deadline. */
function deadlineError(): Error {
  return codedError('timeout', "the operation did not finish within the engine's timeoutMs", 'deadline')
}

/** Settles with `work` unless the signal aborts or the deadline passes first. */
function race<T>(
  work: Promise<T>,
  token: ReturnType<typeof native.cancelToken>,
  signal?: AbortSignal,
  timeoutMs?: number,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let stopListening: (() => void) | undefined
    let timer: NodeJS.Timeout | undefined
    const done = () => {
      stopListening?.()
      if (timer !== undefined) clearTimeout(timer)
    }
    const stop = (error: Error) => {
      done()
      native.cancelCall(token)
      work.catch(() => {})
      reject(error)
    }
    if (signal !== undefined) {
      try {
        stopListening = listen(signal, () => stop(abortError(signal)))
      } catch {
        stop(expected('options.signal', 'an AbortSignal'))
        return
      }
    }
    if (timeoutMs !== undefined) timer = setTimeout(() => stop(deadlineError()), timeoutMs)
    work.then(
      (value) => {
        done()
        resolve(value)
      },
      (error: unknown) => {
        done()
        reject(error)
      },
    )
  })
}
