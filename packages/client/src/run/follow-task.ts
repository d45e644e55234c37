import { isA2AErrorOfKind, type Task, type TaskStatus } from '@switchyard/protocol';
import { NetworkError } from '../errors/network-error.ts';
import { fullJitterDelay, sleep } from '../retry/backoff.ts';
import { isTransient } from '../retry/retry-policy.ts';
import type { A2ATransport, StreamEvent } from '../transport/transport.ts';
import {
  DEFAULT_MAX_POLL_FAILURES,
  DEFAULT_MAX_STREAM_FAILURES,
  DEFAULT_POLL_BACKOFF,
  DEFAULT_RECONNECT_BACKOFF,
  type FollowOptions,
} from './run-options.ts';
import { isSettled } from './settled.ts';
import { TaskTracker } from './task-tracker.ts';

export interface FollowContext {
  transport: A2ATransport;
  taskId: string;
  /** The card declares streaming and the caller did not turn it off. */
  streaming: boolean;
  options: FollowOptions;
  signal: AbortSignal;
  /** Shared with the caller, which reports the last seen task on timeout. */
  holder: { tracker?: TaskTracker };
  /**
   * After a follow-up message the task may still show the interrupted status it had before the
   * server took the message in; that exact status (statusKey) does not count as settled.
   */
  staleStatus?: string | undefined;
}

/** Identifies one status: state, timestamp and status message. */
export function statusKey(status: TaskStatus): string {
  return `${status.state}|${status.timestamp ?? ''}|${status.message?.messageId ?? ''}`;
}

function isDone(ctx: FollowContext, task: Task | undefined): boolean {
  if (!task || !isSettled(task.status.state)) return false;
  return ctx.staleStatus === undefined || statusKey(task.status) !== ctx.staleStatus;
}

/**
 * Follows a task until it settles: subscribe; on any disconnect resume with Last-Event-ID (events
 * already seen are dropped by id, so a server that ignores the header causes no duplicates; ids
 * count only until the next Task snapshot, since some servers number each connection's events
 * from 0 again, and what follows a snapshot is newer than it anyway);
 * after `maxStreamFailures` connections in a row that brought nothing new (no event that changed
 * the tracked task), or when the server
 * says streaming is unsupported, poll GetTask with full-jitter backoff. Returns a fresh GetTask of
 * the settled task.
 */
export async function followTask(ctx: FollowContext): Promise<Task> {
  const { transport, taskId, options, signal, holder } = ctx;
  const current = holder.tracker?.task;
  if (current && isDone(ctx, current)) return current;
  const emit = (event: StreamEvent) => {
    if (!holder.tracker) {
      if (!event.response.task) return;
      holder.tracker = new TaskTracker(event.response.task);
    } else {
      holder.tracker.apply(event);
    }
    options.onEvent?.(event);
  };
  if (!ctx.streaming) {
    options.onNotice?.({ type: 'polling', reason: 'streaming is off or not offered by the agent' });
    return poll(ctx, emit);
  }
  const maxFailures = options.maxStreamFailures ?? DEFAULT_MAX_STREAM_FAILURES;
  const seen = new Set<string>();
  let lastEventId: string | undefined;
  let failures = 0;
  for (;;) {
    let delivered = false;
    let lastError: unknown;
    try {
      for await (const event of transport.subscribeToTask(taskId, { lastEventId, signal })) {
        // A snapshot restates the task; what follows it is newer, whatever ids it carries.
        if (event.response.task) seen.clear();
        if (event.id !== undefined) {
          if (seen.has(event.id)) continue;
          seen.add(event.id);
          lastEventId = event.id;
        }
        const before = holder.tracker ? changeKey(holder.tracker.task) : undefined;
        emit(event);
        // Only news counts: a server that ends each stream after restating the same snapshot
        // (Switchyard closes at INPUT_REQUIRED) must not keep the polling fallback away forever.
        if (holder.tracker && changeKey(holder.tracker.task) !== before) delivered = true;
        if (isDone(ctx, holder.tracker?.task)) return await finalRead(ctx);
      }
      lastError = new NetworkError('the stream ended before the task settled');
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      // A terminal task has nothing to stream (digest §7.6 rule 30); neither has an agent without streaming.
      // The notice waits for the first read: a task that settled before the subscribe is no news.
      if (isA2AErrorOfKind(err, 'UnsupportedOperation')) return poll(ctx, emit, err.message);
      if (!isTransient(err)) throw err;
      lastError = err;
    }
    failures = delivered ? 1 : failures + 1;
    if (failures >= maxFailures) break;
    const delayMs = fullJitterDelay(failures - 1, options.reconnectBackoff ?? DEFAULT_RECONNECT_BACKOFF);
    options.onNotice?.({ type: 'reconnecting', attempt: failures, delayMs, lastEventId, error: lastError });
    await sleep(delayMs, signal);
  }
  options.onNotice?.({ type: 'polling', reason: `the stream failed ${failures} times in a row` });
  return poll(ctx, emit);
}

/**
 * GetTask until settled; a poll that shows a change is emitted as a Task event and resets the
 * backoff. `pollingBecause`, when given, is noticed only if the first read leaves the task unsettled.
 */
async function poll(
  ctx: FollowContext,
  emit: (event: StreamEvent) => void,
  pollingBecause?: string,
): Promise<Task> {
  const { transport, taskId, options, signal, holder } = ctx;
  const backoff = options.pollBackoff ?? DEFAULT_POLL_BACKOFF;
  const maxFailures = options.maxPollFailures ?? DEFAULT_MAX_POLL_FAILURES;
  let lastKey = holder.tracker ? changeKey(holder.tracker.task) : '';
  let failures = 0;
  for (let attempt = 0; ; attempt++) {
    try {
      const task = await transport.getTask(taskId, { signal });
      const key = changeKey(task);
      if (key !== lastKey) {
        lastKey = key;
        attempt = 0;
        emit({ response: { task } });
      }
      failures = 0;
      if (isDone(ctx, task)) return task;
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      if (!isTransient(err) || ++failures >= maxFailures) throw err;
    }
    if (pollingBecause !== undefined) options.onNotice?.({ type: 'polling', reason: pollingBecause });
    pollingBecause = undefined;
    await sleep(fullJitterDelay(attempt, backoff), signal);
  }
}

/** The settled task as the server has it (all artifacts and history); the tracked copy if that read fails. */
async function finalRead(ctx: FollowContext): Promise<Task> {
  try {
    return await ctx.transport.getTask(ctx.taskId, { signal: ctx.signal });
  } catch (err) {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    const tracked = ctx.holder.tracker?.task;
    if (isTransient(err) && tracked) return tracked;
    throw err;
  }
}

/** What makes a task read as changed: its status (statusKey) and how many parts each artifact has. */
function changeKey(task: Task): string {
  const parts = (task.artifacts ?? []).map((a) => `${a.artifactId}:${a.parts.length}`).join(',');
  return `${statusKey(task.status)}|${parts}`;
}
