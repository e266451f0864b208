// ESM entry of `context-engine/kata`: the same provider factory as kata.js (one module
// instance, so the lazily loaded addon is shared between `import` and `require`).
import kata from './kata.js'

export const createKataContextProvider = kata.createKataContextProvider
export const DEFAULT_LIMIT = kata.DEFAULT_LIMIT
export default kata
