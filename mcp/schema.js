// A small validator for the JSON-schema subset our tool schemas use (object, string, integer,
// number, boolean, array; enum, minimum/maximum, minLength/maxLength, minItems/maxItems,
// minProperties/maxProperties, required, additionalProperties). The schemas the server lists
// are the ones it checks, so a host that validates before calling and one that does not get
// the same answer, and a bad argument is always our `invalid_request`, never a protocol error.
'use strict'

class ToolError extends Error {
  constructor(code, message) {
    super(message)
    this.code = code
  }
}

const invalid = (message) => new ToolError('invalid_request', message)

function typeName(v) {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number'
  return typeof v
}

function describe(schema) {
  if (schema.enum) return `one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`
  if (schema.type === 'integer') return 'a whole number'
  if (schema.type === 'array') return 'an array'
  if (schema.type === 'object') return 'an object'
  return `a ${schema.type}`
}

/** Throws `invalid_request` naming the first field (never its value) that breaks `schema`. */
function check(schema, value, where) {
  const t = typeName(value)
  const ok =
    schema.type === 'number' ? t === 'number' || t === 'integer' : schema.type === undefined || t === schema.type
  if (!ok) throw invalid(`${where} must be ${describe(schema)}`)
  if (schema.enum && !schema.enum.includes(value)) throw invalid(`${where} must be ${describe(schema)}`)
  if (t === 'number' && !Number.isFinite(value)) throw invalid(`${where} must be a finite number`)
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) throw invalid(`${where} must be >= ${schema.minimum}`)
    if (schema.maximum !== undefined && value > schema.maximum) throw invalid(`${where} must be <= ${schema.maximum}`)
  }
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength) {
      throw invalid(schema.minLength === 1 ? `${where} must not be empty` : `${where} must have at least ${schema.minLength} characters`)
    }
    if (schema.maxLength !== undefined && value.length > schema.maxLength) throw invalid(`${where} must have at most ${schema.maxLength} characters`)
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) throw invalid(`${where} must have at least ${schema.minItems} item(s)`)
    if (schema.maxItems !== undefined && value.length > schema.maxItems) throw invalid(`${where} must have at most ${schema.maxItems} items`)
    if (schema.items) value.forEach((item, i) => check(schema.items, item, `${where}[${i}]`))
  }
  if (t === 'object') {
    const keys = Object.keys(value)
    if (schema.minProperties !== undefined && keys.length < schema.minProperties) throw invalid(`${where} must have at least ${schema.minProperties} entr${schema.minProperties === 1 ? 'y' : 'ies'}`)
    if (schema.maxProperties !== undefined && keys.length > schema.maxProperties) throw invalid(`${where} must have at most ${schema.maxProperties} entries`)
    for (const r of schema.required ?? []) {
      if (value[r] === undefined) throw invalid(`${where === 'arguments' ? '' : where + '.'}${r} is required`)
    }
    const props = schema.properties ?? {}
    for (const k of keys) {
      const field = where === 'arguments' ? k : `${where}.${k}`
      if (Object.prototype.hasOwnProperty.call(props, k)) {
        if (value[k] !== undefined) check(props[k], value[k], field)
      } else if (schema.additionalProperties === false) {
        throw invalid(`unknown argument ${safeKey(field)}`)
      } else if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
        check(schema.additionalProperties, value[k], `${where}[${JSON.stringify(safeKey(k))}]`)
      }
    }
  }
}

/** A key for an error message: short, printable. */
function safeKey(k) {
  const s = String(k).replace(/[^\x20-\x7e]/g, '?')
  return s.length > 40 ? `${s.slice(0, 40)}...` : s
}

/** Validates tool arguments (undefined counts as `{}`) against the tool's input schema. */
function validateArguments(schema, args) {
  check(schema, args ?? {}, 'arguments')
  return args ?? {}
}

module.exports = { ToolError, invalid, validateArguments }
