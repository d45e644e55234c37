import type { JsonObject } from '../types/common.ts';
import type { Message } from '../types/message.ts';
import type { Artifact, Task, TaskStatus } from '../types/task.ts';
import { fromV03Role, fromV03TaskState, toV03Role, toV03TaskState } from './enums.ts';
import { fromV03Part, toV03Part } from './parts.ts';
import { compact, mapArray, recordOf } from './shape.ts';
import type { ArtifactV03, MessageV03, TaskStatusV03, TaskV03 } from './types.ts';

// Message, TaskStatus, Artifact and Task (digest §13.3): the same fields in both versions, except
// `kind`, the lowercase enums and the part shapes.

export function toV03Message(message: Message): MessageV03 {
  return compact({
    kind: 'message',
    messageId: message.messageId,
    contextId: message.contextId,
    taskId: message.taskId,
    role: toV03Role(message.role),
    parts: message.parts.map(toV03Part),
    metadata: message.metadata,
    extensions: message.extensions,
    referenceTaskIds: message.referenceTaskIds,
  });
}

export function fromV03Message(message: MessageV03): Message {
  const m = recordOf(message);
  if (!m) return message as unknown as Message;
  const { kind: _kind, role, parts, ...rest } = m as unknown as MessageV03;
  return compact({ ...rest, role: fromV03Role(role), parts: mapArray(parts, fromV03Part) }) as Message;
}

export function toV03TaskStatus(status: TaskStatus): TaskStatusV03 {
  return compact({
    state: toV03TaskState(status.state),
    message: status.message && toV03Message(status.message),
    timestamp: status.timestamp,
  });
}

export function fromV03TaskStatus(status: TaskStatusV03): TaskStatus {
  const s = recordOf(status) as TaskStatusV03 | undefined;
  if (!s) return status as unknown as TaskStatus;
  return compact({
    state: fromV03TaskState(s.state),
    message: s.message && fromV03Message(s.message),
    timestamp: s.timestamp,
  });
}

export function toV03Artifact(artifact: Artifact): ArtifactV03 {
  return compact({ ...artifact, parts: artifact.parts.map(toV03Part) });
}

export function fromV03Artifact(artifact: ArtifactV03): Artifact {
  const a = recordOf(artifact) as ArtifactV03 | undefined;
  if (!a) return artifact as unknown as Artifact;
  return compact({ ...a, parts: mapArray(a.parts, fromV03Part) }) as Artifact;
}

/** `contextId` is required in 0.3; 1.0 tasks always carry one here (digest §12 #18). */
export function toV03Task(task: Task): TaskV03 {
  return compact({
    kind: 'task',
    id: task.id,
    contextId: task.contextId ?? '',
    status: toV03TaskStatus(task.status),
    artifacts: task.artifacts?.map(toV03Artifact),
    history: task.history?.map(toV03Message),
    metadata: task.metadata,
  });
}

export function fromV03Task(task: TaskV03): Task {
  const t = recordOf(task) as TaskV03 | undefined;
  if (!t) return task as unknown as Task;
  return compact({
    id: t.id,
    contextId: t.contextId,
    status: fromV03TaskStatus(t.status),
    artifacts: mapArray(t.artifacts, fromV03Artifact),
    history: mapArray(t.history, fromV03Message),
    metadata: t.metadata as JsonObject | undefined,
  });
}
