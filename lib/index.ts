// The package entry: what `require('context-engine')` and `import ... from 'context-engine'`
// give. Every export is the binding's (same name, same types, documented in index.d.ts), called
// through this layer: arguments read once into plain values, errors shaped in one place, the
// caller's `AbortSignal` and the engine's deadline raced here (lib/call.ts), and classes that
// answer misuse (a call without `new`, a method on a foreign `this`) with `invalid_request`.

import { type Controls, callAsync, callSync, plain } from './call.js'
import { codedError, fromBinding } from './errors.js'
import { type Binding, native } from './native.js'

export type * from '../index.js'

// ---- module-level functions

type AnyFn = (...args: never[]) => unknown

/** A sync export of the binding, called through `callSync`. */
function syncExport<F extends AnyFn>(f: F): F {
  const wrapped = (...args: unknown[]) => callSync(f, undefined, args)
  return Object.defineProperty(wrapped, 'name', { value: f.name }) as unknown as F
}

/** An async export of the binding, called through `callAsync` (`optionsAt`: its options). */
function asyncExport<F extends AnyFn>(f: F, optionsAt?: number): F {
  const wrapped = (...args: unknown[]) =>
    callAsync(f as unknown as (...a: never[]) => Promise<unknown>, undefined, args, { optionsAt })
  return Object.defineProperty(wrapped, 'name', { value: f.name }) as unknown as F
}

export const buildFixContext = asyncExport(native.buildFixContext, 3)
export const buildImplementationContext = asyncExport(native.buildImplementationContext, 2)
export const buildIssueContext = asyncExport(native.buildIssueContext, 2)
export const buildReviewContext = asyncExport(native.buildReviewContext, 2)
export const clearFileCache = syncExport(native.clearFileCache)
export const composeContext = asyncExport(native.composeContext)
export const composeContextSync = syncExport(native.composeContextSync)
export const countTokens = asyncExport(native.countTokens)
export const countTokensSync = syncExport(native.countTokensSync)
export const diffContext = asyncExport(native.diffContext, 1)
export const dirContext = asyncExport(native.dirContext, 1)
export const estimateTokens = syncExport(native.estimateTokens)
export const expandChunk = asyncExport(native.expandChunk, 3)
export const expandChunkDetailed = asyncExport(native.expandChunkDetailed, 3)
export const fileCacheStats = syncExport(native.fileCacheStats)
export const fileContext = asyncExport(native.fileContext, 1)
export const fileRanks = asyncExport(native.fileRanks, 1)
export const fitToBudget = asyncExport(native.fitToBudget)
export const fitToBudgetSync = syncExport(native.fitToBudgetSync)
export const indexStatus = syncExport(native.indexStatus)
export const invalidateDirectory = syncExport(native.invalidateDirectory)
export const invalidateFile = syncExport(native.invalidateFile)
export const languages = syncExport(native.languages)
export const parseValidationOutput = asyncExport(native.parseValidationOutput)
export const parseValidationOutputSync = syncExport(native.parseValidationOutputSync)
export const prContext = asyncExport(native.prContext, 2)
export const prepareIndex = asyncExport(native.prepareIndex, 1)
export const redactSecrets = asyncExport(native.redactSecrets)
export const remoteFileContext = asyncExport(native.remoteFileContext, 1)
export const repoStats = asyncExport(native.repoStats)
export const retrieve = asyncExport(native.retrieve, 1)
export const truncateFile = asyncExport(native.truncateFile)
export const truncateFileDetailed = asyncExport(native.truncateFileDetailed)
export const truncateFileSync = syncExport(native.truncateFileSync)
export const unwatchWorkspace = syncExport(native.unwatchWorkspace)
export const watchWorkspace = asyncExport(native.watchWorkspace)

// The binding's string enums: their types are unions of strings; napi also exports each as an
// object of its values, kept here for callers that read them.
const enums = native as unknown as Record<
  'ContextProviderId' | 'ContextSourceKind' | 'ErrorSeverity' | 'TokenEncoding',
  object
>
export const ContextProviderId = enums.ContextProviderId
export const ContextSourceKind = enums.ContextSourceKind
export const ErrorSeverity = enums.ErrorSeverity
export const TokenEncoding = enums.TokenEncoding
export type ContextProviderId = Binding.ContextProviderId
export type ContextSourceKind = Binding.ContextSourceKind
export type ErrorSeverity = Binding.ErrorSeverity
export type TokenEncoding = Binding.TokenEncoding

// ---- classes

/** The error of a class called without `new`, or of a method called on a foreign `this`. */
function misuse(name: string): Error {
  return codedError('invalid_request', `this must be an instance of ${name} (construct it with new)`)
}

/** `C` that answers a call without `new` with `misuse`; `new`, `instanceof` and `extends` go to `C`. */
function guardCall<C extends abstract new (...args: never[]) => unknown>(C: C, name: string): C {
  return new Proxy(C, {
    apply() {
      throw misuse(name)
    },
  })
}

