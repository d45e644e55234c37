import type { Message, Task } from '@switchyard/protocol';
import { sql } from 'kysely';
import { cachedStatement, type ValueOf } from '../cached-statement.ts';
import type { Db } from '../db.ts';
import type { Caller, GetTaskOptions, TaskSnapshot } from '../task-store.ts';
import { composeArtifacts, type ArtifactChunkRow } from './compose-artifacts.ts';
import { composeTaskView } from './compose-task-view.ts';
import { DEFAULT_MAX_PAGE_BYTES } from './page-budget.ts';
import { isTaskId, toTaskRecord } from './task-row.ts';
import { rowBytes } from './view-bytes.ts';

type ChunkJson = Omit<ArtifactChunkRow, 'seq'> & { seq: number | string };

export interface ReadTaskViewOptions extends GetTaskOptions {
  /** GetTask's visibility and owner guards; absent, the row is read as the engine sees it. */
  caller?: Caller;
  /**
   * Bytes the view may hold; default 4 MiB, as a ListTasks page (page-budget.ts). Over it, the
   * history keeps its newest messages that fit beside the row and the artifacts, which are whole.
   */
  maxViewBytes?: number;
}

/**
 * One task as the wire Task in ONE statement: the row with its history (the newest
 * `historyLength`, digest §7.3) and artifact chunks as JSON subselects. GetTask is the hottest read;
 * three round trips (row, history, chunks) were its cost. `caller` adds the visibility and owner
 * guards of GetTask (ARCHITECTURE.md §3 rule 6), `agentId` the agent's; without them the row is
 * read as the engine sees it.
 *
 * A task's history has no size limit (every turn adds a message of up to the request limit), so
 * the view is held to a byte budget like a ListTasks page of one task: measured and cut in
 * Postgres (view-bytes.ts), never in the gateway after it has received everything.
 */
export async function readTaskView(
  db: Db,
  tenantId: string,
  taskId: string,
  options: ReadTaskViewOptions,
): Promise<Task | null> {
  return (await readTaskSnapshot(db, tenantId, taskId, options))?.task ?? null;
}

/**
 * The wire Task and the row it was composed from, read in the statement's one snapshot: the
 * row's version is exactly the version the view shows, so a stream that follows the log after
 * it neither repeats nor skips an event (task-stream.ts), however busy the task's writers are.
 */
export async function readTaskSnapshot(
  db: Db,
  tenantId: string,
  taskId: string,
  options: ReadTaskViewOptions,
): Promise<TaskSnapshot | null> {
  if (!isTaskId(taskId)) return null;
  const [row] = await taskView.rows(db, {
    tenantId,
    taskId,
    historyLength: options.historyLength,
    includeArtifacts: options.includeArtifacts ?? true,
    caller: options.caller,
    agentId: options.agentId,
    maxViewBytes: options.maxViewBytes ?? DEFAULT_MAX_PAGE_BYTES,
  });
  if (!row) return null;
  const { history_json, chunks_json, ...taskRow } = row;
  const artifacts = chunks_json
    ? composeArtifacts(chunks_json.map((c) => ({ ...c, seq: Number(c.seq) })))
    : undefined;
  const record = toTaskRecord(taskRow);
  const task = composeTaskView(record, {
    history: history_json,
    // GetTask follows plain ProtoJSON: an empty artifact list is omitted (see load-task-views.ts).
    ...(artifacts && artifacts.length > 0 ? { artifacts } : {}),
  });
  return { task, record };
}

interface TaskViewInput {
  tenantId: string;
  taskId: string;
  historyLength: number | undefined;
  includeArtifacts: boolean;
  caller: Caller | undefined;
  agentId: string | undefined;
  maxViewBytes: number;
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
  // The chunks come from a lateral subquery, so that the history's budget can count them. (An
  // aggregate, it is never pulled up into the outer query: its JSON is built once.)
  const chunks = input.includeArtifacts
    ? sql<{ chunks_json: ChunkJson[] | null }>`(select coalesce(json_agg(json_build_object(
          'seq', c.seq, 'artifact_id', c.artifact_id, 'append', c.append, 'name', c.name,
          'description', c.description, 'parts', c.parts, 'metadata', c.metadata,
          'extensions', c.extensions) order by c.seq), '[]'::json) as chunks_json
        from artifact_chunks c where c.tenant_id = ${tenantId} and c.task_id = t.id)`
    : sql<{ chunks_json: ChunkJson[] | null }>`(select null::json as chunks_json)`;
  // What the budget leaves the history once the row and the artifacts are counted. A sub-select,
  // so that Postgres works it out once (an InitPlan), not again for every message it filters.
  const allowance = sql<number>`(select ${p((i) => i.maxViewBytes)}::bigint - ${rowBytes('t')}
    - coalesce(octet_length(a.chunks_json::text), 0))`;
  // Each message with the bytes of itself and all newer ones (view-bytes.ts): the oldest past the
  // allowance are dropped. Sized after the historyLength cut, so that messages which would not be
  // shown anyway are not rendered.
  const history = sql<Message[]>`(select coalesce(json_agg(h.message order by h.position), '[]'::json) from (
      select n.message, n.position, sum(octet_length(n.message::text)) over (
          order by n.position desc rows unbounded preceding) as bytes_from_end
      from (select m.message, m.position from task_messages m
        where m.tenant_id = ${tenantId} and m.task_id = t.id
        order by m.position desc limit ${p((i) => i.historyLength ?? null)}) n) h
    where h.bytes_from_end <= ${allowance})`;
  return db
    .selectFrom('tasks as t')
    .innerJoinLateral(chunks.as('a'), (join) => join.onTrue())
    .selectAll('t')
    .select('a.chunks_json')
    .select(history.as('history_json'))
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
