import { isTerminal, type Artifact, type StreamResponse } from '@switchyard/protocol';
import type { StreamEvent } from '../transport/transport.ts';

interface Entry {
  artifact: Artifact;
  chunks: number;
  complete: boolean;
}

/**
 * Builds whole artifacts from streamed chunks (digest §2.3): an update with `append` adds its parts
 * to the artifact already seen under the same `artifactId`, one without replaces it, and
 * `lastChunk` marks it complete. A Task snapshot resets the view to the task's stored artifacts,
 * which are complete when the task is terminal. Order is first-seen.
 */
export class ArtifactAssembler {
  readonly #entries = new Map<string, Entry>();

  /** Applies one stream item (an SSE event or a bare StreamResponse). */
  apply(item: StreamEvent | StreamResponse): this {
    const response = 'response' in item && item.response ? item.response : (item as StreamResponse);
    if (response.task) {
      this.#entries.clear();
      const done = isTerminal(response.task.status.state);
      for (const artifact of response.task.artifacts ?? []) {
        this.#entries.set(artifact.artifactId, { artifact: copy(artifact), chunks: 1, complete: done });
      }
    } else if (response.artifactUpdate) {
      const { artifact, append, lastChunk } = response.artifactUpdate;
      const existing = this.#entries.get(artifact.artifactId);
      if (append && existing) {
        existing.artifact = merge(existing.artifact, artifact);
        existing.chunks += 1;
        existing.complete = lastChunk === true;
      } else {
        this.#entries.set(artifact.artifactId, {
          artifact: copy(artifact),
          chunks: 1,
          complete: lastChunk === true,
        });
      }
    }
    return this;
  }

  /** Every artifact as assembled so far. */
  get artifacts(): Artifact[] {
    return [...this.#entries.values()].map((e) => copy(e.artifact));
  }

  get(artifactId: string): Artifact | undefined {
    const entry = this.#entries.get(artifactId);
    return entry ? copy(entry.artifact) : undefined;
  }

  /** Chunks applied to this artifact since it was last replaced. */
  chunkCount(artifactId: string): number {
    return this.#entries.get(artifactId)?.chunks ?? 0;
  }

  /** True once its `lastChunk` arrived (or a terminal task snapshot carried it). */
  isComplete(artifactId: string): boolean {
    return this.#entries.get(artifactId)?.complete ?? false;
  }
}

/** Whole artifacts from a finished list of events, or (as a promise) from a live stream. */
export function collectArtifacts(events: Iterable<StreamEvent | StreamResponse>): Artifact[];
export function collectArtifacts(events: AsyncIterable<StreamEvent | StreamResponse>): Promise<Artifact[]>;
export function collectArtifacts(
  events: Iterable<StreamEvent | StreamResponse> | AsyncIterable<StreamEvent | StreamResponse>,
): Artifact[] | Promise<Artifact[]> {
  const assembler = new ArtifactAssembler();
  if (Symbol.asyncIterator in events) {
    return (async () => {
      for await (const event of events) assembler.apply(event);
      return assembler.artifacts;
    })();
  }
  for (const event of events) assembler.apply(event);
  return assembler.artifacts;
}

function merge(base: Artifact, chunk: Artifact): Artifact {
  const extensions = [...new Set([...(base.extensions ?? []), ...(chunk.extensions ?? [])])];
  return {
    ...base,
    ...(chunk.name !== undefined ? { name: chunk.name } : {}),
    ...(chunk.description !== undefined ? { description: chunk.description } : {}),
    ...(base.metadata || chunk.metadata ? { metadata: { ...base.metadata, ...chunk.metadata } } : {}),
    ...(extensions.length > 0 ? { extensions } : {}),
    parts: [...base.parts, ...chunk.parts],
  };
}

function copy(artifact: Artifact): Artifact {
  return { ...artifact, parts: [...artifact.parts] };
}
