import { backoffDelay, sleep } from './backoff'
import type { ClientOptions, StatusSource, TaskSpec, TaskStatus } from './types'
import { routes } from './v2/api'

export class TimeoutError extends Error {
  constructor(ms: number) {
    super(`request timed out after ${ms} ms`)
    this.name = 'TimeoutError'
  }
}

/** Submits tasks to a tidepool server and reads their status. */
export class TidepoolClient implements StatusSource {
  private readonly options: Required<Omit<ClientOptions, 'token'>> & { token?: string }

  constructor(options: ClientOptions) {
    this.options = { timeoutMs: 10_000, retries: 3, ...options }
  }

  async submit(spec: TaskSpec): Promise<string> {
    const body = await this.request('POST', routes.tasks(), spec)
    return (body as { id: string }).id
  }

  async status(id: string): Promise<TaskStatus> {
    const body = await this.request('GET', routes.task(id))
    return (body as { task: TaskStatus }).task
  }

  /** One request, abandoned after `timeoutMs` through an AbortController; throttled requests
   * wait for the server's Retry-After header before trying again. */
  private async request(method: string, path: string, body?: unknown): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      const controller = new AbortController()
      const timer = setTimeout(() => controller.abort(), this.options.timeoutMs)
      try {
        const response = await fetch(this.options.baseUrl + path, {
          method,
          body: body === undefined ? undefined : JSON.stringify(body),
          headers: this.headers(),
          signal: controller.signal,
        })
        if (response.status === 429 && attempt < this.options.retries) {
          const retryAfter = Number(response.headers.get('retry-after') ?? '1')
          await sleep(retryAfter * 1000)
          continue
        }
        if (response.status >= 500 && attempt < this.options.retries) {
          await sleep(backoffDelay(attempt))
          continue
        }
        return await response.json()
      } catch (error) {
        if (controller.signal.aborted) throw new TimeoutError(this.options.timeoutMs)
        throw error
      } finally {
        clearTimeout(timer)
      }
    }
  }

  private headers(): Record<string, string> {
    const h: Record<string, string> = { 'content-type': 'application/json' }
    if (this.options.token) h.authorization = `Bearer ${this.options.token}`
    return h
  }
}
