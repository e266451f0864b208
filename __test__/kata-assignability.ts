// Type-checked by `npm run typecheck` (never run): the provider is assignable to Kata Cloud's
// `ContextProvider` as Kata declares it, restated here on its own (apart from lib/kata.ts, so a
// drift between our restatement and Kata's shapes fails the check).
import { createKataContextProvider, type KataContextProvider } from 'context-engine/kata'
import { ContextEngine } from 'context-engine'

namespace Kata {
  export type ContextProviderId = 'filesystem' | 'mcp'
  export type ContextRetrievalErrorCode =
    | 'provider_unavailable'
    | 'unsupported_provider'
    | 'invalid_query'
    | 'invalid_root_path'
    | 'io_failure'
  export interface ContextQuery {
    prompt: string
    spaceId: string
    sessionId: string
    rootPath: string
    limit?: number
  }
  export interface ContextSnippet {
    id: string
    provider: ContextProviderId
    path: string
    source: string
    content: string
    score: number
  }
  export interface ContextRetrievalError {
    code: ContextRetrievalErrorCode
    message: string
    remediation: string
    retryable: boolean
    providerId: ContextProviderId
  }
  export type ContextRetrievalResult =
    | { ok: true; providerId: ContextProviderId; snippets: ContextSnippet[]; fallbackFromProviderId?: ContextProviderId }
    | {
        ok: false
        providerId: ContextProviderId
        snippets: ContextSnippet[]
        fallbackFromProviderId?: ContextProviderId
        error: ContextRetrievalError
      }
  export interface ContextProvider {
    readonly id: ContextProviderId
    retrieve(query: ContextQuery): Promise<ContextRetrievalResult>
  }
}

const asMcp: Kata.ContextProvider = createKataContextProvider()
const asFilesystem: Kata.ContextProvider = createKataContextProvider({ id: 'filesystem', limit: 8 })
const withEngine: Kata.ContextProvider = createKataContextProvider({ engine: new ContextEngine({ indexCacheDir: '/tmp/x' }) })
const providers: Kata.ContextProvider[] = [asMcp, asFilesystem, withEngine]

async function kataUse(p: KataContextProvider, q: Kata.ContextQuery): Promise<Kata.ContextSnippet[]> {
  const r: Kata.ContextRetrievalResult = await p.retrieve(q)
  const prepared = await p.prepare(q.rootPath)
  if (!prepared.ok) {
    const e: Kata.ContextRetrievalError = prepared.error
    void e
  }
  return r.ok ? r.snippets : []
}

// @ts-expect-error: an id Kata does not know is refused at compile time too.
createKataContextProvider({ id: 'github' })

void providers
void kataUse
