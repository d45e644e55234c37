import { TaskState } from '@switchyard/protocol';
import { sql, type Expression, type RawBuilder } from 'kysely';
import type { Db } from '../db.ts';
import type { ListTasksInput, ListTasksPage } from '../task-store.ts';
import { loadTaskViews } from './load-task-views.ts';
import { DEFAULT_MAX_PAGE_BYTES, fitPage } from './page-budget.ts';
import { decodePageToken, encodePageToken, TASK_LIST_CURSOR } from './page-token.ts';
import { toTaskRecord, type TaskRow } from './task-row.ts';
import { artifactBytes, historyBytes, rowBytes } from './view-bytes.ts';

/**
 * The cursor keeps Postgres's microseconds: a JS Date holds milliseconds, and rounding would skip
 * or repeat tasks whose timestamps differ below a millisecond. Rendered in UTC so the session
 * time zone cannot change its meaning.
 */
const cursorTs = sql<string>`to_char(status_timestamp AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * ListTasks (digest §7.4 rules 20–25): only the caller's visible tasks (all of the tenant's for an
 * admin), newest status first with id as the tie-breaker, keyset-paged so a page costs the same
 * wherever it is. `totalSize` counts every match, ignoring the cursor.
 *
 * A page also stops at `maxPageBytes` of task views, sized in Postgres before their history and
 * artifacts are read (page-budget.ts): 100 tasks of a few MB each were one response of hundreds
 * of MB, built in the gateway's memory. The sizes can drift by what a live task writes between
 * the two reads; the budget bounds memory, it is not an exact response size.
 */
export async function listTasks(db: Db, input: ListTasksInput): Promise<ListTasksPage> {
  const { pageSize } = input;
  const maxPageBytes = input.maxPageBytes ?? DEFAULT_MAX_PAGE_BYTES;
  // (Inside a caller's transaction the setting would outlast this call: none passes one.)
  const { rows, totalSize } = db.isTransaction
    ? await pageCandidates(db, input)
    : await db.transaction().execute((trx) => pageCandidates(trx, input));
  const sized = rows.slice(0, pageSize).filter((row) => row.row_bytes !== null);
  const fit = fitPage(sized.map(viewSize), maxPageBytes);
  const page = rows.slice(0, fit.count);
  // One row past the page tells whether another page exists without a second query.
  const last = page.at(-1);
  const nextPageToken =
    rows.length > page.length && last ? encodePageToken({ t: last.cursor_ts, i: last.id }) : '';
  const tasks = await loadTaskViews(
    db,
    input.caller.tenantId,
    page.map((row) => toTaskRecord(row)),
    {
      historyLength: input.historyLength,
      historyMaxBytes: fit.historyMaxBytes,
      includeArtifacts: input.includeArtifacts,
      keepEmptyArtifacts: true,
    },
  );
  return { tasks, nextPageToken, pageSize, totalSize };
}

function viewSize(row: CandidateRow) {
  return {
    rowBytes: row.row_bytes ?? 0,
    historyBytes: row.history_bytes ?? 0,
    artifactBytes: row.artifact_bytes ?? 0,
  };
}

/** The page (and one row past it), sized while it can still hold them, and the count. */
export async function pageCandidates(db: Db, input: ListTasksInput) {
  // Planned with their values, not generically as the pool's sessions plan (prepared-statements.ts):
  // which index serves a list depends on whose list it is. With a generic plan, a principal's
  // share of the tenant was taken as 1 / (number of principals), and a person's first page in a
  // tenant where a service account owns the rest walked the service account's tasks, and the
  // count read the whole tenant (20,111 rows read for a 60-task list).
  // And without parallel workers: a count over a large tenant took three backends' CPU (a parallel
  // seq scan) from Postgres every tenant shares, for one request.
  await sql`SELECT set_config('plan_cache_mode', 'force_custom_plan', true),
                   set_config('max_parallel_workers_per_gather', '0', true)`.execute(db);
  const { caller, pageSize } = input;
  const cursor = input.pageToken ? decodePageToken(input.pageToken, TASK_LIST_CURSOR) : undefined;
  const state = input.state === TaskState.UNSPECIFIED ? undefined : input.state;
  const scoped = db
    .selectFrom('tasks')
    .where('tenant_id', '=', caller.tenantId)
    .where('visibility', '=', 'task')
    .$if(!caller.admin, (q) => q.where('owner', '=', caller.principal))
    .where('agent_id', '=', input.agentId)
    .$if(input.contextId !== undefined, (q) => q.where('context_id', '=', input.contextId ?? ''))
    .$if(state !== undefined, (q) => q.where('state', '=', state ?? ''))
    .$if(input.statusTimestampAfter !== undefined, (q) =>
      q.where('status_timestamp', '>=', input.statusTimestampAfter ?? new Date(0)),
    );

  const candidates = scoped
    .selectAll()
    .select(cursorTs.as('cursor_ts'))
    .select(sql<number>`row_number() over (order by status_timestamp desc, id desc)`.as('rn'))
    .$if(cursor !== undefined, (q) =>
      q.where((eb) =>
        eb(
          eb.refTuple('status_timestamp', 'id'),
          '<',
          eb.tuple(sql<Date>`${cursor?.t}::timestamptz`, sql<string>`${cursor?.i}::uuid`),
        ),
      ),
    )
    .orderBy('status_timestamp', 'desc')
    .orderBy('id', 'desc')
    .limit(pageSize + 1);
  const { rows } = await sizedWalk(candidates, input).execute(db);
  // The count reads every match (about 10 ms for 30,000 tasks here), so it runs only when the
  // answer is not already in hand: a first page that holds every match is the whole list.
  const totalSize =
    cursor === undefined && rows.length <= pageSize
      ? rows.length
      : (await scoped.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;

  return { rows, totalSize };
}

type CandidateRow = TaskRow & {
  cursor_ts: string;
  rn: number;
  /** Null for a candidate past the walk: it cannot be on this page. */
  row_bytes: number | null;
  history_bytes: number | null;
  artifact_bytes: number | null;
};

/**
 * The candidates in list order, each sized (view-bytes.ts) only while the page can still hold it:
 * the walk sizes one task after another and stops after the first that passes the budget, so a
 * page of large tasks renders what it returns and one task more, not all pageSize + 1 candidates
 * (with 4 MB tasks, a hundred renders of 26 ms each for every page of one). The last candidate
 * (pageSize + 1) only tells whether another page exists and is never sized.
 */
function sizedWalk(candidates: Expression<unknown>, input: ListTasksInput) {
  const { caller, pageSize } = input;
  const maxPageBytes = input.maxPageBytes ?? DEFAULT_MAX_PAGE_BYTES;
  const task = sql.ref<string>('cand.id');
  // Each is left out when the view has nothing of its kind.
  const history =
    input.historyLength === 0 ? sql`0` : historyBytes(caller.tenantId, task, input.historyLength);
  const artifacts = input.includeArtifacts ? artifactBytes(caller.tenantId, task) : sql`0`;
  const sized = (total: RawBuilder<number>) => sql`
      SELECT x.rn, x.row_bytes, x.history_bytes, x.artifact_bytes,
             x.before + x.row_bytes + x.history_bytes + x.artifact_bytes
        FROM (SELECT cand.rn, ${total} AS before, ${rowBytes('cand')} AS row_bytes,
                     ${history} AS history_bytes, ${artifacts} AS artifact_bytes`;
  // OFFSET 0 keeps each step's subquery whole: pulled up, its size expressions would be evaluated
  // once per use. A step's sizes are select-list expressions, so Postgres evaluates them only for
  // the one candidate the step joins.
  return sql<CandidateRow>`
    WITH RECURSIVE cand AS MATERIALIZED (${candidates}),
    walk (rn, row_bytes, history_bytes, artifact_bytes, total) AS (
      ${sized(sql`0::bigint`)}
                FROM cand WHERE cand.rn = 1 OFFSET 0) x
      UNION ALL
      ${sized(sql`w.total`)}
                FROM walk w JOIN cand ON cand.rn = w.rn + 1
               WHERE w.total <= ${maxPageBytes}::bigint AND cand.rn <= ${pageSize}::int OFFSET 0) x)
    SELECT cand.*, w.row_bytes, w.history_bytes, w.artifact_bytes
      FROM cand LEFT JOIN walk w ON w.rn = cand.rn
     ORDER BY cand.rn`;
}
