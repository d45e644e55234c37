import type { Message, Task } from '@switchyard/protocol';
import { sql } from 'kysely';
import { cachedStatement, type ValueOf } from '../cached-statement.ts';
import type { Db } from '../db.ts';
import type { Caller, GetTaskOptions } from '../task-store.ts';
import { composeArtifacts, type ArtifactChunkRow } from './compose-artifacts.ts';
import { composeTaskView } from './compose-task-view.ts';
import { isTaskId, toTaskRecord } from './task-row.ts';

type ChunkJson = Omit<ArtifactChunkRow, 'seq'> & { seq: number | string };

/**
 * One task as the wire Task in ONE statement: the row with its history (the newest
 * `historyLength`, digest §7.3) and artifact chunks as JSON subselects. GetTask is the hottest read;
 * three round trips (row, history, chunks) were its cost. `caller` adds the visibility and owner
 * guards of GetTask (ARCHITECTURE.md §3 rule 6), `agentId` the agent's; without them the row is
 * read as the engine sees it.
 */
export async function readTaskView(
  db: Db,
  tenantId: string,
  taskId: string,
  options: GetTaskOptions & { caller?: Caller },
): Promise<Task | null> {
  if (!isTaskId(taskId)) return null;
  const [row] = await taskView.rows(db, {
    tenantId,
    taskId,
    historyLength: options.historyLength,
    includeArtifacts: options.includeArtifacts ?? true,
    caller: options.caller,
    agentId: options.agentId,
  });
  if (!row) return null;
  const { history_json, chunks_json, ...taskRow } = row;
  const artifacts = chunks_json
    ? composeArtifacts(chunks_json.map((c) => ({ ...c, seq: Number(c.seq) })))
    : undefined;
  return composeTaskView(toTaskRecord(taskRow), {
    history: history_json,
    // GetTask follows plain ProtoJSON: an empty artifact list is omitted (see load-task-views.ts).
    ...(artifacts && artifacts.length > 0 ? { artifacts } : {}),
  });
}

interface TaskViewInput {
  tenantId: string;
  taskId: string;
  historyLength: number | undefined;
  includeArtifacts: boolean;
  caller: Caller | undefined;
  agentId: string | undefined;
}

const taskView = cachedStatement({
  name: 'read-task-view',
  shape: (i: TaskViewInput) =>
    [
      i.includeArtifacts,
      i.caller ? (i.caller.admin ? 'admin' : 'owner') : '-',
      i.agentId === undefined ? '-' : 'agent',
    ].join('|'),
  build: (db, input: TaskViewInput, p) => taskViewStatement(db, input, p),
});

function taskViewStatement(db: Db, input: TaskViewInput, p: ValueOf<TaskViewInput>) {
  const { caller } = input;
  // The sub-selects name the tenant as a statement parameter, not as t.tenant_id: under the
  // generic plan Postgres then prunes their partitions when the executor starts and sets up one
  // partition's scan instead of all eight (as in claim-task.ts); a fifth less Postgres CPU a read.
  const tenantId = p((i) => i.tenantId);
  return db
    .selectFrom('tasks as t')
    .selectAll('t')
    .select(
      sql<Message[]>`(select coalesce(json_agg(h.message order by h.position), '[]'::json) from (
          select m.message, m.position from task_messages m
          where m.tenant_id = ${tenantId} and m.task_id = t.id
          order by m.position desc limit ${p((i) => i.historyLength ?? null)}) h)`.as('history_json'),
    )
    .select(
      input.includeArtifacts
        ? sql<ChunkJson[]>`(select coalesce(json_agg(json_build_object(
              'seq', c.seq, 'artifact_id', c.artifact_id, 'append', c.append, 'name', c.name,
              'description', c.description, 'parts', c.parts, 'metadata', c.metadata,
              'extensions', c.extensions) order by c.seq), '[]'::json)
            from artifact_chunks c where c.tenant_id = ${tenantId} and c.task_id = t.id)`.as('chunks_json')
        : sql<null>`null`.as('chunks_json'),
    )
    .where('t.tenant_id', '=', tenantId)
    .where(
      't.id',
      '=',
      p((i) => i.taskId),
    )
    .$if(caller !== undefined, (q) => q.where('t.visibility', '=', 'task'))
    .$if(input.agentId !== undefined, (q) =>
      q.where(
        't.agent_id',
        '=',
        p((i) => i.agentId ?? ''),
      ),
    )
    .$if(caller !== undefined && !caller.admin, (q) =>
      q.where(
        't.owner',
        '=',
        p((i) => i.caller?.principal ?? ''),
      ),
    );
}
