// Tool errors and argument checking. Every tool declares its arguments once, as a zod schema:
// the JSON schema a host sees in `tools/list` is generated from it, and the same schema checks
// the arguments of `tools/call`, so a host that validates before calling and one that does not
// get the same answer. A bad argument is always our `invalid_request` tool result, never a
// protocol error, and its message names the field, never its value.
import { z } from 'zod'

export const CODES = ['invalid_request', 'unauthorized', 'unavailable', 'timeout', 'internal'] as const
export type ErrorCode = (typeof CODES)[number]

/** An error a tool reports to the model as `<code>: <message>`. */
export class ToolError extends Error {
  readonly code: ErrorCode
  constructor(code: ErrorCode, message: string) {
    super(message)
    this.code = code
  }
}

export const invalid = (message: string): ToolError => new ToolError('invalid_request', message)

/** A key for an error message: short and printable. */
export function safeKey(k: PropertyKey): string {
  const s = String(k).replace(/[^\x20-\x7e]/g, '?')
  return s.length > 40 ? `${s.slice(0, 40)}...` : s
}

/** `path` as a field name: `a.b`, `a[0]`, and `a["key"]` for the keys of a map. */
function where(path: PropertyKey[], schema?: Record<string, unknown>): string {
  let out = ''
  let s = schema
  for (const p of path) {
    const props = s?.properties as Record<string, Record<string, unknown>> | undefined
    if (typeof p === 'number') {
      out += `[${p}]`
      s = s?.items as Record<string, unknown> | undefined
    } else if (out === '') {
      out = safeKey(p)
      s = props?.[p as string]
    } else if (props && Object.hasOwn(props, p)) {
      out += `.${safeKey(p)}`
      s = props[p as string]
    } else {
      out += `[${JSON.stringify(safeKey(p))}]`
      s = s?.additionalProperties as Record<string, unknown> | undefined
    }
  }
  return out || 'arguments'
}

const TYPE_WORDS: Record<string, string> = {
  int: 'a whole number',
  number: 'a number',
  string: 'a string',
  boolean: 'a boolean',
  array: 'an array',
  object: 'an object',
  record: 'an object',
}

/** The JSON-schema `type` declared at `path` of `schema`, if any. */
function declaredType(schema: Record<string, unknown> | undefined, path: PropertyKey[]): unknown {
  let s = schema
  for (const p of path) {
    if (!s) return undefined
    if (typeof p === 'number') s = s.items as Record<string, unknown> | undefined
    else
      s = ((s.properties as Record<string, Record<string, unknown>> | undefined)?.[p as string] ??
        s.additionalProperties) as Record<string, unknown> | undefined
  }
  return s?.type
}

/** The first problem zod found, as a short message naming the field (never its value). */
export function describeIssue(issue: z.core.$ZodIssue, input: unknown, schema?: Record<string, unknown>): string {
  const field = where(issue.path, schema)
  switch (issue.code) {
    case 'invalid_type': {
      let value: unknown = input
      for (const p of issue.path)
        value = value && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[p as string] : undefined
      if (value === undefined && issue.path.length > 0) return `${field} is required`
      const expected = declaredType(schema, issue.path) === 'integer' ? 'int' : issue.expected
      return `${field} must be ${TYPE_WORDS[expected] ?? `a ${expected}`}`
    }
    case 'too_small':
      if (issue.origin === 'string')
        return Number(issue.minimum) === 1
          ? `${field} must not be empty`
          : `${field} must have at least ${issue.minimum} characters`
      if (issue.origin === 'array') return `${field} must have at least ${issue.minimum} item(s)`
      if (issue.origin === 'object' || issue.origin === 'record')
        return `${field} must have at least ${issue.minimum} entr${Number(issue.minimum) === 1 ? 'y' : 'ies'}`
      return `${field} must be >= ${issue.minimum}`
    case 'too_big':
      if (issue.origin === 'string') return `${field} must have at most ${issue.maximum} characters`
      if (issue.origin === 'array') return `${field} must have at most ${issue.maximum} items`
      if (issue.origin === 'object' || issue.origin === 'record')
        return `${field} must have at most ${issue.maximum} entries`
      return `${field} must be <= ${issue.maximum}`
    case 'invalid_value':
      return `${field} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`
    case 'unrecognized_keys':
      return `unknown argument ${issue.keys.map((k) => (issue.path.length ? `${field}.${safeKey(k)}` : safeKey(k))).join(', ')}`
    case 'custom':
      return `${field} ${issue.message}`
    default:
      return `${field} is not valid`
  }
}

/** Checks `args` (undefined counts as `{}`) against `schema` (whose JSON form is `json`); throws `invalid_request`. */
export function parseArguments<S extends z.ZodType>(
  schema: S,
  args: unknown,
  json?: Record<string, unknown>,
): z.output<S> {
  const input = args ?? {}
  const r = schema.safeParse(input)
  if (r.success) return r.data
  // zod may report several problems of one field (a huge number is both unsafe and too big):
  // the most specific is the last one of the first field.
  const first = r.error.issues[0]
  const same = r.error.issues.filter((i) => i.path.join('\0') === first.path.join('\0'))
  throw invalid(describeIssue(same[same.length - 1], input, json))
}

/** The JSON schema of `schema` as a host reads it (input shape: defaults are not required). */
export function jsonSchema(
  schema: z.ZodType,
  io: 'input' | 'output' = 'input',
): Record<string, unknown> & { type: 'object' } {
  const out = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>
  delete out.$schema
  return out as Record<string, unknown> & { type: 'object' }
}

// Field schemas shared by the tools.

export const rootArg = z
  .string()
  .min(1)
  .max(4096)
  .describe(
    "Repository directory to work in (absolute, or relative to the default root). Must lie inside one of the roots the server may read. Default: the server's root.",
  )
export const pathArg = z
  .string()
  .min(1)
  .max(4096)
  .describe('File path relative to the root (`src/app.ts`), or an absolute path inside it.')
export const lineArg = z.int().min(1).max(10_000_000)

/** The default and the ceiling of `maxTokens`: a host caps a tool result at about 25k tokens. */
export const DEFAULT_MAX_TOKENS = 8000
export const MAX_TOKENS = 25_000
export const MIN_TOKENS = 200

export function maxTokensArg(def = DEFAULT_MAX_TOKENS) {
  return z
    .int()
    .min(MIN_TOKENS)
    .max(MAX_TOKENS)
    .default(def)
    .describe(
      `Token budget of the result (o200k_base count), ${MIN_TOKENS}-${MAX_TOKENS}. Default ${def}. The result stops at the budget and says how to continue.`,
    )
}
