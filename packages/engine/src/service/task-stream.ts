import { TaskEventFollower } from '@switchyard/events';
import { isTerminal, TaskState, taskNotFound, type StreamResponse, type Task } from '@switchyard/protocol';
import type { TaskRecord } from '@switchyard/store';
import type { ServiceDeps } from './service-deps.ts';

/** One event of an SSE stream: `seq` becomes the SSE `id:` (Last-Event-ID resume). */
export interface StreamItem {
  seq: number;
  response: StreamResponse;
  /**
   * The stream ends after this event. Said by the engine, which alone knows: an interrupting event
   * older than the stream's opening is history and does not end it (A2A 0.3's `final`). Set on
   * the events a stream follows; a first item (a Task or a Message, which carry no `final`) that
   * ends its stream says so through StreamStart.closes.
   */
  closes?: true;
}

/** Whether a stream ends after an event in this state (digest §7.7; configurable). */
export function closesStream(state: TaskState, deps: Pick<ServiceDeps, 'config'>): boolean {
  if (isTerminal(state)) return true;
  if (state === TaskState.INPUT_REQUIRED) return deps.config.closeStreamOnInputRequired;
  if (state === TaskState.AUTH_REQUIRED) return deps.config.closeStreamOnAuthRequired;
  return false;
}

/**
 * A Task snapshot and the version it reflects, read in one statement (so in one snapshot of the
 * database): the feed that follows it neither repeats nor skips. Re-reading until the version
 * stood still never settled while an agent streamed chunks faster than one round of reads.
 */
export async function consistentSnapshot(
  deps: Pick<ServiceDeps, 'store'>,
  record: TaskRecord,
  historyLength?: number,
): Promise<{ task: Task; version: number; state: TaskState }> {
  const snapshot = await deps.store.loadTaskSnapshot(record.tenantId, record.id, {
    ...(historyLength !== undefined ? { historyLength } : {}),
    includeArtifacts: true,
  });
  if (!snapshot) throw new Error(`task ${record.id} vanished while streaming`);
  return { task: snapshot.task, version: snapshot.record.version, state: snapshot.record.state };
}

/** Where a stream's events go after its first item. */
export interface StreamSink {
  /**
   * The next item. A sink that cannot take more now (its client's buffer is full) returns false
   * and calls `resume` once it can: until then no later event is read or pushed, so a slow client
   * costs no memory here. Items that are not events (a snapshot standing in for pruned ones) come
   * without `resume`.
   */
  item(item: StreamItem, resume?: () => void): boolean | void;
  /**
   * The stream is over: the task reached a state that closes it, or (with `err`) its log could not
   * be read. Called once, and never after the stop function `follow` returned was called.
   */
  end(err?: unknown): void;
}

/**
 * A stream that has started: its first item (the Task snapshot or the Message reply; none on a
 * Last-Event-ID resume) and then, pushed to a sink, every later event of the task until a state
 * that closes the stream. Where the log no longer holds the events after the client's id (pruned
 * by retention), the Task snapshot is pushed in their place. Push, not an async generator, because
 * an idle stream lives for hours: it holds one TaskEventFollower and this closure, no suspended
 * frames or pending promises.
 */
export interface OpenedStream {
  first: StreamItem | undefined;
  /** Starts delivering the later events; the returned function stops early (the client left). */
  follow(sink: StreamSink): () => void;
}

/** What a stream starts from: its first item (if any), then the task's events after `from`. */
export interface StreamStart {
  first?: StreamItem | undefined;
  key: { tenantId: string; id: string };
  from: number;
  /**
   * The task's last seq when it is terminal: its log is final, so events missing from it were
   * pruned (retention), and the Task snapshot stands in for them.
   */
  finalSeq?: number;
  /**
   * The task's version when the stream opened. An event before it that would close the stream (an
   * INPUT_REQUIRED the client has since answered, on a Last-Event-ID resume) is history, not the
   * task's state: the stream goes on past it. Default 0: every such event closes.
   */
  openedAt?: number;
  closes: boolean;
}

export function openedStream(deps: ServiceDeps, start: StreamStart): OpenedStream {
  const { key, from, finalSeq, closes, openedAt = 0 } = start;
  return {
    first: start.first,
    follow(sink) {
      if (closes) {
        sink.end();
        return () => undefined;
      }
      let stopped = false;
      let follower: TaskEventFollower | undefined;
      const followFrom = (afterSeq: number, lastSeq?: number) => {
        // One per follower, not one per event: called only after the sink said it is full.
        const resume = () => current.resume();
        const current = new TaskEventFollower(
          {
            hub: deps.hub,
            readEvents: (tenantId, taskId, after, limit) =>
              deps.store.readEvents(tenantId, taskId, after, limit),
            tenantId: key.tenantId,
            taskId: key.id,
            afterSeq,
            pollIntervalMs: deps.config.pollIntervalMs * 2,
            ...(deps.sweep ? { sweep: deps.sweep } : {}),
            ...(lastSeq !== undefined ? { finalSeq: lastSeq } : {}),
          },
          {
            event({ seq, payload }) {
              // A final log's last event is the terminal one; its seq ends the stream regardless.
              // (A terminal event is always a task's last, so `openedAt` never passes one over.)
              const closing = seq === lastSeq || (seq >= openedAt && closesAfter(payload, deps));
              const more = sink.item(
                { seq, response: payload, ...(closing ? { closes: true } : {}) },
                resume,
              );
              if (!closing) return more !== false;
              current.close();
              sink.end();
              return false;
            },
            failed: (err) => sink.end(err),
            // The events after the client's id are gone: the task as it stands replaces them.
            gap: () => void snapshotInstead(),
          },
        );
        follower = current;
        current.start();
      };
      const snapshotInstead = async () => {
        try {
          const record = await deps.store.getTaskRecord(key.tenantId, key.id);
          if (!record) throw taskNotFound(key.id);
          const snapshot = await consistentSnapshot(deps, record);
          if (stopped) return;
          const closing = closesStream(snapshot.state, deps);
          sink.item({
            seq: snapshot.version,
            response: { task: snapshot.task },
            ...(closing ? { closes: true } : {}),
          });
          if (closing) sink.end();
          else followFrom(snapshot.version);
        } catch (err) {
          if (!stopped) sink.end(err);
        }
      };
      followFrom(from, finalSeq);
      return () => {
        stopped = true;
        follower?.close();
      };
    },
  };
}

/**
 * An opened stream as an async generator (tests, tools): the first item, then the rest as they
 * come, buffered. The gateway does not use it: it writes each item as it is pushed.
 */
export async function* streamItems(
  opening: OpenedStream | Promise<OpenedStream>,
): AsyncGenerator<StreamItem> {
  const opened = await opening;
  if (opened.first) yield opened.first;
  const queue: StreamItem[] = [];
  let ended: { err?: unknown } | undefined;
  let wake: (() => void) | undefined;
  const stop = opened.follow({
    item(item) {
      queue.push(item);
      wake?.();
    },
    end(err) {
      ended = err === undefined ? {} : { err };
      wake?.();
    },
  });
  try {
    for (;;) {
      const item = queue.shift();
      if (item) {
        yield item;
        continue;
      }
      if (ended) {
        if ('err' in ended) throw ended.err;
        return;
      }
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  } finally {
    stop();
  }
}

/** Whether a stream ends after this event. */
export function closesAfter(event: StreamResponse, deps: Pick<ServiceDeps, 'config'>): boolean {
  const state = event.statusUpdate?.status.state ?? event.task?.status.state;
  return !!state && closesStream(state, deps);
}
