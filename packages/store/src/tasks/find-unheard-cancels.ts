import { TaskState } from '@switchyard/protocol';
import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { UnheardCancel } from '../task-store.ts';
import { msAgo } from './sql-time.ts';

/**
 * Canceled tasks whose kept lease lapsed more than `unheardAfterMs` ago, longest first, across
 * tenants: their run never heard the cancel, and the agent is owed its notice (take-cancel-notice.ts).
 * The state is a literal so that the partial index tasks_canceled_kept_lease (000010) serves the
 * scan under a generic plan too.
 */
export async function findUnheardCancels(
  db: Db,
  unheardAfterMs: number,
  limit: number,
): Promise<UnheardCancel[]> {
  const rows = await db
    .selectFrom('tasks')
    .select(['tenant_id', 'id', 'version', 'attempts', 'lease_expires_at'])
    .where('state', '=', sql.lit(TaskState.CANCELED))
    .where('lease_owner', 'is not', null)
    .where('lease_expires_at', '<', msAgo(unheardAfterMs))
    .orderBy('lease_expires_at')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    tenantId: r.tenant_id,
    taskId: r.id,
    version: r.version,
    attempts: r.attempts,
    leaseExpiresAt: r.lease_expires_at!,
  }));
}
