/** The shapes the tidepool HTTP API sends and receives. */

export interface TaskSpec {
  name: string
  payload: Record<string, unknown>
  priority?: number
  /** Seconds from now before the task may run. */
  delay?: number
}

export type TaskState = 'queued' | 'leased' | 'done' | 'dead'

export interface TaskStatus {
  id: string
  state: TaskState
  attempts: number
  lastError?: string
}

export interface ClientOptions {
  baseUrl: string
  /** Milliseconds before a request is abandoned. */
  timeoutMs?: number
  retries?: number
  token?: string
}

export interface StatusSource {
  status(id: string): Promise<TaskStatus>
}
