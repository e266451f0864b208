// `context-engine/kata`: the engine as a Kata Cloud context provider.
//
// Kata's main process keeps providers keyed by id in its context adapter and persists what
// they return; this module answers in Kata's own shapes (restated below; Kata imports nothing
// else of ours) so the provider can be put in the adapter as it is. Conventions followed:
// - `retrieve` never rejects: every failure is an `{ ok: false }` result whose error carries
//   a remediation a user can act on and whether retrying can help.
// - The engine's own message is kept (it is written to be shown: short, no secrets, no path
//   outside the root) and the Kata code is chosen from its `code` and `reason`.
// - The addon is loaded on first use, so a missing or broken native binary is a
//   `provider_unavailable` result, not an exception when the app imports this module.
// - Roots are trimmed and `~` expanded (Kata's spaces live under `~/kata/...`); a relative
//   root is refused. Snippet paths are absolute, as Kata's filesystem provider gives them.
// - Results and errors carry this provider's own id, whatever id the adapter asked for.

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import { isEngineError } from './errors.js'
import type { ContextEngine, ContextSnippet as EngineSnippet, IndexStatus } from './index.js'

/** Kata's provider ids. */
export type ContextProviderId = 'filesystem' | 'mcp'

/** Kata's error codes. */
export type ContextRetrievalErrorCode =
  | 'provider_unavailable'
  | 'unsupported_provider'
  | 'invalid_query'
  | 'invalid_root_path'
  | 'io_failure'

/** What Kata asks a provider for. */
export interface ContextQuery {
  /** The user's prompt; it must contain at least one letter or digit. */
  prompt: string
  spaceId: string
  sessionId: string
  /** The space's root: absolute or starting with `~`; surrounding blanks are ignored. */
  rootPath: string
  /** Snippets wanted, a positive integer. Default: the provider's `limit` option (5). */
  limit?: number
}

/** One snippet, as Kata shows and persists it (every field required and non-empty). */
export interface ContextSnippet {
  /** `<providerId>:<engine id>`; the engine id hashes path, line range and content. */
  id: string
  /** The provider's own id. */
  provider: ContextProviderId
  /** Absolute path of the file (native separators), like Kata's filesystem provider. */
  path: string
  /** The engine's `relative/path:startLine-endLine`. */
  source: string
  /** The snippet's lines, secrets redacted. */
  content: string
  /** Relevance, finite and positive; snippets come sorted by it, descending. */
  score: number
}

/** Why a retrieval failed, and what the user can do about it. */
export interface ContextRetrievalError {
  code: ContextRetrievalErrorCode
  /** Short and safe: the engine's own message, or one of this module's; no prompt text. */
  message: string
  /** What the user can do. */
  remediation: string
  /** Whether the same request may succeed later. */
  retryable: boolean
  /** The provider's own id. */
  providerId: ContextProviderId
}

export interface ContextRetrievalSuccess {
  ok: true
  providerId: ContextProviderId
  snippets: ContextSnippet[]
  fallbackFromProviderId?: ContextProviderId
}

export interface ContextRetrievalFailure {
  ok: false
  providerId: ContextProviderId
  /** Always empty. */
  snippets: ContextSnippet[]
  fallbackFromProviderId?: ContextProviderId
  error: ContextRetrievalError
}

export type ContextRetrievalResult = ContextRetrievalSuccess | ContextRetrievalFailure

/** Kata's provider interface. */
export interface ContextProvider {
  readonly id: ContextProviderId
  retrieve(query: ContextQuery): Promise<ContextRetrievalResult>
}

/** What `prepare` resolves to. */
export type KataPrepareResult =
  | { ok: true; providerId: ContextProviderId; status: IndexStatus }
  | ContextRetrievalFailure

/** Options of `createKataContextProvider`. All optional. */
export interface KataContextProviderOptions {
  /**
   * The engine to retrieve with, e.g. `new ContextEngine({ indexCacheDir })` with a directory
   * under Electron's `app.getPath('userData')`. Default: the module-level default engine
   * (the addon is then loaded on the first call, not at import).
   */
  engine?: ContextEngine
  /** The provider's id, carried by every result, snippet and error. Default `'mcp'`. */
  id?: ContextProviderId
  /** Snippets per query when the query gives no `limit`: 1 to 100, default 5 (Kata's). */
  limit?: number
}

/** The provider: a Kata `ContextProvider` plus `prepare`. */
export interface KataContextProvider extends ContextProvider {
  /**
   * Ranked snippets for `query.prompt` from the files under `query.rootPath`. Never rejects:
   * a failure is `{ ok: false, error }` with a remediation and `retryable`:
   * `invalid_query` (no letter or digit in the prompt, bad limit, a prompt the engine refuses;
   * not retryable), `invalid_root_path` (blank, relative, missing, unreadable or not a
   * directory, or a root the engine refuses; not retryable), `provider_unavailable` (engine
   * unavailable: retryable; addon missing or unauthorized: not), `io_failure` (timeout, for
   * instance while the first call indexes the space, or anything unexpected; retryable).
   */
  retrieve(query: ContextQuery): Promise<ContextRetrievalResult>
  /**
   * Builds (or refreshes) the index of a space's root ahead of the first `retrieve`, e.g. when
   * the app opens the space. Never rejects; failures as for `retrieve`.
   */
  prepare(rootPath: string): Promise<KataPrepareResult>
}

