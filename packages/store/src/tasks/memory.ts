import type { Db } from '../db.ts';
import { now } from './sql-time.ts';
import { jsonb } from './task-row.ts';

export interface MemoryKey {
  tenantId: string;
  agentId: string;
  contextId: string;
  key: string;
}

/** What the agent remembered under `key` for this context; undefined when it never wrote it. */
export async function getMemory(db: Db, k: MemoryKey): Promise<unknown> {
  const row = await db
    .selectFrom('context_memory')
    .select('value')
    .where('tenant_id', '=', k.tenantId)
    .where('agent_id', '=', k.agentId)
    .where('context_id', '=', k.contextId)
    .where('key', '=', k.key)
    .executeTakeFirst();
  return row?.value;
}

/** Upsert: the latest write wins, which is the meaning of a memory slot (not task state: no CAS). */
export async function setMemory(db: Db, k: MemoryKey, value: unknown): Promise<void> {
  await db
    .insertInto('context_memory')
    .values({
      tenant_id: k.tenantId,
      agent_id: k.agentId,
      context_id: k.contextId,
      key: k.key,
      value: jsonb(value),
    })
    .onConflict((oc) =>
      oc
        .columns(['tenant_id', 'agent_id', 'context_id', 'key'])
        .doUpdateSet({ value: jsonb(value), updated_at: now() }),
    )
    .execute();
}
