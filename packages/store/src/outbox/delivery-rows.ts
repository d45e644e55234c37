import type { Selectable } from 'kysely';
import type { PushDeliveriesTable } from '../database.ts';
import { deliveryIdOf, type DeliveryRecord } from './outbox-store.ts';

export function toDeliveryRecord(row: Selectable<PushDeliveriesTable>): DeliveryRecord {
  const key = { tenantId: row.tenant_id, taskId: row.task_id, configId: row.config_id, seq: row.seq };
  return {
    ...key,
    deliveryId: deliveryIdOf(key),
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lockedBy: row.locked_by,
    lockedUntil: row.locked_until,
    lastError: row.last_error,
    lastStatus: row.last_status,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at,
  };
}
