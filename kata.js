'use strict'
// `context-engine/kata`: the engine as a Kata Cloud context provider (issue 12 §1).
//
// Kata's main process keeps providers keyed by id in its context adapter and persists what
// they return; this module answers in Kata's own shapes (restated in kata.d.ts) so the
// provider can be put in the adapter as it is. Conventions followed:
// - `retrieve` never rejects: every failure is an `{ ok: false }` result whose error carries
//   a remediation a user can act on and whether retrying can help.
// - The addon is loaded on first use, so a missing or broken native binary is a
//   `provider_unavailable` result, not an exception when the app imports this module.
// - Roots are trimmed and `~` expanded (Kata's spaces live under `~/kata/...`); a relative
//   root is refused. Snippet paths are absolute, as Kata's filesystem provider gives them.
// - Results and errors carry this provider's own id, whatever id the adapter asked for.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const PROVIDER_IDS = ['mcp', 'filesystem']
/** Kata's own default number of snippets. */
const DEFAULT_LIMIT = 5
/** The engine's cap on snippets per request. */
const MAX_LIMIT = 100
const ENGINE_CODES = new Set(['invalid_request', 'unauthorized', 'unavailable', 'timeout', 'internal'])

let addon = null
let addonError = null

/** The addon, loaded on first use; `null` (and `addonError` set) when it cannot be. */
function loadAddon() {
  if (addon !== null) return addon
  if (addonError !== null) return null
  try {
    addon = require('./dist/index.js')
    return addon
  } catch (error) {
    addonError = error
    return null
  }
}

function isPositiveInteger(value) {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1
}

function nonBlank(value, fallback) {
  return typeof value === 'string' && value.trim().length > 0 ? value : fallback
}

function checkOptions(options) {
  if (options === undefined || options === null) return {}
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw invalidOption('options must be an object')
  }
  const { engine, id, limit } = options
  if (id !== undefined && !PROVIDER_IDS.includes(id)) {
    throw invalidOption("options.id must be 'mcp' or 'filesystem'")
  }
  if (limit !== undefined && (!isPositiveInteger(limit) || limit > MAX_LIMIT)) {
    throw invalidOption(`options.limit must be an integer from 1 to ${MAX_LIMIT}`)
  }
  if (
    engine !== undefined &&
    (engine === null ||
      typeof engine !== 'object' ||
      typeof engine.retrieve !== 'function' ||
      typeof engine.prepareIndex !== 'function')
  ) {
    throw invalidOption('options.engine must be a ContextEngine')
  }
  return { engine, id, limit }
}

function invalidOption(message) {
  const error = new TypeError(message)
  error.code = 'invalid_request'
  return error
}

/** `~` and `~/...` (or `~\...`) against the home directory; everything else unchanged. */
function expandHome(root) {
  if (root === '~') return os.homedir()
  if (root.startsWith('~/') || (path.sep === '\\' && root.startsWith('~\\'))) {
    return path.join(os.homedir(), root.slice(2))
  }
  return root
}

function failure(providerId, code, message, remediation, retryable) {
  return {
    ok: false,
    providerId,
    snippets: [],
    error: { code, message, remediation, retryable, providerId },
  }
}

const ROOT_REMEDIATION = 'Set the space root path to an existing, readable project directory.'

/** The root to use, or the failure that explains why it cannot be used. */
async function resolveRoot(providerId, rootPath) {
  const trimmed = typeof rootPath === 'string' ? rootPath.trim() : ''
  if (trimmed.length === 0) {
    return {
      failure: failure(
        providerId,
        'invalid_root_path',
        'The context root path is empty.',
        'Select a space with a project directory before requesting context.',
        false,
      ),
    }
  }
  const root = expandHome(trimmed)
  if (!path.isAbsolute(root)) {
    return {
      failure: failure(
        providerId,
        'invalid_root_path',
        'The context root path is relative; it must be absolute (or start with ~).',
        'Set the space root path to an absolute path such as ~/kata/my-project.',
        false,
      ),
    }
  }
  let stats
  try {
    stats = await fs.promises.stat(root)
  } catch (error) {
    const missing = error && (error.code === 'ENOENT' || error.code === 'ENOTDIR')
    return {
      failure: failure(
        providerId,
        'invalid_root_path',
        missing ? 'The context root path does not exist.' : 'The context root path cannot be read.',
        ROOT_REMEDIATION,
        false,
      ),
    }
  }
  if (!stats.isDirectory()) {
    return {
      failure: failure(
        providerId,
        'invalid_root_path',
        'The context root path is not a directory.',
        ROOT_REMEDIATION,
        false,
      ),
    }
  }
  try {
    await fs.promises.access(root, fs.constants.R_OK | fs.constants.X_OK)
  } catch {
    return {
      failure: failure(
        providerId,
        'invalid_root_path',
        'The context root directory cannot be read (permission denied).',
        'Give the app read access to the space root directory, or choose another directory.',
        false,
      ),
    }
  }
  return { root }
}

