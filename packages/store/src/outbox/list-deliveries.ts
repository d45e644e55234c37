import type { Db } from '../db.ts';
import { toDeliveryRecord } from './delivery-rows.ts';
import type { DeliveryRecord } from './outbox-store.ts';

/** One task's deliveries in event order (a task has few configs and a bounded log). */
export async function listDeliveries(db: Db, tenantId: string, taskId: string): Promise<DeliveryRecord[]> {
  const rows = await db
    .selectFrom('push_deliveries')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('task_id', '=', taskId)
    .orderBy('seq')
    .orderBy('config_id')
    .execute();
  return rows.map(toDeliveryRecord);
}