/** A new native object of class `C` from the constructor's arguments read into plain values. */
function construct<T>(C: new (...args: never[]) => T, options: unknown): T {
  try {
    return new C(...([plain(options, 'options')] as never[]))
  } catch (error) {
    throw fromBinding(error)
  }
}

/**
 * The methods of a wrapper: each calls the same method of the wrapped native object, sync or
 * async (with `Controls`). `of` returns the native object of `self`, or throws `misuse`.
 */
function methods<N extends object>(of: (self: unknown) => { native: N; timeoutMs?: number }) {
  type Method = (this: N, ...args: never[]) => unknown
  return {
    sync(self: unknown, pick: (n: N) => Method, args: unknown[]) {
      const o = of(self).native
      return callSync(pick(o), o, args)
    },
    async(self: unknown, pick: (n: N) => Method, args: unknown[], optionsAt?: number) {
      let o: { native: N; timeoutMs?: number }
      try {
        o = of(self)
      } catch (error) {
        return Promise.reject(error)
      }
      const controls: Controls = { optionsAt, timeoutMs: optionsAt === undefined ? undefined : o.timeoutMs }
      return callAsync(pick(o.native) as (...a: never[]) => Promise<unknown>, o.native, args, controls)
    },
    get<V>(self: unknown, pick: (n: N) => V): V {
      const o = of(self).native
      try {
        return pick(o)
      } catch (error) {
        throw fromBinding(error)
      }
    },
  }
}

class ContextEngineImpl {
  readonly #native: Binding.ContextEngine
  readonly #timeoutMs: number | undefined

  constructor(options?: unknown) {
    const read = plain(options, 'options') as { timeoutMs?: unknown } | null | undefined
    this.#native = construct(native.ContextEngine, read)
    this.#timeoutMs = typeof read?.timeoutMs === 'number' ? read.timeoutMs : undefined
  }

