import { sql } from 'kysely';
import type { Db } from '../db.ts';

/**
 * One batch of agents' per-context memory not written for the TTL (oldest first, by
 * context_memory_age). A conversation idle that long starts over: agents ask again.
 *
 * Read first, then deleted by key (delete-expired-idempotency-keys.ts says why), and only where it
 * was not written again in between.
 */
export async function deleteExpiredContextMemory(db: Db, cutoff: Date, batchSize: number): Promise<number> {
  const batch = await db
    .selectFrom('context_memory')
    .select(['tenant_id', 'agent_id', 'owner', 'context_id', 'key'])
    .where('updated_at', '<', cutoff)
    .orderBy('updated_at')
    .limit(batchSize)
    .execute();
  if (batch.length === 0) return 0;
  const column = (pick: (k: (typeof batch)[number]) => string) => batch.map(pick);
  const result = await db
    .deleteFrom('context_memory')
    .where(
      sql<boolean>`(tenant_id, agent_id, owner, context_id, key) IN (SELECT * FROM unnest(
        ${column((k) => k.tenant_id)}::text[], ${column((k) => k.agent_id)}::text[],
        ${column((k) => k.owner)}::text[], ${column((k) => k.context_id)}::text[],
        ${column((k) => k.key)}::text[]))`,
    )
    .where('updated_at', '<', cutoff)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
