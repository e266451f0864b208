export { TidepoolClient, TimeoutError } from './client'
export type { ClientOptions, TaskSpec, TaskStatus, TaskState } from './types'
