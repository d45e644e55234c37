import { isInterrupted, isTerminal, type TaskState } from '../task-state.ts';
import type {
  SendMessageResponse,
  StreamResponse,
  TaskArtifactUpdateEvent,
  TaskStatusUpdateEvent,
} from '../types/events.ts';
import { invalidAgentResponse } from '../errors/factories.ts';
import {
  fromV03Artifact,
  fromV03Message,
  fromV03Task,
  fromV03TaskStatus,
  toV03Artifact,
  toV03Message,
  toV03Task,
  toV03TaskStatus,
} from './objects.ts';
import { compact, recordOf } from './shape.ts';
import type {
  SendResultV03,
  StreamResultV03,
  TaskArtifactUpdateEventV03,
  TaskStatusUpdateEventV03,
} from './types.ts';

/**
 * 1.0 StreamResponse wrapper → a bare 0.3 stream result with `kind` (digest §13.1, §13.3).
 * `final` is gone in 1.0: it says the stream ends with this event, which by default is at a
 * terminal or interrupted state; a server that keeps streams open at some interrupted state passes
 * `endsStream`, so a 0.3 client that stops reading at `final` does not stop at an event after
 * which more come.
 */
export function toV03StreamResult(
  response: StreamResponse,
  endsStream: (state: TaskState) => boolean = endsAtInterruption,
): StreamResultV03 {
  if (response.task !== undefined) return toV03Task(response.task);
  if (response.message !== undefined) return toV03Message(response.message);
  if (response.statusUpdate !== undefined) return toV03StatusUpdate(response.statusUpdate, endsStream);
  return toV03ArtifactUpdate(response.artifactUpdate);
}

/** 0.3 stream result → 1.0 StreamResponse; an unknown `kind` is InvalidAgentResponse. */
export function fromV03StreamResult(result: StreamResultV03): StreamResponse {
  switch (recordOf(result)?.['kind']) {
    case 'task':
    case 'message':
      return fromV03SendResult(result as SendResultV03);
    case 'status-update': {
      const { kind: _kind, final: _final, ...event } = result as TaskStatusUpdateEventV03;
      return { statusUpdate: compact({ ...event, status: fromV03TaskStatus(event.status) }) };
    }
    case 'artifact-update': {
      const { kind: _kind, ...event } = result as TaskArtifactUpdateEventV03;
      return { artifactUpdate: compact({ ...event, artifact: fromV03Artifact(event.artifact) }) };
    }
    default:
      throw invalidAgentResponse('a 0.3 stream event has no known kind');
  }
}

/** SendMessageResponse `{task}`/`{message}` → the bare 0.3 object (digest §13.1 message/send). */
export function toV03SendResult(response: SendMessageResponse): SendResultV03 {
  return response.task !== undefined ? toV03Task(response.task) : toV03Message(response.message);
}

export function fromV03SendResult(result: SendResultV03): SendMessageResponse {
  switch (recordOf(result)?.['kind']) {
    case 'task':
      return { task: fromV03Task(result as Extract<SendResultV03, { kind: 'task' }>) };
    case 'message':
      return { message: fromV03Message(result as Extract<SendResultV03, { kind: 'message' }>) };
    default:
      throw invalidAgentResponse('a 0.3 message/send result is neither a task nor a message');
  }
}

const endsAtInterruption = (state: TaskState): boolean => isTerminal(state) || isInterrupted(state);

function toV03StatusUpdate(
  event: TaskStatusUpdateEvent,
  endsStream: (state: TaskState) => boolean,
): TaskStatusUpdateEventV03 {
  return compact({
    kind: 'status-update',
    taskId: event.taskId,
    contextId: event.contextId,
    status: toV03TaskStatus(event.status),
    final: endsStream(event.status.state),
    metadata: event.metadata,
  });
}

function toV03ArtifactUpdate(event: TaskArtifactUpdateEvent): TaskArtifactUpdateEventV03 {
  return compact({ kind: 'artifact-update', ...event, artifact: toV03Artifact(event.artifact) });
}
