import type { StreamResponse } from '@switchyard/protocol';
import type { Db } from '../db.ts';
import type { StoredEvent } from '../task-store.ts';
import { isTaskId } from './task-row.ts';

/** Default page of the log: enough for any resume, bounded so a long log cannot flood memory. */
export const DEFAULT_EVENT_LIMIT = 1000;

/**
 * A task's events after `afterSeq`, in order: what SSE resume (Last-Event-ID) and a subscriber that
 * saw a gap in the hints read (ARCHITECTURE.md §3 rule 3). Tenant-scoped like every read.
 */
export async function readEvents(
  db: Db,
  tenantId: string,
  taskId: string,
  afterSeq: number,
  limit = DEFAULT_EVENT_LIMIT,
): Promise<StoredEvent[]> {
  if (!isTaskId(taskId)) return [];
  const rows = await db
    .selectFrom('task_events')
    .select(['seq', 'payload', 'created_at'])
    .where('tenant_id', '=', tenantId)
    .where('task_id', '=', taskId)
    .where('seq', '>', afterSeq)
    .orderBy('seq')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ seq: r.seq, payload: r.payload as StreamResponse, createdAt: r.created_at }));
}
