// The argument schema of the binding's exports: each argument's type, declared once per export
// in lib/index.ts and checked here before the binding is called, so napi's own conversion (whose
// errors name Rust types and may echo the value) never sees a value of the wrong type. A check
// returns the value to pass on: strings and numbers as they are, objects rebuilt with only the
// fields their type declares (own or inherited keys of other names are never read), in an
// object without a prototype, so the binding reads exactly what was checked.
//
// The schema cannot drift from the binding's types: each `Check<T>` is invariant in `T`, and
// `args<F>` requires one check per parameter of `F` whose `T` is exactly that parameter's type
// in the generated index.d.ts (an object check lists every field of its interface, no more),
// so `npm run typecheck` fails when a type in the binding changes and the schema does not.
//
// Messages name the argument (`text`, `options.maxLines`, `each entry of files`) and the type
// expected, never the value. Ranges that need the engine's knowledge are checked in Rust.

import { codedError, expected, unreadable } from './errors.js'

/** The largest text (UTF-16 units, `length`) an export takes in one argument, and in all of an argument's strings. */
export const MAX_TEXT_UNITS = 8 * 1024 * 1024
/** The largest other string (a name, a path, a query): 1 MiB of UTF-8. */
export const MAX_STRING_BYTES = 1024 * 1024

/**
 * A check of one argument or field of type `T`: returns the value to pass on, or throws
 * `invalid_request` naming `name`. `type` exists for the compiler only (never set): it makes
 * `Check<T>` invariant, so a check matches one type exactly.
 */
export interface Check<T> {
  (value: unknown, name: string): T
  readonly type?: (t: T) => T
}

function check<T>(f: (value: unknown, name: string) => T): Check<T> {
  return f as Check<T>
}

/** `{name} is too large (at most 1 MiB)`, reason `too_large`. */
function tooLarge(name: string, maxBytes: number): Error {
  const limit =
    maxBytes >= 1 << 20 && maxBytes % (1 << 20) === 0
      ? `${maxBytes / (1 << 20)} MiB`
      : maxBytes >= 1024 && maxBytes % 1024 === 0
        ? `${maxBytes / 1024} KiB`
        : `${maxBytes} bytes`
  return codedError('invalid_request', `${name} is too large (at most ${limit})`, 'too_large')
}

/** `{name} is too long (at most N characters of `length`)`, reason `too_large`. */
function tooLong(name: string, maxUnits: number): Error {
  return codedError(
    'invalid_request',
    `${name} is too long (at most ${maxUnits} characters of \`length\`)`,
    'too_large',
  )
}

/** A string of at most `maxBytes` of UTF-8 (measured only when its length allows more). */
export function string(maxBytes = MAX_STRING_BYTES): Check<string> {
  return check((v, name) => {
    if (typeof v !== 'string') throw expected(name, 'a string')
    if (v.length > maxBytes || (v.length * 3 > maxBytes && Buffer.byteLength(v) > maxBytes)) {
      throw tooLarge(name, maxBytes)
    }
    return v
  })
}

/** A text of at most `maxUnits` UTF-16 units, refused from its `length` alone and never read here. */
export function text(maxUnits = MAX_TEXT_UNITS): Check<string> {
  return check((v, name) => {
    if (typeof v !== 'string') throw expected(name, 'a string')
    if (v.length > maxUnits) throw tooLong(name, maxUnits)
    return v
  })
}

/** A number (any: ranges are the binding's). */
export const number: Check<number> = check((v, name) => {
  if (typeof v !== 'number') throw expected(name, 'a number')
  return v
})

/** A boolean. */
export const boolean: Check<boolean> = check((v, name) => {
  if (typeof v !== 'boolean') throw expected(name, 'a boolean')
  return v
})

/** One of `values` (`what` says which in messages, e.g. `'o200k_base' or 'cl100k_base'`). */
export function oneOf<const V extends string>(values: readonly V[], what: string): Check<V> {
  return check((v, name) => {
    if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) throw expected(name, what)
    return v as V
  })
}

