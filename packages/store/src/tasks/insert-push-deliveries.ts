import type { Db } from '../db.ts';

/**
 * One pending delivery per push config of the task for event `seq` (ARCHITECTURE.md §7: the outbox
 * row is written in the event's transaction). INSERT … SELECT keeps it one statement however many
 * configs the task has.
 */
export async function insertPushDeliveries(
  tx: Db,
  tenantId: string,
  taskId: string,
  seq: number,
): Promise<void> {
  await tx
    .insertInto('push_deliveries')
    .columns(['tenant_id', 'task_id', 'config_id', 'seq'])
    .expression((eb) =>
      eb
        .selectFrom('push_configs')
        .select((e) => ['tenant_id', 'task_id', 'id', e.cast<number>(e.val(seq), 'integer').as('seq')])
        .where('tenant_id', '=', tenantId)
        .where('task_id', '=', taskId),
    )
    .execute();
}
