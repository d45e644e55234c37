import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { isTaskId } from './task-row.ts';

export interface TaskKey {
  tenantId: string;
  taskId: string;
}

/**
 * The current version of many tasks in one statement (the streams' shared safety net, see
 * events' VersionSweep). The keys travel as two arrays, so the statement text is the same for any
 * number of them (one prepared statement). Unknown or malformed ids are simply absent.
 */
export async function readVersions(
  db: Db,
  keys: readonly TaskKey[],
): Promise<Array<TaskKey & { version: number }>> {
  const valid = keys.filter((k) => isTaskId(k.taskId));
  if (valid.length === 0) return [];
  const { rows } = await sql<{ tenant_id: string; id: string; version: number }>`
    select t.tenant_id, t.id, t.version
      from unnest(${valid.map((k) => k.tenantId)}::text[], ${valid.map((k) => k.taskId)}::uuid[]) as k(tenant_id, id)
      join tasks t on t.tenant_id = k.tenant_id and t.id = k.id`.execute(db);
  return rows.map((r) => ({ tenantId: r.tenant_id, taskId: r.id, version: r.version }));
}
