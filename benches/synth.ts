// The deterministic vocabulary and random numbers of the synthetic trees the benches build
// (`retrieve.bench.ts`, `gen-small-tree.ts`), so that every run builds the same tree.

/** A small deterministic PRNG (mulberry32): the same seed gives the same sequence. */
export function rng(seed: number): () => number {
  let a = seed
  return () => {
    a |= 0
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export const NOUNS = 'user session token cache router request response handler parser config schema model field validator stream buffer socket queue worker job task event listener plugin module registry index query result error retry timeout client server header cookie path route middleware logger metric span trace file reader writer encoder decoder'.split(' ')
export const VERBS = 'get set create update delete parse validate load save open close send receive build resolve render fetch flush encode decode register dispatch handle compute merge split'.split(' ')
