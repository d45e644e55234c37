import type { StreamResponse } from '@switchyard/protocol';
import type { SubscriptionHub } from './subscription-hub.ts';

/** The part of the hub a feed uses. */
export type HintWatcher = Pick<SubscriptionHub, 'watch'>;
import type { TaskHint } from './task-hint.ts';
import type { VersionSweep } from './version-sweep.ts';

export interface FeedEvent {
  seq: number;
  payload: StreamResponse;
}

/** The narrow port into the event log (the store's readEvents). */
export type ReadEvents = (
  tenantId: string,
  taskId: string,
  afterSeq: number,
  limit: number,
) => Promise<FeedEvent[]>;

export interface TaskEventFeedOptions {
  hub: HintWatcher;
  readEvents: ReadEvents;
  tenantId: string;
  taskId: string;
  /** Deliver events with seq > afterSeq. */
  afterSeq: number;
  /** Fallback read of the log when no hint arrives, so a lost hint only delays. Default 2000 ms. */
  pollIntervalMs?: number;
  /**
   * The process's shared version sweep: when given, it replaces the per-feed timer, and the log is
   * read only when the sweep saw the task past what this feed delivered.
   */
  sweep?: Pick<VersionSweep, 'track'>;
  signal?: AbortSignal;
}

/**
 * Every event of one task after `afterSeq`, in order, exactly once. Hints wake it; an in-step hint
 * with an inline payload is used directly, anything else (a gap, a resync, a timeout) reads the
 * log. The feed is pull-based: it reads only when its consumer asks for more, so a slow consumer
 * never makes it buffer without bound.
 */
export async function* taskEventFeed(options: TaskEventFeedOptions): AsyncGenerator<FeedEvent> {
  const { hub, readEvents, tenantId, taskId, pollIntervalMs = 2000, sweep, signal } = options;
  let last = options.afterSeq;
  const inline = new Map<number, StreamResponse>();
  let wake: (() => void) | null = null;
  let dirty = true;
  const onHint = (hint: TaskHint | 'resync') => {
    if (hint !== 'resync' && hint.seq <= last) return;
    // Inline a payload only when it continues what we hold; anything else is read from the log.
    // A hint whose events are all inlined needs no read: reading anyway cost one log read per
    // event per open stream.
    const continues = (seq: number) => seq === last + 1 || inline.has(seq - 1);
    let inlined = false;
    if (hint !== 'resync') {
      if (hint.before && hint.before.seq > last && continues(hint.before.seq)) {
        inline.set(hint.before.seq, hint.before.payload);
      }
      if (hint.payload && continues(hint.seq)) {
        inline.set(hint.seq, hint.payload);
        inlined = true;
      }
    }
    if (!inlined) dirty = true;
    wake?.();
  };
  const unwatch = hub.watch(tenantId, taskId, onHint);
  const untrack = sweep?.track(tenantId, taskId, (version) => {
    if (version <= last) return;
    dirty = true;
    wake?.();
  });
  const onAbort = () => wake?.();
  signal?.addEventListener('abort', onAbort);
  try {
    while (!signal?.aborted) {
      for (const seq of inline.keys()) if (seq <= last) inline.delete(seq);
      // Fast path: hints that arrived in order with their payload.
      let next = inline.get(last + 1);
      while (next) {
        inline.delete(last + 1);
        last += 1;
        yield { seq: last, payload: next };
        next = inline.get(last + 1);
      }
      if (dirty) {
        dirty = false;
        inline.clear();
        const events = await readEvents(tenantId, taskId, last, 500);
        for (const e of events) {
          if (e.seq !== last + 1) break; // never skip: re-read on the next round
          last = e.seq;
          yield e;
        }
        if (events.length === 500) dirty = true;
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = sweep
          ? undefined
          : setTimeout(() => {
              dirty = true;
              resolve();
            }, pollIntervalMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    untrack?.();
    unwatch();
  }
}