/** What this module uses of an engine. */
type Engine = Pick<ContextEngine, 'retrieve' | 'prepareIndex'>

const PROVIDER_IDS: readonly string[] = ['mcp', 'filesystem']
/** Kata's own default number of snippets. */
export const DEFAULT_LIMIT = 5
/** The engine's cap on snippets per request. */
const MAX_LIMIT = 100
/** The engine's reasons that say the root itself is the problem. */
const ROOT_REASONS = new Set([
  'not_found',
  'not_a_directory',
  'not_a_repository',
  'outside_root',
  'outside_allowed_roots',
  'invalid_path',
  'permission_denied',
  'symlink_loop',
])

let addon: Engine | null = null
let addonFailed = false

/** The package entry (the default engine), loaded on first use; `null` when it cannot be. */
function loadAddon(): Engine | null {
  if (addon !== null || addonFailed) return addon
  try {
    addon = require('./index.js') as Engine
  } catch {
    addonFailed = true
  }
  return addon
}

const isPositiveInteger = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 1

const nonBlank = (value: unknown, fallback: string): string =>
  typeof value === 'string' && value.trim().length > 0 ? value : fallback

/** A bad factory option: a `TypeError` with the contract's code, as documented. */
function invalidOption(message: string): TypeError {
  return Object.assign(new TypeError(message), { code: 'invalid_request' as const, reason: 'invalid_argument' })
}

function checkOptions(options: unknown): KataContextProviderOptions {
  if (options === undefined || options === null) return {}
  if (typeof options !== 'object' || Array.isArray(options)) throw invalidOption('options must be an object')
  const { engine, id, limit } = options as Record<string, unknown>
  if (id !== undefined && !PROVIDER_IDS.includes(id as string)) {
    throw invalidOption("options.id must be 'mcp' or 'filesystem'")
  }
  if (limit !== undefined && (!isPositiveInteger(limit) || limit > MAX_LIMIT)) {
    throw invalidOption(`options.limit must be an integer from 1 to ${MAX_LIMIT}`)
  }
  if (
    engine !== undefined &&
    (engine === null ||
      typeof engine !== 'object' ||
      typeof (engine as Engine).retrieve !== 'function' ||
      typeof (engine as Engine).prepareIndex !== 'function')
  ) {
    throw invalidOption('options.engine must be a ContextEngine')
  }
  return {
    engine: engine as ContextEngine | undefined,
    id: id as ContextProviderId | undefined,
    limit: limit as number | undefined,
  }
}

/** `~` and `~/...` (or `~\...`) against the home directory; everything else unchanged. */
function expandHome(root: string): string {
  if (root === '~') return os.homedir()
  if (root.startsWith('~/') || (path.sep === '\\' && root.startsWith('~\\'))) {
    return path.join(os.homedir(), root.slice(2))
  }
  return root
}

function failure(
  providerId: ContextProviderId,
  code: ContextRetrievalErrorCode,
  message: string,
  remediation: string,
  retryable: boolean,
): ContextRetrievalFailure {
  return { ok: false, providerId, snippets: [], error: { code, message, remediation, retryable, providerId } }
}

const ROOT_REMEDIATION = 'Set the space root path to an existing, readable project directory.'

/** The root to use, or the failure that explains why it cannot be used. */
async function resolveRoot(
  providerId: ContextProviderId,
  rootPath: unknown,
): Promise<{ root: string } | { failure: ContextRetrievalFailure }> {
  const rootFailure = (message: string, remediation = ROOT_REMEDIATION) => ({
    failure: failure(providerId, 'invalid_root_path', message, remediation, false),
  })
  const trimmed = typeof rootPath === 'string' ? rootPath.trim() : ''
  if (trimmed.length === 0) {
    return rootFailure(
      'The context root path is empty.',
      'Select a space with a project directory before requesting context.',
    )
  }
  const root = expandHome(trimmed)
  if (!path.isAbsolute(root)) {
    return rootFailure(
      'The context root path is relative; it must be absolute (or start with ~).',
      'Set the space root path to an absolute path such as ~/kata/my-project.',
    )
  }
  let stats: fs.Stats
  try {
    stats = await fs.promises.stat(root)
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code
    const missing = code === 'ENOENT' || code === 'ENOTDIR'
    return rootFailure(missing ? 'The context root path does not exist.' : 'The context root path cannot be read.')
  }
  if (!stats.isDirectory()) return rootFailure('The context root path is not a directory.')
  try {
    await fs.promises.access(root, fs.constants.R_OK | fs.constants.X_OK)
  } catch {
    return rootFailure(
      'The context root directory cannot be read (permission denied).',
      'Give the app read access to the space root directory, or choose another directory.',
    )
  }
  return { root }
}

