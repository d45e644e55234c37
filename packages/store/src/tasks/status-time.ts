import type { StreamResponse } from '@switchyard/protocol';
import { sql, type RawBuilder } from 'kysely';

/**
 * The time a status event gives its status, as the row's status_timestamp: one transition has one
 * timestamp, whether it is read from GetTask, ListTasks (which sorts and filters on it, digest
 * §2.1), a stream or a webhook. The row used to take the database's now() while the event kept
 * the writer's clock, so the two differed by a millisecond or so. Null when the event has no
 * status time or one that does not parse; the row then takes now() (statusTimeOrNow).
 */
export function statusTimeOf(event: StreamResponse | undefined): Date | null {
  const stamp = event?.statusUpdate?.status.timestamp ?? event?.task?.status.timestamp;
  if (!stamp) return null;
  const at = new Date(stamp);
  return Number.isNaN(at.getTime()) ? null : at;
}

/** `coalesce(at, now())`: the event's status time (statusTimeOf), or the database's clock. */
export function statusTimeOrNow(at: Date | null): RawBuilder<Date> {
  return sql<Date>`coalesce(${at}::timestamptz, now())`;
}
