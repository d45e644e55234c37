import { taskEventFeed, type FeedEvent } from '@switchyard/events';
import { isTerminal, TaskState, type StreamResponse, type Task } from '@switchyard/protocol';
import type { TaskRecord } from '@switchyard/store';
import type { ServiceDeps } from './service-deps.ts';

/** One event of an SSE stream: `seq` becomes the SSE `id:` (Last-Event-ID resume). */
export interface StreamItem {
  seq: number;
  response: StreamResponse;
}

/** Whether a stream ends after an event in this state (digest §7.7; configurable). */
export function closesStream(state: TaskState, deps: Pick<ServiceDeps, 'config'>): boolean {
  if (isTerminal(state)) return true;
  if (state === TaskState.INPUT_REQUIRED) return deps.config.closeStreamOnInputRequired;
  if (state === TaskState.AUTH_REQUIRED) return deps.config.closeStreamOnAuthRequired;
  return false;
}

/**
 * A Task snapshot and the version it reflects, read consistently: re-read until the version did
 * not move while the view was composed, so the feed that follows neither repeats nor skips.
 */
export async function consistentSnapshot(
  deps: Pick<ServiceDeps, 'store'>,
  record: TaskRecord,
  historyLength?: number,
): Promise<{ task: Task; version: number; state: TaskState }> {
  let current = record;
  for (;;) {
    const view = await deps.store.loadTaskView(current.tenantId, current.id, {
      ...(historyLength !== undefined ? { historyLength } : {}),
      includeArtifacts: true,
    });
    const after = await deps.store.getTaskRecord(current.tenantId, current.id);
    if (!view || !after) throw new Error(`task ${current.id} vanished while streaming`);
    if (after.version === current.version)
      return { task: view, version: current.version, state: current.state };
    current = after;
  }
}

/** The task's events after `afterSeq` until the signal aborts; see closesAfter for where to stop. */
export function taskFeed(
  deps: ServiceDeps,
  record: Pick<TaskRecord, 'tenantId' | 'id'>,
  afterSeq: number,
  signal: AbortSignal,
): AsyncGenerator<FeedEvent> {
  return taskEventFeed({
    hub: deps.hub,
    readEvents: (tenantId, taskId, after, limit) => deps.store.readEvents(tenantId, taskId, after, limit),
    tenantId: record.tenantId,
    taskId: record.id,
    afterSeq,
    pollIntervalMs: deps.config.pollIntervalMs * 2,
    ...(deps.sweep ? { sweep: deps.sweep } : {}),
    signal,
  });
}

/** Whether a stream ends after this event. */
export function closesAfter(event: StreamResponse, deps: Pick<ServiceDeps, 'config'>): boolean {
  const state = event.statusUpdate?.status.state ?? event.task?.status.state;
  return !!state && closesStream(state, deps);
}
