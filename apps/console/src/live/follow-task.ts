import { TaskEventFollower, type FeedEvent } from '@switchyard/events';
import { isTerminal } from '@switchyard/protocol';
import type { TaskRecord } from '@switchyard/store';
import type { ConsoleServices } from '../console-services.ts';
import {
  entryFromEvent,
  entryFromMessage,
  eventTime,
  gapEntry,
  type TimelineEntry,
} from '../timeline/timeline-entry.ts';

export interface FollowOptions {
  tenantId: string;
  taskId: string;
  /** Events after this seq. */
  afterSeq: number;
  /** History messages after this position. */
  afterPosition: number;
  signal: AbortSignal;
  /** New timeline entries, in order. */
  onEntries(entries: TimelineEntry[]): void;
  /**
   * The task row after each event (state, version, lease changed), with the seq shown up to. When
   * the log turns out pruned to its end, once more with `seq` = the row's version: nothing more to
   * read.
   */
  onRecord(record: TaskRecord, seq: number): void;
}

const LIVE_ORDER = { gap: 0, created: 1, message: 2, status: 3, artifact: 3, reply: 3 } as const;

/**
 * A task's timeline as it grows, on the same gap-free follower the gateway's SSE uses
 * (SubscriptionHub hints, the Postgres log when a hint is missing): each event becomes an entry,
 * plus any history message stored in the same transaction (a continuation), then the fresh row.
 * Ends when the signal aborts, or once the task is terminal and its log has nothing more to read:
 * its last event shown, or the rest pruned by retention (a finished task's log is final, so
 * missing events are never coming; they are noted instead of waited for).
 */
export async function followTask(services: ConsoleServices, options: FollowOptions): Promise<void> {
  const { tenantId, taskId, signal } = options;
  const opened = await services.tasks.getTaskRecord(tenantId, taskId);
  if (!opened) return;
  const finalSeq = isTerminal(opened.state) ? opened.version : undefined;
  let after = options.afterSeq;
  let lastPosition = options.afterPosition;

  /** Shows one event; true when it was the task's last (terminal, at its version). */
  const show = async (event: FeedEvent): Promise<boolean> => {
    const batch = [entryFromEvent(event.seq, event.payload, eventTime(event.payload, storedAt(event)))];
    const messages = await services.reads.listTaskMessages(tenantId, taskId, { afterPosition: lastPosition });
    for (const m of messages) {
      lastPosition = m.position;
      // An agent's message in the history is the question a continuation moved there: its status
      // event came earlier and is already on the page.
      if (m.message.role !== 'ROLE_AGENT') batch.push(entryFromMessage(m));
    }
    if (signal.aborted) return true;
    options.onEntries(batch.sort((a, b) => LIVE_ORDER[a.kind] - LIVE_ORDER[b.kind]));
    const record = await services.tasks.getTaskRecord(tenantId, taskId);
    if (!record || signal.aborted) return true;
    options.onRecord(record, event.seq);
    return isTerminal(record.state) && event.seq >= record.version;
  };

  while (!signal.aborted && (finalSeq === undefined || after < finalSeq)) {
    const gapAfter = await followFrom(services, options, after, finalSeq, show);
    if (gapAfter === undefined || signal.aborted) return;
    // The log does not continue after `gapAfter`: show what is left of it, if anything, after a note.
    const [next] = await services.tasks.readEvents(tenantId, taskId, gapAfter, 1);
    const record = await services.tasks.getTaskRecord(tenantId, taskId);
    if (!record || signal.aborted) return;
    after = next ? next.seq - 1 : record.version;
    if (after > gapAfter) options.onEntries([gapEntry(gapAfter, after - gapAfter, record.updatedAt, true)]);
    if (!next) return options.onRecord(record, record.version);
  }
}

/**
 * One TaskEventFollower from `after`, each event shown before the next is taken. Resolves with the
 * seq a pruned log stops at (FeedSink.gap), or undefined when done (aborted, or the last event).
 */
function followFrom(
  services: ConsoleServices,
  { tenantId, taskId, signal }: FollowOptions,
  after: number,
  finalSeq: number | undefined,
  show: (event: FeedEvent) => Promise<boolean>,
): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const settle = (end: () => void) => {
      signal.removeEventListener('abort', onAbort);
      follower.close();
      end();
    };
    const onAbort = () => settle(() => resolve(undefined));
    const follower = new TaskEventFollower(
      {
        hub: services.hub,
        readEvents: (t, id, from, limit) => services.tasks.readEvents(t, id, from, limit),
        tenantId,
        taskId,
        afterSeq: after,
        pollIntervalMs: services.config.CONSOLE_LIVE_POLL_MS,
        ...(finalSeq !== undefined ? { finalSeq } : {}),
      },
      {
        event(event) {
          // Paused until the entry is shown: the follower reads nothing ahead meanwhile.
          show(event).then(
            (last) => (last ? settle(() => resolve(undefined)) : follower.resume()),
            (err: unknown) => settle(() => reject(err)),
          );
          return false;
        },
        failed: (err) => settle(() => reject(err)),
        gap: (gapAfter) => settle(() => resolve(gapAfter)),
      },
    );
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) return onAbort();
    follower.start();
  });
}

/** Events read from the log carry their storage time; events inlined in a hint do not. */
function storedAt(event: FeedEvent): Date | undefined {
  const at: unknown = (event as FeedEvent & { createdAt?: unknown }).createdAt;
  return at instanceof Date ? at : undefined;
}
