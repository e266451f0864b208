// The test addon (`npm run build:test`): the binding built with its `diagnostics` feature, which
// adds exports that raise each error code on demand. The published addon has none of them.
export interface Diagnostics {
  __raiseErrorSync(code: string): void
  __raiseErrorAsync(code: string, viaFuture?: boolean): Promise<void>
  estimateTokens(text: string): number
  countTokens(text: string, encoding?: string): Promise<number>
}

// These files compile as CommonJS (package.json has no "type"), so `require` is the module's own.
export const diagnostics: Diagnostics = require('../../target/test-addon/context-engine.node')
