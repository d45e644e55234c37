import type { Db } from '../db.ts';
import type { DeliveryKey } from './outbox-store.ts';
import { asCte, gapAfter, releaseAfterGap, releaseNext } from './park-waiting.ts';

export const ORPHAN_REASON = 'the event is no longer in the task log';

interface OrphanKey {
  tenant_id: string;
  task_id: string;
  config_id: string;
  seq: number;
}

/**
 * Dead-letters claimed deliveries whose event is gone from the log, in one statement, so they stop
 * being claimed forever. Guarded by the claim like every other outbox write. Like any delivery
 * leaving pending, each makes the next one of its config due if that one was parked behind it
 * (park-waiting.ts). Returns the deliveries it dead-lettered.
 */
export async function buryOrphanDeliveries(
  db: Db,
  workerId: string,
  orphans: readonly OrphanKey[],
): Promise<DeliveryKey[]> {
  const buried = db
    .updateTable('push_deliveries')
    .set({
      status: 'dead',
      last_error: ORPHAN_REASON,
      locked_by: null,
      locked_until: null,
    })
    .where((eb) =>
      eb(
        eb.refTuple('tenant_id', 'task_id', 'config_id', 'seq'),
        'in',
        orphans.map((o) => eb.tuple(o.tenant_id, o.task_id, o.config_id, o.seq)),
      ),
    )
    .where('locked_by', '=', workerId)
    .where('status', '=', 'pending')
    .returning(['tenant_id', 'task_id', 'config_id', 'seq']);
  const rows = await db
    .with('buried', () => buried)
    .with('released', () => asCte(releaseNext('buried')))
    .selectFrom('buried as r')
    .select(['r.tenant_id', 'r.task_id', 'r.config_id', 'r.seq', gapAfter('r').as('gap')])
    .execute();
  for (const r of rows.filter((row) => row.gap))
    await releaseAfterGap(db, {
      tenantId: r.tenant_id,
      taskId: r.task_id,
      configId: r.config_id,
      seq: r.seq,
    });
  return rows.map((r) => ({ tenantId: r.tenant_id, taskId: r.task_id, configId: r.config_id, seq: r.seq }));
}
