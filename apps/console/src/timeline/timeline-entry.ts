import type { Part, StreamResponse, TaskState } from '@switchyard/protocol';
import type { StoredArtifactChunk, StoredMessage } from '@switchyard/store';

/**
 * One line of a task's timeline. Keys are stable across the page and its live stream, so an entry
 * the stream repeats (after a reconnect) replaces nothing and is not shown twice: `e<seq>` for
 * whatever the event log (or an artifact chunk) recorded at that version, `m<position>` for a
 * history message, `gap<seq>` for a note that the events after that seq were pruned.
 */
export type EntryKind = 'created' | 'status' | 'artifact' | 'message' | 'reply' | 'gap';

export interface TimelineEntry {
  key: string;
  at: Date;
  kind: EntryKind;
  /** Event seq (= task version) when the entry comes from the log or a chunk. */
  seq?: number;
  state?: TaskState;
  /** Message role (ROLE_USER / ROLE_AGENT). */
  role?: string;
  parts?: Part[];
  artifact?: { artifactId: string; name?: string; append: boolean; lastChunk: boolean };
  /** Free text for a gap note. */
  note?: string;
}

/** An entry from one event of the task's log. */
export function entryFromEvent(seq: number, payload: StreamResponse, at: Date): TimelineEntry {
  const key = `e${seq}`;
  if (payload.task) return { key, at, seq, kind: 'created', state: payload.task.status.state };
  if (payload.statusUpdate) {
    const { state, message } = payload.statusUpdate.status;
    return {
      key,
      at,
      seq,
      kind: 'status',
      state,
      ...(message ? { role: message.role, parts: message.parts } : {}),
    };
  }
  if (payload.artifactUpdate) {
    const { artifact, append, lastChunk } = payload.artifactUpdate;
    return {
      key,
      at,
      seq,
      kind: 'artifact',
      parts: artifact.parts,
      artifact: {
        artifactId: artifact.artifactId,
        ...(artifact.name !== undefined ? { name: artifact.name } : {}),
        append: append ?? false,
        lastChunk: lastChunk ?? false,
      },
    };
  }
  const message = payload.message;
  return { key, at, seq, kind: 'reply', role: message?.role ?? 'ROLE_AGENT', parts: message?.parts ?? [] };
}

export function entryFromMessage(stored: StoredMessage): TimelineEntry {
  return {
    key: `m${stored.position}`,
    at: stored.createdAt,
    kind: 'message',
    role: stored.message.role,
    parts: stored.message.parts,
  };
}

/** A stored chunk whose event retention already pruned: same key as its event would have. */
export function entryFromChunk(chunk: StoredArtifactChunk): TimelineEntry {
  return {
    key: `e${chunk.seq}`,
    at: chunk.createdAt,
    seq: chunk.seq,
    kind: 'artifact',
    parts: chunk.parts,
    artifact: {
      artifactId: chunk.artifactId,
      ...(chunk.name !== null ? { name: chunk.name } : {}),
      append: chunk.append,
      lastChunk: chunk.lastChunk,
    },
  };
}

/**
 * A note that `missing` events after `afterSeq` are no longer in the log (retention prunes a
 * finished task's events; its history and chunks live in their own tables and outlast them).
 */
export function gapEntry(afterSeq: number, missing: number, at: Date, live = false): TimelineEntry {
  const events = `${missing} ${afterSeq === 0 ? 'earlier ' : ''}event${missing === 1 ? ' is' : 's are'}`;
  const rest = live
    ? 'reload the page for the stored messages and artifact chunks'
    : 'stored messages and artifact chunks are still shown';
  return {
    key: `gap${afterSeq}`,
    at,
    kind: 'gap',
    note: `${events} no longer in the event log (retention); ${rest}`,
  };
}

/** The time of an event that arrived live: its status timestamp, else when it arrived. */
export function eventTime(payload: StreamResponse, stored: Date | undefined): Date {
  if (stored) return stored;
  const ts = payload.statusUpdate?.status.timestamp ?? payload.task?.status.timestamp;
  const parsed = ts ? new Date(ts) : null;
  return parsed && !Number.isNaN(parsed.getTime()) ? parsed : new Date();
}

const RANK: Record<EntryKind, number> = { gap: 0, created: 1, message: 2, status: 3, artifact: 3, reply: 3 };

/** Time order; within one transaction (same time) the creation, then its message, then by seq. */
export function compareEntries(a: TimelineEntry, b: TimelineEntry): number {
  return a.at.getTime() - b.at.getTime() || RANK[a.kind] - RANK[b.kind] || (a.seq ?? 0) - (b.seq ?? 0);
}
