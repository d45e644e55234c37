import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { TenantDeadLetters } from './console-types.ts';

/**
 * Dead letters per tenant, each count capped at `cap` (+1 tells "more"): one probe of the partial
 * push_deliveries_dead index per tenant, never a count of the whole outbox.
 */
export async function countDeadLettersByTenant(db: Db, cap = 1000): Promise<TenantDeadLetters[]> {
  const rows = await db
    .selectFrom('tenants as t')
    .select((eb) => [
      't.id',
      eb
        .selectFrom((inner) =>
          inner
            .selectFrom('push_deliveries as d')
            .select(sql<number>`1`.as('one'))
            .whereRef('d.tenant_id', '=', 't.id')
            // A literal, not a parameter, so the partial index always applies.
            .where('d.status', '=', sql.lit('dead'))
            .limit(cap + 1)
            .as('x'),
        )
        .select((c) => c.fn.countAll<number>().as('n'))
        .as('n'),
    ])
    .orderBy('t.id')
    .execute();
  return rows.map((r) => {
    const n = Number(r.n ?? 0);
    return {
      tenantId: r.id,
      deadLetters: n > cap ? { count: cap, capped: true } : { count: n, capped: false },
    };
  });
}
