import type { StoredEvent, TaskDeliveries, TaskRecord } from '@switchyard/store';
import type { ConsoleServices } from '../console-services.ts';
import {
  compareEntries,
  entryFromChunk,
  entryFromEvent,
  entryFromMessage,
  gapEntry,
  type TimelineEntry,
} from './timeline-entry.ts';

/** Push deliveries the task page lists (the latest; the rest are counted). */
export const SHOWN_DELIVERIES = 100;
/** Events, history messages and artifact chunks the timeline reads at most, each. */
const TIMELINE_EVENTS = 1000;
const TIMELINE_MESSAGES = 500;
const TIMELINE_CHUNKS = 1000;

/** Everything the task page shows, read at one moment. */
export interface TaskTimeline {
  record: TaskRecord;
  entries: TimelineEntry[];
  deliveries: TaskDeliveries;
  /** Highest event seq shown: the live stream continues after it. */
  lastSeq: number;
  /** Highest history position shown. */
  lastPosition: number;
  /**
   * The task has more than the timeline read (TIMELINE_EVENTS events, TIMELINE_MESSAGES messages
   * or TIMELINE_CHUNKS chunks): the entries are its beginning only. The page's live stream goes on
   * from `lastSeq`; a script reading the API is told so instead of taking the start for the whole.
   */
  truncated: boolean;
}

/**
 * A task's timeline from the durable records: the event log (status changes, artifact chunks,
 * Message replies), the history (with storage times), the artifact chunks the log no longer holds
 * (retention prunes events first), and the push deliveries (the latest, and counts).
 */
export async function loadTimeline(
  services: Pick<ConsoleServices, 'tasks' | 'reads'>,
  tenantId: string,
  taskId: string,
): Promise<TaskTimeline | null> {
  const record = await services.tasks.getTaskRecord(tenantId, taskId);
  if (!record) return null;
  const [logged, messages, chunks, deliveries] = await Promise.all([
    services.tasks.readEvents(tenantId, taskId, 0, TIMELINE_EVENTS),
    services.reads.listTaskMessages(tenantId, taskId, { limit: TIMELINE_MESSAGES }),
    services.reads.listArtifactChunks(tenantId, taskId, TIMELINE_CHUNKS),
    services.reads.listTaskDeliveries(tenantId, taskId, SHOWN_DELIVERIES),
  ]);
  // The task may move on between the row and the log reads. The page shows the row's version:
  // events after it are left to the live stream, which starts after `lastSeq`, so the summary and
  // the timeline never disagree (a newer event shown here would never bring its row).
  const events = logged.filter((e) => e.seq <= record.version);
  const shownChunks = chunks.filter((c) => c.seq <= record.version);
  // A continuation moves the question the task asked into its history; the log's status event
  // already shows it (here, or through the live stream when it is newer than the row read), so it
  // is listed once, unless retention pruned that event.
  const asked = new Set(
    logged.flatMap((e) => {
      const m = e.payload.statusUpdate?.status.message ?? e.payload.task?.status.message;
      return m ? [m.messageId] : [];
    }),
  );
  const entries = composeEntries(
    record,
    events,
    messages
      .filter((m) => m.message.role !== 'ROLE_AGENT' || !asked.has(m.message.messageId))
      .map(entryFromMessage),
    shownChunks.map(entryFromChunk),
  );
  return {
    record,
    entries,
    deliveries,
    lastSeq: events.at(-1)?.seq ?? 0,
    lastPosition: messages.at(-1)?.position ?? -1,
    truncated:
      logged.length >= TIMELINE_EVENTS ||
      messages.length >= TIMELINE_MESSAGES ||
      chunks.length >= TIMELINE_CHUNKS,
  };
}

function composeEntries(
  record: TaskRecord,
  events: StoredEvent[],
  messages: TimelineEntry[],
  chunks: TimelineEntry[],
): TimelineEntry[] {
  const fromLog = events.map((e) => entryFromEvent(e.seq, e.payload, e.createdAt));
  const logged = new Set(fromLog.map((e) => e.key));
  const entries = [...fromLog, ...messages, ...chunks.filter((c) => !logged.has(c.key))];
  const first = events[0]?.seq;
  if (first === undefined ? record.version > 0 : first > 1) {
    entries.push(gapEntry(0, (first ?? record.version + 1) - 1, record.createdAt));
  }
  return entries.sort(compareEntries);
}
