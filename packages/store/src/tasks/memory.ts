import type { Db } from '../db.ts';
import { now } from './sql-time.ts';
import { jsonb } from './task-row.ts';

import type { MemoryScope } from '../task-store.ts';

/** What the agent remembered under `key` in this conversation; undefined when it never wrote it. */
export async function getMemory(db: Db, scope: MemoryScope, key: string): Promise<unknown> {
  const row = await db
    .selectFrom('context_memory')
    .select('value')
    .where('tenant_id', '=', scope.tenantId)
    .where('agent_id', '=', scope.agentId)
    .where('owner', '=', scope.owner)
    .where('context_id', '=', scope.contextId)
    .where('key', '=', key)
    .executeTakeFirst();
  return row?.value;
}

/** Upsert: the latest write wins, which is the meaning of a memory slot (not task state: no CAS). */
export async function setMemory(db: Db, scope: MemoryScope, key: string, value: unknown): Promise<void> {
  await db
    .insertInto('context_memory')
    .values({
      tenant_id: scope.tenantId,
      agent_id: scope.agentId,
      owner: scope.owner,
      context_id: scope.contextId,
      key,
      value: jsonb(value),
    })
    .onConflict((oc) =>
      oc
        .columns(['tenant_id', 'agent_id', 'owner', 'context_id', 'key'])
        .doUpdateSet({ value: jsonb(value), updated_at: now() }),
    )
    .execute();
}
