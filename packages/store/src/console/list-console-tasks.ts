import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { decodePageToken, encodePageToken, TASK_LIST_CURSOR } from '../tasks/page-token.ts';
import { CONSOLE_TASK_COLUMNS, toConsoleTaskRow } from './console-task-row.ts';
import { whereConsoleTaskFilter } from './console-task-filter.ts';
import type { ConsoleTaskPage, ListConsoleTasksInput } from './console-types.ts';

/** Postgres's microseconds, in UTC: a JS Date would round and skip or repeat rows (list-tasks.ts). */
const cursorTs = sql<string>`to_char(status_timestamp AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * The page query itself, exposed so tests can EXPLAIN exactly what runs. Keyset on
 * (status_timestamp, id) descending: the row comparison is an index condition, so page N costs
 * what page 1 costs — no OFFSET anywhere.
 */
export function buildListConsoleTasksQuery(db: Db, input: ListConsoleTasksInput) {
  const cursor = input.cursor ? decodePageToken(input.cursor, TASK_LIST_CURSOR) : undefined;
  let q = whereConsoleTaskFilter(
    db.selectFrom('tasks').select(CONSOLE_TASK_COLUMNS).select(cursorTs.as('cursor_ts')),
    input,
  );
  if (cursor) {
    q = q.where((eb) =>
      eb(
        eb.refTuple('status_timestamp', 'id'),
        '<',
        eb.tuple(sql<Date>`${cursor.t}::timestamptz`, sql<string>`${cursor.i}::uuid`),
      ),
    );
  }
  // One row past the page says whether another page exists.
  return q
    .orderBy('status_timestamp', 'desc')
    .orderBy('id', 'desc')
    .limit(input.limit + 1);
}

/** One page of a tenant's tasks for the console, newest status first. */
export async function listConsoleTasks(db: Db, input: ListConsoleTasksInput): Promise<ConsoleTaskPage> {
  const rows = await buildListConsoleTasksQuery(db, input).execute();
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  return {
    tasks: page.map(({ cursor_ts: _, ...row }) => toConsoleTaskRow(row)),
    nextCursor: rows.length > input.limit && last ? encodePageToken({ t: last.cursor_ts, i: last.id }) : null,
  };
}
