import {
  formatTimestamp,
  type Artifact,
  type JsonObject,
  type Message,
  type Task,
} from '@switchyard/protocol';
import type { TaskRecord } from '../task-store.ts';

export interface TaskViewParts {
  /** Already trimmed per historyLength; absent or empty → the key is omitted. */
  history?: Message[];
  /** Absent → the key is omitted (ListTasks without includeArtifacts, digest §7.4 rule 24). */
  artifacts?: Artifact[];
}

/**
 * The wire Task for a task row (digest §2.1), in ProtoJSON form: optional fields appear only when
 * set, never as null. The status timestamp is RFC 3339 UTC with milliseconds (digest §1).
 */
export function composeTaskView(task: TaskRecord, parts: TaskViewParts = {}): Task {
  const view: Task = {
    id: task.id,
    contextId: task.contextId,
    status: { state: task.state, timestamp: formatTimestamp(task.statusTimestamp) },
  };
  if (task.statusMessage) view.status.message = task.statusMessage;
  if (parts.artifacts) view.artifacts = parts.artifacts;
  if (parts.history?.length) view.history = parts.history;
  if (task.metadata) view.metadata = task.metadata as JsonObject;
  return view;
}
