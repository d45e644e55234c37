import type { StreamResponse } from '@switchyard/protocol';
import type { Db } from '../db.ts';
import type { TaskEventsTable } from '../database.ts';
import type { Visibility } from '../task-store.ts';
import { insertPushDeliveries } from './insert-push-deliveries.ts';
import { jsonb } from './task-row.ts';

type EventKind = TaskEventsTable['kind'];
const KINDS: readonly EventKind[] = ['task', 'message', 'statusUpdate', 'artifactUpdate'];

/** The StreamResponse oneof member name is the event kind (digest §1: the member is the discriminator). */
export function eventKind(event: StreamResponse): EventKind {
  const kind = KINDS.find((k) => event[k] !== undefined);
  if (!kind)
    throw new TypeError('event is not a StreamResponse (no task/message/statusUpdate/artifactUpdate member)');
  return kind;
}

export interface AppendEventInput {
  tenantId: string;
  taskId: string;
  /** The task version the change produced (ARCHITECTURE.md §3 rule 3: version N is event N). */
  seq: number;
  event: StreamResponse;
  /** The task's visibility after the change: only visible tasks feed the push outbox. */
  visibility: Visibility;
}

/**
 * Appends one event and its push outbox rows. Call it inside the transaction of the guarded change
 * that produced `seq`, so the change, the log and the outbox commit or vanish together.
 */
export async function appendEvent(tx: Db, input: AppendEventInput): Promise<void> {
  await tx
    .insertInto('task_events')
    .values({
      tenant_id: input.tenantId,
      task_id: input.taskId,
      seq: input.seq,
      kind: eventKind(input.event),
      payload: jsonb(input.event),
    })
    .execute();
  if (input.visibility === 'task') await insertPushDeliveries(tx, input.tenantId, input.taskId, input.seq);
}
