// The package entry: what `require('context-engine')` and `import ... from 'context-engine'`
// give. Every export is the binding's (same name, same types, documented in index.d.ts), called
// through this layer: arguments read once into plain values, errors shaped in one place, the
// caller's `AbortSignal` and the engine's deadline raced here (lib/call.ts), and classes that
// answer misuse (a call without `new`, a method on a foreign `this`) with `invalid_request`.

import * as declaredArgs from './args.js'
import { type ArgChecks, type Controls, callAsync, callSync, readArgs } from './call.js'
import { codedError, fromBinding } from './errors.js'
import { type Binding, native } from './native.js'
import type * as s from './schema.js'

export type * from '../index.js'

// ---- module-level functions

type AnyFn = (...args: never[]) => unknown

/** An export's declared arguments (lib/args.ts) as `callSync`/`callAsync` take them. */
function declared(list: readonly (readonly [string, unknown])[]): ArgChecks {
  return list as unknown as ArgChecks
}

/** The position of the options argument (`options` or `config`), whose `signal` a call races. */
function optionsAt(checks: ArgChecks): number | undefined {
  const i = checks.findIndex(([name]) => name === 'options' || name === 'config')
  return i < 0 ? undefined : i
}

/** A sync export of the binding, called through `callSync` with its declared arguments. */
function syncExport<F extends AnyFn>(f: F, list: s.Args<F>): F {
  const checks = declared(list)
  const wrapped = (...args: unknown[]) => callSync(f, undefined, args, checks)
  return Object.defineProperty(wrapped, 'name', { value: f.name }) as unknown as F
}

/** An async export of the binding, called through `callAsync` with its declared arguments. */
function asyncExport<F extends AnyFn>(f: F, list: s.Args<F>): F {
  const checks = declared(list)
  const controls = { optionsAt: optionsAt(checks), checks }
  const wrapped = (...args: unknown[]) =>
    callAsync(f as unknown as (...a: never[]) => Promise<unknown>, undefined, args, controls)
  return Object.defineProperty(wrapped, 'name', { value: f.name }) as unknown as F
}

const A = declaredArgs.functions
export const buildFixContext = asyncExport(native.buildFixContext, A.buildFixContext)
export const buildImplementationContext = asyncExport(native.buildImplementationContext, A.buildImplementationContext)
export const buildIssueContext = asyncExport(native.buildIssueContext, A.buildIssueContext)
export const buildReviewContext = asyncExport(native.buildReviewContext, A.buildReviewContext)
export const clearFileCache = syncExport(native.clearFileCache, A.clearFileCache)
export const composeContext = asyncExport(native.composeContext, A.composeContext)
export const composeContextSync = syncExport(native.composeContextSync, A.composeContextSync)
export const countTokens = asyncExport(native.countTokens, A.countTokens)
export const countTokensSync = syncExport(native.countTokensSync, A.countTokensSync)
export const diffContext = asyncExport(native.diffContext, A.diffContext)
export const dirContext = asyncExport(native.dirContext, A.dirContext)
export const estimateTokens = syncExport(native.estimateTokens, A.estimateTokens)
export const expandChunk = asyncExport(native.expandChunk, A.expandChunk)
export const expandChunkDetailed = asyncExport(native.expandChunkDetailed, A.expandChunkDetailed)
export const fileCacheStats = syncExport(native.fileCacheStats, A.fileCacheStats)
export const fileContext = asyncExport(native.fileContext, A.fileContext)
export const fileRanks = asyncExport(native.fileRanks, A.fileRanks)
export const fitToBudget = asyncExport(native.fitToBudget, A.fitToBudget)
export const fitToBudgetSync = syncExport(native.fitToBudgetSync, A.fitToBudgetSync)
export const indexStatus = syncExport(native.indexStatus, A.indexStatus)
export const invalidateDirectory = syncExport(native.invalidateDirectory, A.invalidateDirectory)
export const invalidateFile = syncExport(native.invalidateFile, A.invalidateFile)
export const languages = syncExport(native.languages, A.languages)
export const parseValidationOutput = asyncExport(native.parseValidationOutput, A.parseValidationOutput)
export const parseValidationOutputSync = syncExport(native.parseValidationOutputSync, A.parseValidationOutputSync)
export const prContext = asyncExport(native.prContext, A.prContext)
export const prepareIndex = asyncExport(native.prepareIndex, A.prepareIndex)
export const redactSecrets = asyncExport(native.redactSecrets, A.redactSecrets)
export const remoteFileContext = asyncExport(native.remoteFileContext, A.remoteFileContext)
export const repoStats = asyncExport(native.repoStats, A.repoStats)
export const retrieve = asyncExport(native.retrieve, A.retrieve)
export const truncateFile = asyncExport(native.truncateFile, A.truncateFile)
export const truncateFileDetailed = asyncExport(native.truncateFileDetailed, A.truncateFileDetailed)
export const truncateFileSync = syncExport(native.truncateFileSync, A.truncateFileSync)
export const unwatchWorkspace = syncExport(native.unwatchWorkspace, A.unwatchWorkspace)
export const watchWorkspace = asyncExport(native.watchWorkspace, A.watchWorkspace)

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