/** The addon could not be loaded: retrying the same call cannot help, reinstalling can. */
function unavailableFailure(providerId: ContextProviderId): ContextRetrievalFailure {
  return failure(
    providerId,
    'provider_unavailable',
    'The context engine native addon could not be loaded on this platform.',
    'Reinstall context-engine so that its platform package is present (and, in Electron, ' +
      'unpack *.node files from the asar archive), then restart the app.',
    false,
  )
}

/**
 * Kata's error for an error thrown by the engine (or anything else thrown). The Kata code
 * comes from the engine's `code` and `reason`; the engine's message is kept when the error is
 * the engine's own (its messages are written to be shown), a sentence of ours otherwise (an
 * engine passed in options may throw anything).
 */
function engineFailure(providerId: ContextProviderId, error: unknown): ContextRetrievalFailure {
  const own = isEngineError(error)
  const code = own ? error.code : (error as { code?: unknown } | null)?.code
  const reason = own ? error.reason : undefined
  const say = (fallback: string) => (own ? error.message : fallback)
  switch (code) {
    case 'invalid_request':
      if (reason !== undefined && ROOT_REASONS.has(reason)) {
        return failure(
          providerId,
          'invalid_root_path',
          say('The context engine refused the space root path.'),
          ROOT_REMEDIATION,
          false,
        )
      }
      return failure(
        providerId,
        'invalid_query',
        say('The context engine refused the query (for example, a prompt over 256 KiB).'),
        'Shorten the prompt and make sure the space and session are set, then retry.',
        false,
      )
    case 'unavailable':
      return failure(
        providerId,
        'provider_unavailable',
        say('The context engine is temporarily unavailable.'),
        'Check that the tools the context engine runs (such as git) are installed, wait a moment and retry.',
        true,
      )
    case 'unauthorized':
      return failure(
        providerId,
        'provider_unavailable',
        say('The context engine is not authorized to read this space.'),
        'Check the credentials or file permissions the context engine uses for this space.',
        false,
      )
    case 'timeout':
      return failure(
        providerId,
        'io_failure',
        say('Context retrieval timed out; the first request for a space indexes the whole project.'),
        'Retry in a moment. To avoid the wait, call prepare(rootPath) when the space is opened ' +
          'so the index is built ahead of the first request.',
        true,
      )
    default:
      return failure(
        providerId,
        'io_failure',
        say('Context retrieval failed unexpectedly.'),
        'Retry context retrieval; if it keeps failing, check the app logs.',
        true,
      )
  }
}

function toKataSnippet(providerId: ContextProviderId, root: string, snippet: EngineSnippet): ContextSnippet {
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
 * A Kata context provider backed by the context engine. Throws a `TypeError` (code
 * `invalid_request`) only for bad options.
 */
export function createKataContextProvider(options?: KataContextProviderOptions): KataContextProvider {
  const checked = checkOptions(options)
  const providerId: ContextProviderId = checked.id ?? 'mcp'
  const defaultLimit = checked.limit ?? DEFAULT_LIMIT
  const ownEngine = checked.engine

  /** The engine's `retrieve`/`prepareIndex` pair, or `null` when the addon cannot load. */
  const engine = (): Engine | null => ownEngine ?? loadAddon()
  const invalidQuery = (message: string, remediation: string) =>
    failure(providerId, 'invalid_query', message, remediation, false)

  async function retrieve(query: ContextQuery): Promise<ContextRetrievalResult> {
    try {
      if (query === null || typeof query !== 'object' || Array.isArray(query)) {
        return invalidQuery(
          'The context query must be an object with a prompt and a root path.',
          'Pass { prompt, spaceId, sessionId, rootPath } to retrieve().',
        )
      }
      const { prompt, limit } = query
      if (typeof prompt !== 'string' || !/[\p{L}\p{N}]/u.test(prompt)) {
        return invalidQuery(
          'The context query has no searchable terms.',
          'Provide a prompt with at least one word or identifier.',
        )
      }
      if (limit !== undefined && !isPositiveInteger(limit)) {
        return invalidQuery(
          'The context limit must be a positive integer.',
          'Use a positive integer limit (or leave it out for 5 snippets).',
        )
      }
      const resolved = await resolveRoot(providerId, query.rootPath)
      if ('failure' in resolved) return resolved.failure
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
      return { ok: true, providerId, snippets: snippets.map((s) => toKataSnippet(providerId, resolved.root, s)) }
    } catch (error) {
      return engineFailure(providerId, error)
    }
  }

  async function prepare(rootPath: string): Promise<KataPrepareResult> {
    try {
      const resolved = await resolveRoot(providerId, rootPath)
      if ('failure' in resolved) return resolved.failure
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
