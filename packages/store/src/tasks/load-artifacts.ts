import type { Artifact } from '@switchyard/protocol';
import type { Db } from '../db.ts';
import { isTaskId } from './task-row.ts';
import { composeArtifacts, type ArtifactChunkRow } from './compose-artifacts.ts';

/** The composed artifacts of several tasks from one query over their chunks. */
export async function loadArtifacts(
  db: Db,
  tenantId: string,
  taskIds: readonly string[],
): Promise<Map<string, Artifact[]>> {
  const out = new Map<string, Artifact[]>();
  const ids = taskIds.filter(isTaskId);
  if (ids.length === 0) return out;
  const rows = await db
    .selectFrom('artifact_chunks')
    .select([
      'task_id',
      'seq',
      'artifact_id',
      'append',
      'name',
      'description',
      'parts',
      'metadata',
      'extensions',
    ])
    .where('tenant_id', '=', tenantId)
    .where('task_id', 'in', ids)
    .orderBy('task_id')
    .orderBy('seq')
    .execute();
  const chunks = new Map<string, ArtifactChunkRow[]>();
  for (const { task_id, ...chunk } of rows) {
    const list = chunks.get(task_id);
    if (list) list.push(chunk);
    else chunks.set(task_id, [chunk]);
  }
  for (const [taskId, list] of chunks) out.set(taskId, composeArtifacts(list));
  return out;
}

/** One task's artifacts, whole. */
export async function getArtifacts(db: Db, tenantId: string, taskId: string): Promise<Artifact[]> {
  return (await loadArtifacts(db, tenantId, [taskId])).get(taskId) ?? [];
}