/** A constructor's options, checked by `check` (a bad one throws `invalid_request`). */
function readOptions<T>(value: unknown, check: s.Check<T>): T {
  try {
    return readArgs([value], [['options', check as s.Check<unknown>]])[0] as T
  } catch (error) {
    throw fromBinding(error)
  }
}

/** A new native object of class `C` from the constructor's options, checked by `check`. */
function construct<T, O>(C: new (...args: never[]) => T, value: unknown, check: s.Check<O>): T {
  return constructRead(C, readOptions(value, check))
}

/** A new native object of class `C` from options already read. */
function constructRead<T>(C: new (...args: never[]) => T, read: unknown): T {
  try {
    return new C(...([read] as never[]))
  } catch (error) {
    throw fromBinding(error)
  }
}

/** The declared arguments of a class's methods, by name. */
type MethodTable = Record<string, readonly (readonly [string, unknown])[]>

/**
 * The methods of a wrapper: each calls the same method of the wrapped native object with its
 * declared arguments (`table`), sync or async (with `Controls`). `of` returns the native object
 * of `self`, or throws `misuse`.
 */
function methods<N extends object, M extends MethodTable>(
  of: (self: unknown) => { native: N; timeoutMs?: number },
  table: M,
) {
  type Method = (this: N, ...args: never[]) => unknown
  const pick = (o: N, name: keyof M & string) => (o as unknown as Record<string, Method>)[name]
  return {
    sync(self: unknown, name: keyof M & string, args: unknown[]) {
      const o = of(self).native
      return callSync(pick(o, name), o, args, declared(table[name]))
    },
    async(self: unknown, name: keyof M & string, args: unknown[]) {
      const checks = declared(table[name])
      const at = optionsAt(checks)
      let o: { native: N; timeoutMs?: number }
      try {
        o = of(self)
      } catch (error) {
        return Promise.reject(error)
      }
      const controls: Controls = { optionsAt: at, timeoutMs: at === undefined ? undefined : o.timeoutMs, checks }
      return callAsync(pick(o.native, name) as (...a: never[]) => Promise<unknown>, o.native, args, controls)
    },
    get<V>(self: unknown, get: (n: N) => V): V {
      const o = of(self).native
      try {
        return get(o)
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
    const read = readOptions(options, declaredArgs.classes.ContextEngine.options)
    this.#native = constructRead(native.ContextEngine, read)
    this.#timeoutMs = read?.timeoutMs
  }

  static #of(self: unknown) {
    if (typeof self !== 'object' || self === null || !(#native in self)) throw misuse('ContextEngine')
    const e = self as ContextEngineImpl
    return { native: e.#native, timeoutMs: e.#timeoutMs }
  }

  static readonly #m = methods<Binding.ContextEngine, typeof declaredArgs.classes.ContextEngine.methods>(
    (self) => ContextEngineImpl.#of(self),
    declaredArgs.classes.ContextEngine.methods,
  )

  expandChunk(...args: unknown[]) {
    return ContextEngineImpl.#m.async(this, 'expandChunk', args)
  }
  expandChunkDetailed(...args: unknown[]) {
    return ContextEngineImpl.#m.async(this, 'expandChunkDetailed', args)
  }
  clearFileCache(...args: unknown[]) {
    return ContextEngineImpl.#m.sync(this, 'clearFileCache', args)
  }
  invalidateFile(...args: unknown[]) {
    return ContextEngineImpl.#m.sync(this, 'invalidateFile', args)
  }
  invalidateDirectory(...args: unknown[]) {
    return ContextEngineImpl.#m.sync(this, 'invalidateDirectory', args)
  }
  fileCacheStats(...args: unknown[]) {
    return ContextEngineImpl.#m.sync(this, 'fileCacheStats', args)
  }
  watchWorkspace(...args: unknown[]) {
    return ContextEngineImpl.#m.async(this, 'watchWorkspace', args)
  }
  unwatchWorkspace(...args: unknown[]) {
    return ContextEngineImpl.#m.sync(this, 'unwatchWorkspace', args)
  }
  retrieve(...args: unknown[]) {
    return ContextEngineImpl.#m.async(this, 'retrieve', args)
  }
  indexStatus(...args: unknown[]) {
    return ContextEngineImpl.#m.sync(this, 'indexStatus', args)
  }
  prepareIndex(...args: unknown[]) {
    return ContextEngineImpl.#m.async(this, 'prepareIndex', args)
  }
  fileRanks(...args: unknown[]) {
    return ContextEngineImpl.#m.async(this, 'fileRanks', args)
  }
  evict(...args: unknown[]) {
    return ContextEngineImpl.#m.sync(this, 'evict', args)
  }
}

class GiteaClientImpl {
  readonly #native: Binding.GiteaClient
  constructor(config?: unknown) {
    this.#native = construct(native.GiteaClient, config, declaredArgs.classes.GiteaClient.options)
  }
  static #of(self: unknown) {
    if (typeof self !== 'object' || self === null || !(#native in self)) throw misuse('GiteaClient')
    return { native: (self as GiteaClientImpl).#native }
  }
  static readonly #m = methods<Binding.GiteaClient, typeof declaredArgs.classes.GiteaClient.methods>(
    (self) => GiteaClientImpl.#of(self),
    declaredArgs.classes.GiteaClient.methods,
  )

  get baseUrl() {
    return GiteaClientImpl.#m.get(this, (n) => n.baseUrl)
  }
  get hasToken() {
    return GiteaClientImpl.#m.get(this, (n) => n.hasToken)
  }
  getRawFile(...args: unknown[]) {
    return GiteaClientImpl.#m.async(this, 'getRawFile', args)
  }
}

class GitHubClientImpl {
  readonly #native: Binding.GitHubClient
  constructor(config?: unknown) {
    this.#native = construct(native.GitHubClient, config, declaredArgs.classes.GitHubClient.options)
  }
  static #of(self: unknown) {
    if (typeof self !== 'object' || self === null || !(#native in self)) throw misuse('GitHubClient')
    return { native: (self as GitHubClientImpl).#native }
  }
  static readonly #m = methods<Binding.GitHubClient, typeof declaredArgs.classes.GitHubClient.methods>(
    (self) => GitHubClientImpl.#of(self),
    declaredArgs.classes.GitHubClient.methods,
  )

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
    return GitHubClientImpl.#m.async(this, 'getRawFile', args)
  }
}

class HoundClientImpl {
  readonly #native: Binding.HoundClient
  constructor(config?: unknown) {
    this.#native = construct(native.HoundClient, config, declaredArgs.classes.HoundClient.options)
  }
  static #of(self: unknown) {
    if (typeof self !== 'object' || self === null || !(#native in self)) throw misuse('HoundClient')
    return { native: (self as HoundClientImpl).#native }
  }
  static readonly #m = methods<Binding.HoundClient, typeof declaredArgs.classes.HoundClient.methods>(
    (self) => HoundClientImpl.#of(self),
    declaredArgs.classes.HoundClient.methods,
  )

  get baseUrl() {
    return HoundClientImpl.#m.get(this, (n) => n.baseUrl)
  }
  search(...args: unknown[]) {
    return HoundClientImpl.#m.async(this, 'search', args)
  }
  repos(...args: unknown[]) {
    return HoundClientImpl.#m.async(this, 'repos', args)
  }
  repoKey(...args: unknown[]) {
    return HoundClientImpl.#m.async(this, 'repoKey', args)
  }
  repoName(...args: unknown[]) {
    return HoundClientImpl.#m.async(this, 'repoName', args)
  }
  excludes(...args: unknown[]) {
    return HoundClientImpl.#m.async(this, 'excludes', args)
  }
}

class SymbolIndexImpl {
  readonly #native: Binding.SymbolIndex
  constructor(options?: unknown) {
    this.#native = construct(native.SymbolIndex, options, declaredArgs.classes.SymbolIndex.options)
  }
  static #of(self: unknown) {
    if (typeof self !== 'object' || self === null || !(#native in self)) throw misuse('SymbolIndex')
    return { native: (self as SymbolIndexImpl).#native }
  }
  static readonly #m = methods<Binding.SymbolIndex, typeof declaredArgs.classes.SymbolIndex.methods>(
    (self) => SymbolIndexImpl.#of(self),
    declaredArgs.classes.SymbolIndex.methods,
  )

  indexFiles(...args: unknown[]) {
    return SymbolIndexImpl.#m.async(this, 'indexFiles', args)
  }
  updateFiles(...args: unknown[]) {
    return SymbolIndexImpl.#m.async(this, 'updateFiles', args)
  }
  indexRoot(...args: unknown[]) {
    return SymbolIndexImpl.#m.async(this, 'indexRoot', args)
  }
  search(...args: unknown[]) {
    return SymbolIndexImpl.#m.async(this, 'search', args)
  }
  flush(...args: unknown[]) {
    return SymbolIndexImpl.#m.async(this, 'flush', args)
  }
  removeRepo(...args: unknown[]) {
    return SymbolIndexImpl.#m.sync(this, 'removeRepo', args)
  }
  repos(...args: unknown[]) {
    return SymbolIndexImpl.#m.sync(this, 'repos', args)
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
