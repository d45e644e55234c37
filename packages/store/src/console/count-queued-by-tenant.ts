import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { LIVE_STATE_LITERALS } from '../tasks/live-states.ts';
import type { TenantQueued } from './console-types.ts';

/**
 * Per tenant, its tasks waiting for a worker (live, unleased, not a Message reply: SUBMITTED
 * tasks, answered continuations, retries in their backoff), each count capped at `cap` (+1 tells
 * "more"). Read from the store, the only truth, on the partial index of unleased live tasks
 * (tasks_live_dispatch_order), one capped probe per tenant; only `tenantId`'s when given.
 */
export async function countQueuedByTenant(db: Db, cap = 10_000, tenantId?: string): Promise<TenantQueued[]> {
  const rows = await db
    .selectFrom('tenants as t')
    .select((eb) => [
      't.id',
      eb
        .selectFrom((inner) =>
          inner
            .selectFrom('tasks as k')
            .select(sql<number>`1`.as('one'))
            .whereRef('k.tenant_id', '=', 't.id')
            .where('k.state', 'in', LIVE_STATE_LITERALS)
            .where('k.lease_owner', 'is', null)
            .where('k.visibility', '<>', sql.lit('message'))
            .limit(cap + 1)
            .as('x'),
        )
        .select((c) => c.fn.countAll<number>().as('n'))
        .as('n'),
    ])
    .$if(tenantId !== undefined, (qb) => qb.where('t.id', '=', tenantId!))
    .orderBy('t.id')
    .execute();
  return rows.map((r) => {
    const n = Number(r.n ?? 0);
    return { tenantId: r.id, queued: n > cap ? { count: cap, capped: true } : { count: n, capped: false } };
  });
}
