import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { MarkDeliveredInput } from './outbox-store.ts';
import { gapAfter, releaseAfterGap, releaseNext } from './park-waiting.ts';

/**
 * Records sent deliveries, each guarded by its claim (locked_by = its workerId, still pending): a
 * pusher whose lock lapsed and was taken over gets false and must not act further. The lock's
 * expiry is not checked: a lapsed claim nobody took over still did deliver, and recording it
 * saves a duplicate send.
 *
 * Marks of one tenant in one UPDATE (the pusher's sends finish together under load, and
 * PostgresOutboxStore coalesces their marks per tenant): the tenant is a parameter, so the generic
 * plan prunes to its partition, and the rows come in as arrays. The status is a parameter too: as
 * the literal 'pending' it let the planner match the partial index push_deliveries_due, and with
 * statistics taken while few deliveries were pending it did, reading every pending delivery of the
 * partition to mark one (20,120 rows for one mark). A parameter leaves only the primary key.
 *
 * The same statement makes the next delivery of each config due if it was parked behind the one
 * delivered (park-waiting.ts); past a gap in the seqs (a replayed dead letter), a statement of its
 * own does.
 */
export async function markDelivered(db: Db, inputs: readonly MarkDeliveredInput[]): Promise<boolean[]> {
  const tenantId = inputs[0]?.tenantId;
  if (tenantId === undefined) return [];
  if (inputs.some((i) => i.tenantId !== tenantId))
    throw new Error('markDelivered: the marks of one statement are of one tenant');
  const { rows: done } = await sql<{
    task_id: string;
    config_id: string;
    seq: number;
    worker_id: string;
    gap: boolean;
  }>`
    WITH done AS (
      UPDATE push_deliveries AS d
         SET status = 'delivered', delivered_at = now(), last_status = b.status,
             locked_by = NULL, locked_until = NULL
        FROM unnest(${inputs.map((r) => r.taskId)}::uuid[], ${inputs.map((r) => r.configId)}::text[],
                    ${inputs.map((r) => r.seq)}::integer[], ${inputs.map((r) => r.workerId)}::text[],
                    ${inputs.map((r) => r.status)}::integer[])
             AS b(task_id, config_id, seq, worker_id, status)
       WHERE d.tenant_id = ${tenantId} AND d.task_id = b.task_id AND d.config_id = b.config_id
         AND d.seq = b.seq AND d.locked_by = b.worker_id AND d.status = ${'pending'}
      RETURNING d.task_id, d.config_id, d.seq, b.worker_id),
    released AS (${releaseNext('done', tenantId)})
    SELECT r.task_id, r.config_id, r.seq, r.worker_id, ${gapAfter('r', tenantId)} AS gap FROM done r`.execute(
    db,
  );
  // The marks have committed: a release that fails must not fail them (their callers would take
  // them for unrecorded, and a batch for never sent). What it would have released is made due
  // by the park's own limit (park-waiting.ts) instead.
  for (const r of done.filter((d) => d.gap))
    await releaseAfterGap(db, { tenantId, taskId: r.task_id, configId: r.config_id, seq: r.seq }).catch(
      () => undefined,
    );
  const marked = new Set(done.map((r) => keyOf(r.task_id, r.config_id, r.seq, r.worker_id)));
  return inputs.map((i) => marked.has(keyOf(i.taskId, i.configId, i.seq, i.workerId)));
}

/** A mark's answer is keyed by the worker too: another worker's mark of the same row is refused. */
const keyOf = (taskId: string, configId: string, seq: number, workerId: string) =>
  JSON.stringify([taskId.toLowerCase(), configId, seq, workerId]);
