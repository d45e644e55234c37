import type { Artifact, JsonObject, Part } from '@switchyard/protocol';
import type { Selectable } from 'kysely';
import type { ArtifactChunksTable } from '../database.ts';
import { jsonBytes } from '../json-bytes.ts';

export type ArtifactChunkRow = Pick<
  Selectable<ArtifactChunksTable>,
  'seq' | 'artifact_id' | 'append' | 'name' | 'description' | 'parts' | 'metadata' | 'extensions'
>;

/**
 * Replays one task's artifact chunks (ordered by seq) into whole artifacts, the way a streaming
 * client would (digest §2.3): a chunk with append=false starts the artifact over, append=true adds
 * its parts. Artifacts keep the order they first appeared in; name, description, metadata and
 * extensions come from the latest chunk that set them.
 */
export function composeArtifacts(chunks: readonly ArtifactChunkRow[]): Artifact[] {
  const byId = new Map<string, ArtifactChunkRow[]>();
  for (const chunk of chunks) {
    const list = byId.get(chunk.artifact_id);
    if (list) list.push(chunk);
    else byId.set(chunk.artifact_id, [chunk]);
  }
  return [...byId.entries()].map(([artifactId, list]) => composeOne(artifactId, list));
}

function composeOne(artifactId: string, chunks: ArtifactChunkRow[]): Artifact {
  let start = 0;
  chunks.forEach((c, i) => {
    if (!c.append) start = i;
  });
  const parts = chunks.slice(start).flatMap((c) => c.parts as Part[]);
  const latest = <K extends keyof ArtifactChunkRow>(key: K): ArtifactChunkRow[K] | undefined =>
    chunks.findLast((c) => c[key] !== null && c[key] !== undefined)?.[key];

  const artifact: Artifact = { artifactId, parts };
  const name = latest('name');
  const description = latest('description');
  const metadata = latest('metadata') as JsonObject | undefined;
  const extensions = latest('extensions') as string[] | undefined;
  // ProtoJSON omits unset and empty fields (digest §1): no nulls, no [] on the wire.
  if (name) artifact.name = name;
  if (description) artifact.description = description;
  if (metadata) artifact.metadata = metadata;
  if (extensions?.length) artifact.extensions = extensions;
  return artifact;
}

/**
 * What one stored chunk weighs against a task's artifact limit (EngineConfig taskMaxArtifactBytes):
 * the JSON of its parts and metadata. Every chunk counts, one that replaces its artifact too: the
 * store keeps every chunk, and every reader of the task (GetTask, ListTasks, a run's start)
 * loads them all.
 */
export function artifactChunkBytes(chunk: { parts: unknown; metadata?: unknown }): number {
  return jsonBytes(chunk.parts) + (chunk.metadata == null ? 0 : jsonBytes(chunk.metadata));
}
