import { TaskState, type Artifact, type Message } from '@switchyard/protocol';
import { sql, type Expression, type RawBuilder } from 'kysely';
import type { Db } from '../db.ts';
import { artifactChunkBytes, composeArtifacts, type ArtifactChunkRow } from './compose-artifacts.ts';
import { isTaskId } from './task-row.ts';

/** What an agent run starts from: the task's history and artifacts, and this run's stored chunks. */
export interface RunInputs {
  history: Message[];
  artifacts: Artifact[];
  /** Chunks per artifactId the current run generation already stored (see countRunArtifactChunks). */
  storedChunks: Map<string, number>;
  /** What the task's stored chunks weigh against its artifact limit (artifactChunkBytes). */
  storedArtifactBytes: number;
}

/** The columns the three reads come back as (json arrives parsed, bigint as text). */
export interface RunInputsColumns {
  history: Message[] | null;
  chunks: Array<Omit<ArtifactChunkRow, 'seq'> & { seq: number | string }> | null;
  generation_start: number | string | null;
}

/**
 * The three reads of a run's start as select-list items for one task, so they can ride on
 * another statement (the claim) or stand alone: history, artifact chunks, and where the current
 * run generation begins.
 *
 * A generation starts after the newest event that put the task in a state other than WORKING
 * (SUBMITTED, an interrupted state): status messages while WORKING and re-claims after a lapsed
 * lease do not start a new one. The schema has no generation column, so the event log is the
 * record (whole for live tasks: retention prunes only terminal tasks' logs).
 */
export function runInputsSelection(
  tenantId: Expression<string>,
  taskId: Expression<string>,
  firstRun?: Expression<boolean>,
) {
  // A task's first run has no chunks yet, and nothing before it to count from: two reads less.
  const unlessFirstRun = <T>(read: RawBuilder<T>, empty: RawBuilder<T>): RawBuilder<T> =>
    firstRun ? sql<T>`(case when ${firstRun} then ${empty} else ${read} end)` : read;
  return [
    sql<Message[]>`(select coalesce(json_agg(m.message order by m.position), '[]'::json)
      from task_messages m where m.tenant_id = ${tenantId} and m.task_id = ${taskId})`.as('history'),
    unlessFirstRun(
      sql<RunInputsColumns['chunks']>`(select coalesce(json_agg(json_build_object(
        'seq', c.seq, 'artifact_id', c.artifact_id, 'append', c.append, 'name', c.name,
        'description', c.description, 'parts', c.parts, 'metadata', c.metadata,
        'extensions', c.extensions) order by c.seq), '[]'::json)
      from artifact_chunks c where c.tenant_id = ${tenantId} and c.task_id = ${taskId})`,
      sql`'[]'::json`,
    ).as('chunks'),
    unlessFirstRun(
      sql<string | null>`(select max(e.seq) from task_events e
      where e.tenant_id = ${tenantId} and e.task_id = ${taskId}
        and coalesce(e.payload->'statusUpdate'->'status'->>'state',
                     e.payload->'task'->'status'->>'state') <> ${TaskState.WORKING})`,
      sql`null::bigint`,
    ).as('generation_start'),
  ] as const;
}

/** The selection's columns as RunInputs. */
export function toRunInputs(row: RunInputsColumns | undefined): RunInputs {
  const chunks: ArtifactChunkRow[] = (row?.chunks ?? []).map((c) => ({ ...c, seq: Number(c.seq) }));
  const start = Number(row?.generation_start ?? 0);
  const storedChunks = new Map<string, number>();
  let storedArtifactBytes = 0;
  for (const chunk of chunks) {
    storedArtifactBytes += artifactChunkBytes(chunk);
    if (chunk.seq > start)
      storedChunks.set(chunk.artifact_id, (storedChunks.get(chunk.artifact_id) ?? 0) + 1);
  }
  return {
    history: row?.history ?? [],
    artifacts: composeArtifacts(chunks),
    storedChunks,
    storedArtifactBytes,
  };
}

/** The three reads in ONE statement, for a task not being claimed (a run handed a task otherwise). */
export async function loadRunInputs(db: Db, tenantId: string, taskId: string): Promise<RunInputs> {
  if (!isTaskId(taskId))
    return { history: [], artifacts: [], storedChunks: new Map(), storedArtifactBytes: 0 };
  const row = await db
    .selectNoFrom(runInputsSelection(sql.val(tenantId), sql.val(taskId)))
    .executeTakeFirst();
  return toRunInputs(row);
}
