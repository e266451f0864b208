/**
 * `context-engine/kata`: the context engine as a Kata Cloud context provider.
 *
 * Kata's types are restated here (Kata imports nothing else of ours); the provider returned by
 * `createKataContextProvider` is structurally a Kata `ContextProvider`, so it can be put in
 * Kata's context adapter as it is (for example in its `"mcp"` slot).
 */
import type { ContextEngine, IndexStatus } from './index.js'

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
  /** Short and safe: no paths, no prompt text. */
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
   * `invalid_query` (no letter or digit in the prompt, bad limit; not retryable),
   * `invalid_root_path` (blank, relative, missing, unreadable or not a directory; not
   * retryable), `provider_unavailable` (addon missing or engine unavailable: retryable;
   * unauthorized: not), `io_failure` (timeout, for instance while the first call indexes the
   * space, or anything unexpected; retryable).
   */
  retrieve(query: ContextQuery): Promise<ContextRetrievalResult>
  /**
   * Builds (or refreshes) the index of a space's root ahead of the first `retrieve`, e.g. when
   * the app opens the space. Never rejects; failures as for `retrieve`.
   */
  prepare(rootPath: string): Promise<KataPrepareResult>
}

/** Kata's default number of snippets. */
export declare const DEFAULT_LIMIT: 5

/**
 * A Kata context provider backed by the context engine. Throws a `TypeError` (code
 * `invalid_request`) only for bad options.
 */
export declare function createKataContextProvider(options?: KataContextProviderOptions): KataContextProvider
