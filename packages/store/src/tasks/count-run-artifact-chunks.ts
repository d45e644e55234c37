import type { Db } from '../db.ts';
import { loadRunInputs } from './load-run-inputs.ts';

/**
 * Chunks per artifactId written by the current run generation, so a retried run (at-least-once
 * execution, ARCHITECTURE.md §3 rule 4) skips what an earlier attempt already stored. The rule
 * lives in loadRunInputs, which reads it with the rest of a run's start; this is that part alone.
 */
export async function countRunArtifactChunks(
  db: Db,
  tenantId: string,
  taskId: string,
): Promise<Map<string, number>> {
  return (await loadRunInputs(db, tenantId, taskId)).storedChunks;
}
