// The test addon (`npm run build:test`): the binding built with its `diagnostics` feature, which
// adds exports that raise each error code on demand. The published addon has none of them.
// Its exports are called the way the package entry calls the binding's (lib/call.ts), so the
// errors seen here are the ones a caller of the package gets.
import { callAsync, callSync } from '../../lib/call.js'

export interface Diagnostics {
  __raiseErrorSync(code: string): void
  __raiseErrorAsync(code: string, viaFuture?: boolean): Promise<void>
  estimateTokens(text: string): number
  countTokens(text: string, encoding?: string): Promise<number>
}

// These files compile as CommonJS (package.json has no "type"), so `require` is the module's own.
const addon: Diagnostics = require('../../target/test-addon/context-engine.node')

export const diagnostics: Diagnostics = {
  __raiseErrorSync: (...args) => callSync(addon.__raiseErrorSync, addon, args),
  __raiseErrorAsync: (...args) => callAsync(addon.__raiseErrorAsync, addon, args),
  estimateTokens: (...args) => callSync(addon.estimateTokens, addon, args),
  countTokens: (...args) => callAsync(addon.countTokens, addon, args),
}
