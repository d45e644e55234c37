import type { JsonObject, OneOf } from './common.ts';
import type { Message } from './message.ts';
import type { Artifact, Task, TaskStatus } from './task.ts';

/** TaskStatusUpdateEvent (digest §2.3). No `final` in 1.0: the transport closing ends a stream. */
export interface TaskStatusUpdateEvent {
  taskId: string;
  contextId: string;
  status: TaskStatus;
  metadata?: JsonObject;
}

/** TaskArtifactUpdateEvent (digest §2.3). No `index` field, despite `whats-new-v1.md`. */
export interface TaskArtifactUpdateEvent {
  taskId: string;
  contextId: string;
  artifact: Artifact;
  /** Append this chunk's parts to the artifact already sent with the same `artifactId`. */
  append?: boolean;
  /** This is the artifact's final chunk. */
  lastChunk?: boolean;
  metadata?: JsonObject;
}

/** Every streamed item and every webhook body: `{task}` | `{message}` | `{statusUpdate}` | `{artifactUpdate}`. */
export type StreamResponse = OneOf<{
  task: Task;
  message: Message;
  statusUpdate: TaskStatusUpdateEvent;
  artifactUpdate: TaskArtifactUpdateEvent;
}>;

/** SendMessage result: `{task}` or `{message}` (wrapped; v0.3 returned the object bare). */
export type SendMessageResponse = OneOf<{ task: Task; message: Message }>;