/** The caller's `AbortSignal` (replaced by a cancellation token in lib/call.ts). */
export const abortSignal: Check<AbortSignal> = check((v, name) => {
  const bad = () => expected(name, 'an AbortSignal')
  if (typeof v !== 'object' || v === null) throw bad()
  try {
    const s = v as AbortSignal
    if (typeof s.aborted !== 'boolean' || typeof s.addEventListener !== 'function') throw bad()
  } catch {
    throw bad()
  }
  return v as AbortSignal
})

/** `T` or absent: `undefined` and `null` both mean absent and pass on as `undefined`. */
export function optional<T>(c: Check<T>): Check<T | undefined> {
  return check((v, name) => (v === undefined || v === null ? undefined : c(v, name)))
}

/** `T`, or `fallback` when absent (`undefined` or `null`). */
export function withDefault<T>(c: Check<T>, fallback: T): Check<T> {
  return check((v, name) => (v === undefined || v === null ? fallback : c(v, name)))
}

/** A whole number from `min` to `max`, for fields napi converts to an integer type itself. */
export function whole(min: number, max: number): Check<number> {
  return check((v, name) => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
      throw expected(name, `a whole number from ${min} to ${max}`)
    }
    return v
  })
}

/**
 * A value of type `T` passed on as `to(value)`, for a shape the binding takes in a simpler
 * form (GitHub's `{ name }` labels as their names).
 */
export function mapped<T>(c: Check<T>, to: (value: T) => unknown): Check<T> {
  return check((v, name) => {
    const value = c(v, name)
    return (value === undefined ? value : to(value)) as T
  })
}

/** A field the binding does not read: never read here either, and not passed on. */
export function unread<T>(): Check<T> {
  return check(() => undefined as T)
}

/** `T`, `null` or absent (for fields typed `T | null`): `null` passes on as `undefined`. */
export function nullable<T>(c: Check<T>): Check<T | null | undefined> {
  return check<T | null | undefined>((v, name) => (v === undefined || v === null ? undefined : c(v, name)))
}

/** The fields of an object type `T`, every one listed (optional ones with `optional`). */
export type Fields<T> = { [K in keyof Required<T>]: Check<T[K]> }

/** Reads `key` of `value` once (a getter or Proxy trap that throws is `{name} could not be read`). */
function read(value: object, key: string, name: string): unknown {
  try {
    return (value as Record<string, unknown>)[key]
  } catch {
    throw unreadable(name)
  }
}

