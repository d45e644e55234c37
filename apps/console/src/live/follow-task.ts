import { taskEventFeed, type FeedEvent } from '@switchyard/events';
import type { TaskRecord } from '@switchyard/store';
import type { ConsoleServices } from '../console-services.ts';
import {
  entryFromEvent,
  entryFromMessage,
  eventTime,
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
  /** The task row after each event (state, version, lease changed). */
  onRecord(record: TaskRecord, seq: number): void;
}

const LIVE_ORDER = { gap: 0, created: 1, message: 2, status: 3, artifact: 3, reply: 3 } as const;

/**
 * A task's timeline as it grows, on the same gap-free feed the gateway's SSE uses (SubscriptionHub
 * hints, the Postgres log when a hint is missing): each event becomes an entry, plus any history
 * message stored in the same transaction (a continuation), then the fresh row. Ends when the
 * signal aborts.
 */
export async function followTask(services: ConsoleServices, options: FollowOptions): Promise<void> {
  const { tenantId, taskId, signal } = options;
  let lastPosition = options.afterPosition;
  const feed = taskEventFeed({
    hub: services.hub,
    readEvents: (t, id, after, limit) => services.tasks.readEvents(t, id, after, limit),
    tenantId,
    taskId,
    afterSeq: options.afterSeq,
    pollIntervalMs: services.config.CONSOLE_LIVE_POLL_MS,
    signal,
  });
  for await (const event of feed) {
    const batch = [entryFromEvent(event.seq, event.payload, eventTime(event.payload, storedAt(event)))];
    const messages = await services.reads.listTaskMessages(tenantId, taskId, { afterPosition: lastPosition });
    for (const m of messages) {
      lastPosition = m.position;
      // An agent's message in the history is the question a continuation moved there: its status
      // event came earlier and is already on the page.
      if (m.message.role !== 'ROLE_AGENT') batch.push(entryFromMessage(m));
    }
    options.onEntries(batch.sort((a, b) => LIVE_ORDER[a.kind] - LIVE_ORDER[b.kind]));
    const record = await services.tasks.getTaskRecord(tenantId, taskId);
    if (record) options.onRecord(record, event.seq);
  }
}

/** Events read from the log carry their storage time; events inlined in a hint do not. */
function storedAt(event: FeedEvent): Date | undefined {
  const at: unknown = (event as FeedEvent & { createdAt?: unknown }).createdAt;
  return at instanceof Date ? at : undefined;
}
