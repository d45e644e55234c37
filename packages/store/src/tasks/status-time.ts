import { formatTimestamp, type StreamResponse } from '@switchyard/protocol';
import type { TaskPatch } from '../task-store.ts';
import { sql, type RawBuilder } from 'kysely';

/**
 * A status's time, from the database clock to the millisecond (the wire's precision): every status
 * change stores it as the row's status_timestamp and writes it into its event too (stampStatus),
 * so one transition has one timestamp wherever it is read (GetTask, ListTasks, which sorts and
 * filters on it, digest §2.1, streams, webhooks) and the times of one task's transitions follow
 * the order of their commits whichever process wrote them: a gateway's or worker's clock that
 * runs behind cannot make a status look older than the one before it. The claim does the same in
 * its own SQL (claim-task.ts).
 */
/** Whether a change sets a new status, whose time then comes from the database. */
export const changesStatus = (patch: TaskPatch): boolean =>
  patch.state !== undefined || patch.statusMessage !== undefined;

export const statusNow = (): RawBuilder<Date> => sql<Date>`date_trunc('milliseconds', now())`;

/**
 * A changed status's time in an UPDATE of `tasks`: the database's now(), but always after the
 * status it replaces. now() is the transaction's start, and a write that waited for the row lock
 * (a cancel, which takes any version) can commit after a write that started later: its status
 * would look older than the one before it, and a client polling with statusTimestampAfter would
 * never see it. A millisecond past the previous one keeps each task's times strictly increasing.
 */
export const statusAfterPrevious = (): RawBuilder<Date> =>
  sql<Date>`greatest(date_trunc('milliseconds', now()), tasks.status_timestamp + interval '1 millisecond')`;

/** `at` as the wire writes a timestamp (formatTimestamp): ISO 8601, UTC, milliseconds. */
const wireTime = (at: RawBuilder<unknown>) =>
  sql`to_jsonb(to_char(${at} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`;

/**
 * The event `payload` (jsonb) with its status's timestamp set to `at`: a statusUpdate's, or a
 * Task snapshot's (a creation's event); any other event as it is.
 */
export function stampStatus(payload: RawBuilder<unknown>, at: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`CASE
      WHEN ${payload} ? 'statusUpdate'
        THEN jsonb_set(${payload}, '{statusUpdate,status,timestamp}', ${wireTime(at)})
      WHEN ${payload} ? 'task' THEN jsonb_set(${payload}, '{task,status,timestamp}', ${wireTime(at)})
      ELSE ${payload} END`;
}

/**
 * A status event with its status's time set to `at`, the time its row got: what a writer
 * publishes in its hint after the commit, so a stream that takes the event inline sees what the
 * log holds.
 */
export function withStatusTime(event: StreamResponse, at: Date): StreamResponse {
  if (!event.statusUpdate) return event;
  const { status } = event.statusUpdate;
  return { statusUpdate: { ...event.statusUpdate, status: { ...status, timestamp: formatTimestamp(at) } } };
}
