import type { Task } from '@switchyard/protocol';
import { ArtifactAssembler } from '../artifacts/artifact-assembler.ts';
import type { StreamEvent } from '../transport/transport.ts';

/**
 * The client's picture of one task, kept current from its stream: a snapshot replaces it, status
 * updates replace the status, artifact chunks are assembled. The final answer of `run()` is a
 * fresh GetTask; this is what is shown meanwhile and the fallback when that read fails.
 */
export class TaskTracker {
  #task: Task;
  readonly #artifacts = new ArtifactAssembler();

  constructor(task: Task) {
    this.#task = task;
    this.#artifacts.apply({ task });
  }

  get task(): Task {
    const artifacts = this.#artifacts.artifacts;
    return { ...this.#task, ...(artifacts.length > 0 ? { artifacts } : {}) };
  }

  get artifacts(): ArtifactAssembler {
    return this.#artifacts;
  }

  apply(event: StreamEvent): void {
    const { response } = event;
    if (response.task) {
      if (response.task.id !== this.#task.id) return;
      this.#task = response.task;
      this.#artifacts.apply(response);
    } else if (response.statusUpdate) {
      if (response.statusUpdate.taskId !== this.#task.id) return;
      this.#task = { ...this.#task, status: response.statusUpdate.status };
    } else if (response.artifactUpdate) {
      if (response.artifactUpdate.taskId !== this.#task.id) return;
      this.#artifacts.apply(response);
    }
  }
}