/** Whether `v` is an object that is neither an array nor a function. */
function isObject(v: unknown): v is object {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/**
 * An object of type `T`: a new object without a prototype holding only `fields` (each checked,
 * named `{name}.{key}`); absent fields are left out.
 */
export function object<T>(fields: Fields<T>): Check<T> {
  const entries = Object.entries(fields) as Array<[string, Check<unknown>]>
  return check((v, name) => {
    if (!isObject(v)) throw expected(name, 'an object')
    const out: Record<string, unknown> = Object.create(null)
    for (const [key, c] of entries) {
      const field = `${name}.${key}`
      const value = read(v, key, field)
      if (value === undefined || value === null) {
        // Absent: fine for an optional field (or its default), `{field} is required` for any other.
        let absent: unknown
        try {
          absent = c(undefined, field)
        } catch {
          throw codedError('invalid_request', `${field} is required`)
        }
        if (absent !== undefined) out[key] = absent
        continue
      }
      out[key] = c(value, field)
    }
    return out as T
  })
}

/**
 * An array of at most `maxLen` entries (`what`: the type in messages, e.g. `an array of
 * strings`), each checked as `each entry of {name}`; `maxUnits` of text in all, counted by
 * `units` (a string entry's length by default).
 */
export function array<T>(
  item: Check<T>,
  what: string,
  maxLen: number,
  units: (entry: T) => number = (e) => (typeof e === 'string' ? e.length : 0),
  maxUnits = MAX_TEXT_UNITS,
): Check<T[]> {
  return check((v, name) => {
    if (!Array.isArray(v)) throw expected(name, what)
    if (v.length > maxLen) {
      throw codedError('invalid_request', `${name} has too many entries (at most ${maxLen})`)
    }
    const each = `each entry of ${name}`
    let total = 0
    const out = new Array<T>(v.length)
    for (let i = 0; i < v.length; i++) {
      const entry = item(read(v, String(i), name), each)
      total += units(entry)
      if (total > maxUnits) throw tooLong(name, maxUnits)
      out[i] = entry
    }
    return out
  })
}

/**
 * An object whose own enumerable values are texts, in its key order (a record of sections), at
 * most `maxUnits` UTF-16 units of keys and values in all; passed on as a copy without prototype.
 */
export function textRecord(maxUnits: number): Check<Record<string, string>> {
  return check((v, name) => {
    if (!isObject(v)) throw expected(name, 'an object')
    const out: Record<string, string> = Object.create(null)
    let units = 0
    let keys: string[]
    try {
      keys = Object.keys(v)
    } catch {
      throw unreadable(name)
    }
    for (const key of keys) {
      const value = read(v, key, name)
      if (typeof value !== 'string') throw codedError('invalid_request', `${name} values must be strings`)
      if (key.length > MAX_STRING_BYTES) throw tooLarge(`a key of ${name}`, MAX_STRING_BYTES)
      units += key.length + value.length
      if (units > maxUnits) throw tooLong(name, maxUnits)
      out[key] = value
    }
    return out
  })
}

/**
 * One of two object types told apart by which of two keys it has (exactly one): `a` when
 * `keyA` is present, `b` when `keyB` is, otherwise `{name} {problem}`.
 */
export function byKey<A, B>(keyA: string, a: Check<A>, keyB: string, b: Check<B>, problem: string): Check<A | B> {
  return check<A | B>((v, name) => {
    if (!isObject(v)) throw expected(name, 'an object')
    const has = (key: string) => {
      const value = read(v, key, `${name}.${key}`)
      return value !== undefined && value !== null
    }
    const [hasA, hasB] = [has(keyA), has(keyB)]
    if (hasA === hasB) throw codedError('invalid_request', `${name} ${problem}`)
    return hasA ? a(v, name) : b(v, name)
  })
}

/** One of several types (`what`: how messages say them, e.g. `a number or a string`); the first that passes. */
export function either<A, B>(what: string, a: Check<A>, b: Check<B>): Check<A | B> {
  return check((v, name) => {
    for (const c of [a, b] as Array<Check<A | B>>) {
      try {
        return c(v, name)
      } catch (error) {
        if (
          !(
            typeof error === 'object' &&
            error !== null &&
            (error as { reason?: unknown }).reason === 'invalid_argument'
          )
        ) {
          throw error
        }
      }
    }
    throw expected(name, what)
  })
}

/** Names and checks of the parameters `P`, one a parameter (optional ones too), exactly their types. */
export type ArgList<P extends readonly unknown[]> = { readonly [I in keyof P]-?: readonly [string, Check<P[I]>] }

/** The argument list of the export `F`: its parameters' names and checks. */
export type Args<F extends (...args: never[]) => unknown> = ArgList<Parameters<F>>

/** The declared argument list of `F`. */
export function args<F extends (...args: never[]) => unknown>(_f: F, list: Args<F>): Args<F> {
  return list
}

/** Checks `argv` against `list`: the values to pass on, in order (extra arguments dropped). */
export function checkArgs(list: ReadonlyArray<readonly [string, Check<unknown>]>, argv: readonly unknown[]): unknown[] {
  return list.map(([name, c], i) => c(argv[i], name))
}
