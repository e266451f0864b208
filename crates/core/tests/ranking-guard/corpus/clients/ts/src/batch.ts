import type { TidepoolClient } from './client'
import type { TaskSpec } from './types'

/** Collects task specs and submits them together, at most `size` at a time. */
export class Batch {
  private readonly specs: TaskSpec[] = []

  constructor(
    private readonly client: TidepoolClient,
    private readonly size = 20,
  ) {}

  add(spec: TaskSpec): this {
    this.specs.push(spec)
    return this
  }

  addAll(specs: Iterable<TaskSpec>): this {
    for (const spec of specs) this.add(spec)
    return this
  }

  async submit(): Promise<string[]> {
    const ids: string[] = []
    for (let i = 0; i < this.specs.length; i += this.size) {
      const chunk: TaskSpec[] = this.specs.slice(i, i + this.size)
      ids.push(...(await Promise.all(chunk.map((spec: TaskSpec) => this.client.submit(spec)))))
    }
    return ids
  }
}
