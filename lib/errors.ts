// Errors of the package, shaped in one place: the contract codes, the engine's own errors (as
// the binding throws them), napi's argument errors mapped to `invalid_request`, and the
// `AbortError` of an aborted call.

/** The five codes every rejection and throw of this package carries. */
export type ErrorCode = 'invalid_request' | 'unauthorized' | 'unavailable' | 'timeout' | 'internal'

export const ERROR_CODES: ReadonlySet<string> = new Set<ErrorCode>([
  'invalid_request',
  'unauthorized',
  'unavailable',
  'timeout',
  'internal',
])

/** An error of this package: `code` one of the contract codes, `reason` a sub-case. */
export interface CodedError extends Error {
  code: ErrorCode
  reason?: string
}

/** Errors that came from the engine (or were made here): their messages are safe to show. */
const engineErrors = new WeakSet<object>()

/** Whether `error` is one of this package's own errors, whose message is safe to show. */
export function isEngineError(error: unknown): error is CodedError {
  return typeof error === 'object' && error !== null && engineErrors.has(error)
}

/** A new coded error; `reason` defaults to `invalid_argument` for `invalid_request`. */
export function codedError(code: ErrorCode, message: string, reason?: string): CodedError {
  const error = new Error(message) as CodedError
  error.code = code
  const why = reason ?? (code === 'invalid_request' ? 'invalid_argument' : undefined)
  if (why !== undefined) error.reason = why
  engineErrors.add(error)
  return error
}

/** `{name} must be {what}`, the message of every bad argument. */
export function expected(name: string, what: string): CodedError {
  return codedError('invalid_request', `${name} must be ${what}`)
}

/** An argument (or one of its fields) whose reading threw: a getter or a Proxy trap. */
export function unreadable(name: string): CodedError {
  return codedError('invalid_request', `${name} could not be read`)
}

/**
 * napi's statuses of a value it could not convert (`InvalidArg`, `StringExpected`,
 * `ObjectExpected`, `NumberExpected`, `ArrayExpected`...): the `code` of its argument errors.
 * Matched on the status alone, never on the message, which names Rust types and may echo the
 * value.
 */
const NAPI_ARGUMENT_STATUSES = /^(InvalidArg|[A-Za-z]+Expected)$/

/**
 * What the binding threw or rejected with, as this package's error. The engine's own errors
 * (a `code` of the contract) pass through; napi's conversion errors (`code` a napi status such
 * as `InvalidArg`, a message naming Rust types and perhaps echoing the value) become a short
 * `invalid_request`; anything else is `internal`.
 */
export function fromBinding(error: unknown): unknown {
  if (typeof error === 'object' && error !== null) {
    const code = (error as { code?: unknown }).code
    if (typeof code === 'string' && ERROR_CODES.has(code)) {
      engineErrors.add(error)
      return error
    }
    if (code === 'ABORT_ERR') return error
    if (typeof code === 'string' && NAPI_ARGUMENT_STATUSES.test(code)) {
      return codedError('invalid_request', 'an argument has the wrong type')
    }
  }
  return codedError('internal', 'internal error: the operation failed unexpectedly')
}

/** The rejection of an aborted call, as Node's own APIs give it. */
export function abortError(signal: AbortSignal): Error {
  const error = new Error('The operation was aborted', { cause: signal.reason }) as Error & { code: string }
  error.name = 'AbortError'
  error.code = 'ABORT_ERR'
  return error
}
