/** Routes of the current HTTP API: tasks, queues and their stats. */
export const routes = {
  tasks: () => '/api/v2/tasks',
  task: (id: string) => `/api/v2/tasks/${encodeURIComponent(id)}`,
  queues: () => '/api/v2/queues',
  queueStats: (name: string) => `/api/v2/queues/${encodeURIComponent(name)}/stats`,
}
