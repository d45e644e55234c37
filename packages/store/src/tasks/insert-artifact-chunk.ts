import type { Db } from '../db.ts';
import type { ArtifactChunkInput } from '../task-store.ts';
import { jsonb } from './task-row.ts';

/**
 * Stores one artifact chunk under the version that wrote it, so a chunk exists exactly once and
 * the chunks of an artifact replay in write order (see compose-artifacts.ts).
 */
export async function insertArtifactChunk(
  tx: Db,
  tenantId: string,
  taskId: string,
  seq: number,
  chunk: ArtifactChunkInput,
): Promise<void> {
  await tx
    .insertInto('artifact_chunks')
    .values({
      tenant_id: tenantId,
      task_id: taskId,
      seq,
      artifact_id: chunk.artifactId,
      append: chunk.append,
      last_chunk: chunk.lastChunk,
      name: chunk.name ?? null,
      description: chunk.description ?? null,
      parts: jsonb(chunk.parts),
      metadata: chunk.metadata ? jsonb(chunk.metadata) : null,
      extensions: chunk.extensions ? jsonb(chunk.extensions) : null,
    })
    .execute();
}