function unavailableFailure(providerId) {
  return failure(
    providerId,
    'provider_unavailable',
    'The context engine native addon could not be loaded on this platform.',
    'Reinstall context-engine so that its platform package is present (and, in Electron, ' +
      'unpack *.node files from the asar archive), then restart the app.',
    true,
  )
}

/** Kata's error for an error thrown by the engine (or anything else thrown). */
function engineFailure(providerId, error) {
  const code = error && typeof error === 'object' && ENGINE_CODES.has(error.code) ? error.code : 'internal'
  const text = error && typeof error.message === 'string' ? error.message : ''
  switch (code) {
    case 'invalid_request':
      if (/root/i.test(text)) {
        return failure(
          providerId,
          'invalid_root_path',
          'The context engine refused the space root path.',
          ROOT_REMEDIATION,
          false,
        )
      }
      return failure(
        providerId,
        'invalid_query',
        'The context engine refused the query (for example, a prompt over 256 KiB).',
        'Shorten the prompt and make sure the space and session are set, then retry.',
        false,
      )
    case 'unavailable':
      return failure(
        providerId,
        'provider_unavailable',
        'The context engine is temporarily unavailable.',
        'Wait a moment and retry context retrieval.',
        true,
      )
    case 'unauthorized':
      return failure(
        providerId,
        'provider_unavailable',
        'The context engine is not authorized to read this space.',
        'Check the credentials or file permissions the context engine uses for this space.',
        false,
      )
    case 'timeout':
      return failure(
        providerId,
        'io_failure',
        'Context retrieval timed out; the first request for a space indexes the whole project.',
        'Retry in a moment. To avoid the wait, call prepare(rootPath) when the space is opened ' +
          'so the index is built ahead of the first request.',
        true,
      )
    default:
      return failure(
        providerId,
        'io_failure',
        'Context retrieval failed unexpectedly.',
        'Retry context retrieval; if it keeps failing, check the app logs.',
        true,
      )
  }
}

function toKataSnippet(providerId, root, snippet) {
  return {
    id: `${providerId}:${snippet.id}`,
    provider: providerId,
    path: path.join(root, ...String(snippet.path).split('/')),
    source: snippet.source,
    content: snippet.content,
    score: snippet.score,
  }
}

/**
 * A Kata `ContextProvider` backed by the context engine. Throws only for bad `options`.
 * @param {{ engine?: object, id?: 'mcp' | 'filesystem', limit?: number }} [options]
 */
function createKataContextProvider(options) {
  const checked = checkOptions(options)
  const providerId = checked.id ?? 'mcp'
  const defaultLimit = checked.limit ?? DEFAULT_LIMIT
  const ownEngine = checked.engine

  /** The engine's `retrieve`/`prepareIndex` pair, or `null` when the addon cannot load. */
  function engine() {
    if (ownEngine !== undefined) return ownEngine
    return loadAddon()
  }

  async function retrieve(query) {
    try {
      if (query === null || typeof query !== 'object' || Array.isArray(query)) {
        return failure(
          providerId,
          'invalid_query',
          'The context query must be an object with a prompt and a root path.',
          'Pass { prompt, spaceId, sessionId, rootPath } to retrieve().',
          false,
        )
      }
      const prompt = query.prompt
      if (typeof prompt !== 'string' || !/[\p{L}\p{N}]/u.test(prompt)) {
        return failure(
          providerId,
          'invalid_query',
          'The context query has no searchable terms.',
          'Provide a prompt with at least one word or identifier.',
          false,
        )
      }
      const limit = query.limit
      if (limit !== undefined && !isPositiveInteger(limit)) {
        return failure(
          providerId,
          'invalid_query',
          'The context limit must be a positive integer.',
          'Use a positive integer limit (or leave it out for 5 snippets).',
          false,
        )
      }
      const resolved = await resolveRoot(providerId, query.rootPath)
      if (resolved.failure) return resolved.failure
      const target = engine()
      if (target === null) return unavailableFailure(providerId)
      const snippets = await target.retrieve({
        prompt,
        // The engine requires both ids but uses neither for ranking; Kata's filesystem
        // provider ignores them, so a blank one must not fail this provider alone.
        spaceId: nonBlank(query.spaceId, 'space'),
        sessionId: nonBlank(query.sessionId, 'session'),
        rootPath: resolved.root,
        providerId,
        limit: Math.min(limit ?? defaultLimit, MAX_LIMIT),
      })
      return {
        ok: true,
        providerId,
        snippets: snippets.map((s) => toKataSnippet(providerId, resolved.root, s)),
      }
    } catch (error) {
      return engineFailure(providerId, error)
    }
  }

  async function prepare(rootPath) {
    try {
      const resolved = await resolveRoot(providerId, rootPath)
      if (resolved.failure) return resolved.failure
      const target = engine()
      if (target === null) return unavailableFailure(providerId)
      const status = await target.prepareIndex(resolved.root)
      return { ok: true, providerId, status }
    } catch (error) {
      return engineFailure(providerId, error)
    }
  }

  return Object.freeze({ id: providerId, retrieve, prepare })
}

module.exports.createKataContextProvider = createKataContextProvider
module.exports.DEFAULT_LIMIT = DEFAULT_LIMIT
