import type { Db } from '../db.ts';

/**
 * One batch of agents' per-context memory not written for the TTL (oldest first, by
 * context_memory_age). A conversation idle that long starts over: agents ask again.
 */
export async function deleteExpiredContextMemory(db: Db, cutoff: Date, batchSize: number): Promise<number> {
  const result = await db
    .deleteFrom('context_memory')
    .where((eb) =>
      eb(
        eb.refTuple('tenant_id', 'agent_id', 'owner', 'context_id', 'key'),
        'in',
        eb
          .selectFrom('context_memory as m')
          .select(['m.tenant_id', 'm.agent_id', 'm.owner', 'm.context_id', 'm.key'])
          .where('m.updated_at', '<', cutoff)
          .orderBy('m.updated_at')
          .limit(batchSize)
          .$asTuple('tenant_id', 'agent_id', 'owner', 'context_id', 'key'),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
