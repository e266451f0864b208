/** Delay before the next attempt of a failed request: exponential, capped at 30 s. */
export function backoffDelay(attempt: number, baseMs = 200): number {
  return Math.min(30_000, baseMs * 2 ** attempt)
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