  static #of(self: unknown) {
    if (typeof self !== 'object' || self === null || !(#native in self)) throw misuse('ContextEngine')
    const e = self as ContextEngineImpl
    return { native: e.#native, timeoutMs: e.#timeoutMs }
  }

  static readonly #m = methods<Binding.ContextEngine>((self) => ContextEngineImpl.#of(self))

  expandChunk(...args: unknown[]) {
    return ContextEngineImpl.#m.async(this, (n) => n.expandChunk, args, 3)
  }
  expandChunkDetailed(...args: unknown[]) {
    return ContextEngineImpl.#m.async(this, (n) => n.expandChunkDetailed, args, 3)
  }
  clearFileCache(...args: unknown[]) {
    return ContextEngineImpl.#m.sync(this, (n) => n.clearFileCache, args)
  }
  invalidateFile(...args: unknown[]) {
    return ContextEngineImpl.#m.sync(this, (n) => n.invalidateFile, args)
  }
  invalidateDirectory(...args: unknown[]) {
    return ContextEngineImpl.#m.sync(this, (n) => n.invalidateDirectory, args)
  }
  fileCacheStats(...args: unknown[]) {
    return ContextEngineImpl.#m.sync(this, (n) => n.fileCacheStats, args)
  }
  watchWorkspace(...args: unknown[]) {
    return ContextEngineImpl.#m.async(this, (n) => n.watchWorkspace, args)
  }
  unwatchWorkspace(...args: unknown[]) {
    return ContextEngineImpl.#m.sync(this, (n) => n.unwatchWorkspace, args)
  }
  retrieve(...args: unknown[]) {
    return ContextEngineImpl.#m.async(this, (n) => n.retrieve, args, 1)
  }
  indexStatus(...args: unknown[]) {
    return ContextEngineImpl.#m.sync(this, (n) => n.indexStatus, args)
  }
  prepareIndex(...args: unknown[]) {
    return ContextEngineImpl.#m.async(this, (n) => n.prepareIndex, args, 1)
  }
  fileRanks(...args: unknown[]) {
    return ContextEngineImpl.#m.async(this, (n) => n.fileRanks, args, 1)
  }
  evict(...args: unknown[]) {
    return ContextEngineImpl.#m.sync(this, (n) => n.evict, args)
  }
}

class GiteaClientImpl {
  readonly #native: Binding.GiteaClient
  constructor(config?: unknown) {
    this.#native = construct(native.GiteaClient, config)
  }
  static #of(self: unknown) {
    if (typeof self !== 'object' || self === null || !(#native in self)) throw misuse('GiteaClient')
    return { native: (self as GiteaClientImpl).#native }
  }
  static readonly #m = methods<Binding.GiteaClient>((self) => GiteaClientImpl.#of(self))

  get baseUrl() {
    return GiteaClientImpl.#m.get(this, (n) => n.baseUrl)
  }
  get hasToken() {
    return GiteaClientImpl.#m.get(this, (n) => n.hasToken)
  }
  getRawFile(...args: unknown[]) {
    return GiteaClientImpl.#m.async(this, (n) => n.getRawFile, args, 3)
  }
}

class GitHubClientImpl {
  readonly #native: Binding.GitHubClient
  constructor(config?: unknown) {
    this.#native = construct(native.GitHubClient, config)
  }
  static #of(self: unknown) {
    if (typeof self !== 'object' || self === null || !(#native in self)) throw misuse('GitHubClient')
    return { native: (self as GitHubClientImpl).#native }
  }
  static readonly #m = methods<Binding.GitHubClient>((self) => GitHubClientImpl.#of(self))

  get baseUrl() {
    return GitHubClientImpl.#m.get(this, (n) => n.baseUrl)
  }
  get webUrl() {
    return GitHubClientImpl.#m.get(this, (n) => n.webUrl)
  }
  get hasToken() {
    return GitHubClientImpl.#m.get(this, (n) => n.hasToken)
  }
  getRawFile(...args: unknown[]) {
    return GitHubClientImpl.#m.async(this, (n) => n.getRawFile, args, 3)
  }
}

class HoundClientImpl {
  readonly #native: Binding.HoundClient
  constructor(config?: unknown) {
    this.#native = construct(native.HoundClient, config)
  }
  static #of(self: unknown) {
    if (typeof self !== 'object' || self === null || !(#native in self)) throw misuse('HoundClient')
    return { native: (self as HoundClientImpl).#native }
  }
  static readonly #m = methods<Binding.HoundClient>((self) => HoundClientImpl.#of(self))

  get baseUrl() {
    return HoundClientImpl.#m.get(this, (n) => n.baseUrl)
  }
  search(...args: unknown[]) {
    return HoundClientImpl.#m.async(this, (n) => n.search, args, 1)
  }
  repos(...args: unknown[]) {
    return HoundClientImpl.#m.async(this, (n) => n.repos, args, 0)
  }
  repoKey(...args: unknown[]) {
    return HoundClientImpl.#m.async(this, (n) => n.repoKey, args)
  }
  repoName(...args: unknown[]) {
    return HoundClientImpl.#m.async(this, (n) => n.repoName, args)
  }
  excludes(...args: unknown[]) {
    return HoundClientImpl.#m.async(this, (n) => n.excludes, args, 1)
  }
}

class SymbolIndexImpl {
  readonly #native: Binding.SymbolIndex
  constructor(options?: unknown) {
    this.#native = construct(native.SymbolIndex, options)
  }
  static #of(self: unknown) {
    if (typeof self !== 'object' || self === null || !(#native in self)) throw misuse('SymbolIndex')
    return { native: (self as SymbolIndexImpl).#native }
  }
  static readonly #m = methods<Binding.SymbolIndex>((self) => SymbolIndexImpl.#of(self))

  indexFiles(...args: unknown[]) {
    return SymbolIndexImpl.#m.async(this, (n) => n.indexFiles, args, 2)
  }
  updateFiles(...args: unknown[]) {
    return SymbolIndexImpl.#m.async(this, (n) => n.updateFiles, args, 2)
  }
  indexRoot(...args: unknown[]) {
    return SymbolIndexImpl.#m.async(this, (n) => n.indexRoot, args, 2)
  }
  search(...args: unknown[]) {
    return SymbolIndexImpl.#m.async(this, (n) => n.search, args)
  }
  flush(...args: unknown[]) {
    return SymbolIndexImpl.#m.async(this, (n) => n.flush, args)
  }
  removeRepo(...args: unknown[]) {
    return SymbolIndexImpl.#m.sync(this, (n) => n.removeRepo, args)
  }
  repos(...args: unknown[]) {
    return SymbolIndexImpl.#m.sync(this, (n) => n.repos, args)
  }
}

// Each class is exported with the binding's type (its documentation and signatures) and this
// layer's behaviour.
export const ContextEngine = guardCall(ContextEngineImpl, 'ContextEngine') as unknown as typeof Binding.ContextEngine
export type ContextEngine = Binding.ContextEngine
export const GiteaClient = guardCall(GiteaClientImpl, 'GiteaClient') as unknown as typeof Binding.GiteaClient
export type GiteaClient = Binding.GiteaClient
export const GitHubClient = guardCall(GitHubClientImpl, 'GitHubClient') as unknown as typeof Binding.GitHubClient
export type GitHubClient = Binding.GitHubClient
export const HoundClient = guardCall(HoundClientImpl, 'HoundClient') as unknown as typeof Binding.HoundClient
export type HoundClient = Binding.HoundClient
export const SymbolIndex = guardCall(SymbolIndexImpl, 'SymbolIndex') as unknown as typeof Binding.SymbolIndex
export type SymbolIndex = Binding.SymbolIndex
