import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { toDeliveryRecord } from '../outbox/delivery-rows.ts';
import { NOT_PENDING } from '../outbox/not-pending.ts';
import type { DeliveryRecord, DeliveryStatus } from '../outbox/outbox-store.ts';
import { isTaskId } from '../tasks/task-row.ts';

/** Deliveries counted per status for the task page, at most; a task with more shows none. */
export const TASK_DELIVERY_COUNT_CAP = 10_000;

/** What the console's task page shows of a task's push deliveries: a bounded read, however many. */
export interface TaskDeliveries {
  /** The latest `limit` deliveries (by event seq, then config id), oldest first. */
  latest: DeliveryRecord[];
  /** How many are in each status; null when the task has more than `cap` deliveries. */
  counts: Record<DeliveryStatus, number> | null;
  /** Whether any delivery of the task is still pending (exact, whatever the count). */
  pending: boolean;
}

/**
 * One task's push deliveries for the console, bounded: a task streaming many small artifact chunks
 * to a few webhooks has one delivery per (config, event), hundreds of thousands of them, and a
 * live page re-reads this every poll. The latest are one backward probe of the primary key per
 * config (push_configs holds every config a delivery names: they cascade); the counts read at most
 * `cap` + 1 rows; "any pending" is one probe of push_deliveries_pending_order.
 */
export async function listTaskDeliveries(
  db: Db,
  tenantId: string,
  taskId: string,
  limit: number,
  cap = TASK_DELIVERY_COUNT_CAP,
): Promise<TaskDeliveries> {
  if (!isTaskId(taskId)) return { latest: [], counts: { pending: 0, delivered: 0, dead: 0 }, pending: false };
  const latest = await db
    .selectFrom('push_configs as c')
    .innerJoinLateral(
      (eb) =>
        eb
          .selectFrom('push_deliveries as d')
          .selectAll('d')
          .whereRef('d.tenant_id', '=', 'c.tenant_id')
          .whereRef('d.task_id', '=', 'c.task_id')
          .whereRef('d.config_id', '=', 'c.id')
          .orderBy('d.seq', 'desc')
          .limit(limit)
          .as('l'),
      (join) => join.onTrue(),
    )
    .selectAll('l')
    .where('c.tenant_id', '=', tenantId)
    .where('c.task_id', '=', taskId)
    .orderBy('l.seq', 'desc')
    .orderBy('l.config_id', 'desc')
    .limit(limit)
    .execute();
  const sampled = await db
    .selectFrom((eb) =>
      eb
        .selectFrom('push_deliveries')
        .select('status')
        .where('tenant_id', '=', tenantId)
        .where('task_id', '=', taskId)
        .limit(cap + 1)
        .as('s'),
    )
    .select(['s.status', (eb) => eb.fn.countAll<string>().as('n')])
    .groupBy('s.status')
    .execute();
  const counts: Record<DeliveryStatus, number> = { pending: 0, delivered: 0, dead: 0 };
  for (const row of sampled) counts[row.status] = Number(row.n);
  const total = counts.pending + counts.delivered + counts.dead;
  const pending =
    total > cap
      ? (await db
          .selectFrom('push_deliveries')
          .select(sql<number>`1`.as('one'))
          .where('tenant_id', '=', tenantId)
          .where('task_id', '=', taskId)
          .where('status', 'not in', NOT_PENDING)
          .limit(1)
          .executeTakeFirst()) !== undefined
      : counts.pending > 0;
  return {
    latest: latest.map(toDeliveryRecord).reverse(),
    counts: total > cap ? null : counts,
    pending,
  };
}
