import { sql } from 'kysely';
import { TaskState } from '@switchyard/protocol';
import type { Db } from '../db.ts';
import { now } from './sql-time.ts';
import { jsonb } from './task-row.ts';

import type { MemoryFence, MemoryScope } from '../task-store.ts';

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

/**
 * setMemory for a run: written only while `fence.leaseOwner` still holds the task's lease and the
 * task is WORKING (ARCHITECTURE.md rule 3, a run that lost its lease writes nothing), the task's
 * row held (FOR SHARE) so a takeover commits after it, not between the check and the write. False,
 * and nothing written, when the run no longer holds the task.
 */
export async function setRunMemory(
  db: Db,
  scope: MemoryScope,
  fence: MemoryFence,
  key: string,
  value: unknown,
): Promise<boolean> {
  const { rows } = await sql<{ key: string }>`
    INSERT INTO context_memory (tenant_id, agent_id, owner, context_id, key, value)
    SELECT ${scope.tenantId}, ${scope.agentId}, ${scope.owner}, ${scope.contextId}, ${key}, ${jsonb(value)}::jsonb
     WHERE EXISTS (
       SELECT 1 FROM tasks
        WHERE tenant_id = ${scope.tenantId} AND id = ${fence.taskId}::uuid
          AND lease_owner = ${fence.leaseOwner} AND state = ${sql.lit(TaskState.WORKING)}
          FOR SHARE)
    ON CONFLICT (tenant_id, agent_id, owner, context_id, key)
    DO UPDATE SET value = excluded.value, updated_at = ${now()}
    RETURNING key`.execute(db);
  return rows.length > 0;
}
