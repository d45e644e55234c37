import type { Part } from '@switchyard/protocol';
import type { Db } from '../db.ts';
import { isTaskId } from '../tasks/task-row.ts';
import type { StoredArtifactChunk } from './console-types.ts';

/**
 * One task's artifact chunks as stored, by seq. They outlive the event log (retention prunes
 * events first), so the timeline still shows every chunk of an old task.
 */
export async function listArtifactChunks(
  db: Db,
  tenantId: string,
  taskId: string,
  limit = 1000,
): Promise<StoredArtifactChunk[]> {
  if (!isTaskId(taskId)) return [];
  const rows = await db
    .selectFrom('artifact_chunks')
    .select(['seq', 'artifact_id', 'append', 'last_chunk', 'name', 'description', 'parts', 'created_at'])
    .where('tenant_id', '=', tenantId)
    .where('task_id', '=', taskId)
    .orderBy('seq')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    seq: r.seq,
    artifactId: r.artifact_id,
    append: r.append,
    lastChunk: r.last_chunk,
    name: r.name,
    description: r.description,
    parts: r.parts as Part[],
    createdAt: r.created_at,
  }));
}
