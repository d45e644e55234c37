import {
  formatTimestamp,
  type JsonObject,
  type Message,
  type StreamResponse,
  type TaskState,
} from '@switchyard/protocol';
import type { ArtifactChunkInput, TaskRecord } from '@switchyard/store';

/** Factories for the StreamResponse events appended to a task's log (STYLE.md rule 8). */

export function statusEvent(
  task: Pick<TaskRecord, 'id' | 'contextId'>,
  state: TaskState,
  message?: Message | null,
  at: Date = new Date(),
): StreamResponse {
  return {
    statusUpdate: {
      taskId: task.id,
      contextId: task.contextId,
      status: { state, ...(message ? { message } : {}), timestamp: formatTimestamp(at) },
    },
  };
}

export function artifactEvent(
  task: Pick<TaskRecord, 'id' | 'contextId'>,
  chunk: ArtifactChunkInput,
): StreamResponse {
  return {
    artifactUpdate: {
      taskId: task.id,
      contextId: task.contextId,
      artifact: {
        artifactId: chunk.artifactId,
        ...(chunk.name !== undefined ? { name: chunk.name } : {}),
        ...(chunk.description !== undefined ? { description: chunk.description } : {}),
        parts: chunk.parts,
        ...(chunk.metadata ? { metadata: chunk.metadata as JsonObject } : {}),
        ...(chunk.extensions ? { extensions: chunk.extensions } : {}),
      },
      append: chunk.append,
      lastChunk: chunk.lastChunk,
    },
  };
}

export function messageEvent(message: Message): StreamResponse {
  return { message };
}
