// How every export calls the binding: arguments read once into plain values (a throwing getter
// or Proxy trap becomes `invalid_request` here, so the binding only ever sees plain data),
// errors shaped in one place (`fromBinding`), and the per-call controls of async exports: the
// caller's `AbortSignal` and the engine's deadline, raced here and passed on to the binding as
// a cancellation token that stops the engine's work.

import { abortError, codedError, expected, fromBinding, unreadable } from './errors.js'
import { native } from './native.js'

/** Nesting read into plain values; deeper values are passed on as they are. */
const MAX_DEPTH = 8
/** Longest array copied; a longer one is passed on for the binding to refuse by its length. */
const MAX_COPIED_ITEMS = 1 << 22

/** Whether `value` is an object literal (or `Object.create(null)`), which is read into a copy. */
function isRecord(value: object): boolean {
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/**
 * `value` with every plain object and array in it read once into a fresh copy: own enumerable
 * string keys only (an inherited key, such as one added to `Object.prototype`, is never read),
 * each getter run once. Other objects (an `AbortSignal`, a `Date`, a class instance) are passed
 * on as they are. Throws `invalid_request` naming `name` when a getter or a Proxy trap throws.
 */
export function plain(value: unknown, name: string, depth = 0): unknown {
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return value
  try {
    if (Array.isArray(value)) {
      const length = value.length
      if (length > MAX_COPIED_ITEMS) return value
      const copy: unknown[] = new Array(length)
      for (let i = 0; i < length; i++) copy[i] = plain(value[i], name, depth + 1)
      return copy
    }
    if (!isRecord(value)) return value
    const copy: Record<string, unknown> = {}
    for (const key of Object.keys(value)) {
      copy[key] = plain((value as Record<string, unknown>)[key], name, depth + 1)
    }
    return copy
  } catch (error) {
    if (typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'invalid_request') {
      throw error
    }
    throw unreadable(name)
  }
}

/** The names arguments have in messages, by position (the binding names them the same way). */
function argName(i: number): string {
  return `argument ${i + 1}`
}

/** The arguments as plain values (see `plain`). */
function plainArgs(args: readonly unknown[]): unknown[] {
  return args.map((a, i) => plain(a, argName(i)))
}

/** A sync export: plain arguments in, errors shaped by `fromBinding`. */
export function callSync<T>(f: (...args: never[]) => T, self: unknown, args: readonly unknown[]): T {
  try {
    return Reflect.apply(f, self, plainArgs(args)) as T
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
    argv = plainArgs(args)
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
  argv[optionsAt] = { ...(typeof options === 'object' && options !== null ? options : {}), signal: token }
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
