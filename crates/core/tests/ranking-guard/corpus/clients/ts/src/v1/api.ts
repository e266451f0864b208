/** Routes of the first HTTP API, kept for servers that predate v2. */
export const routes = {
  tasks: () => '/api/v1/jobs',
  task: (id: string) => `/api/v1/jobs/${encodeURIComponent(id)}`,
  queues: () => '/api/v1/queues',
}
