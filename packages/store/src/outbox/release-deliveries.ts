import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { DeliveryKey } from './outbox-store.ts';

/**
 * Hands claimed deliveries back unsent, in one statement: lock cleared, so they are due again at
 * once for any pusher, and the claim's attempt taken back, since nothing was sent (a deferral must
 * not spend the retry budget). Guarded by the claim like every other outbox write: a row whose
 * lock lapsed and was taken over is left alone. Keys travel as arrays, one text for any count; the
 * status is a parameter for the reason markDelivered gives (only the primary key should serve).
 */
export async function releaseDeliveries(
  db: Db,
  workerId: string,
  keys: readonly DeliveryKey[],
): Promise<number> {
  if (keys.length === 0) return 0;
  const result = await sql`
    UPDATE push_deliveries AS d
       SET locked_by = NULL, locked_until = NULL, attempts = d.attempts - 1
      FROM unnest(${keys.map((k) => k.tenantId)}::text[], ${keys.map((k) => k.taskId)}::uuid[],
                  ${keys.map((k) => k.configId)}::text[], ${keys.map((k) => k.seq)}::integer[])
           AS k(tenant_id, task_id, config_id, seq)
     WHERE d.tenant_id = k.tenant_id AND d.task_id = k.task_id AND d.config_id = k.config_id
       AND d.seq = k.seq AND d.locked_by = ${workerId} AND d.status = ${'pending'}`.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}
