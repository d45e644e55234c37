import type { Db } from '../db.ts';

interface OrphanKey {
  tenant_id: string;
  task_id: string;
  config_id: string;
  seq: number;
}

/**
 * Dead-letters claimed deliveries whose event is gone from the log, in one statement, so they stop
 * being claimed forever. Guarded by the claim like every other outbox write.
 */
export async function buryOrphanDeliveries(
  db: Db,
  workerId: string,
  orphans: readonly OrphanKey[],
): Promise<void> {
  await db
    .updateTable('push_deliveries')
    .set({
      status: 'dead',
      last_error: 'the event is no longer in the task log',
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
    .execute();
}
