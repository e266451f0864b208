// The test addon (`npm run build:test`): the binding built with its `diagnostics` feature, which
// adds exports that raise each error code on demand. The published addon has none of them.
import { createRequire } from 'node:module'

export interface Diagnostics {
  __raiseErrorSync(code: string): void
  __raiseErrorAsync(code: string, viaFuture?: boolean): Promise<void>
  estimateTokens(text: string): number
  countTokens(text: string, encoding?: string): Promise<number>
}

const load = createRequire(__filename)
export const diagnostics: Diagnostics = load('../../target/test-addon/context-engine.node')
