import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { whereConsoleTaskFilter } from './console-task-filter.ts';
import type { CappedCount, ConsoleTaskFilter } from './console-types.ts';

/** Default cap: enough to tell "a few thousand" from "a lot", cheap on every page load. */
export const CONSOLE_COUNT_CAP = 10_000;

/** The count query, exposed so tests can EXPLAIN it. */
export function buildCountConsoleTasksQuery(db: Db, filter: ConsoleTaskFilter, cap = CONSOLE_COUNT_CAP) {
  return db
    .selectFrom((eb) =>
      whereConsoleTaskFilter(eb.selectFrom('tasks').select(sql<number>`1`.as('one')), filter)
        // The page's order: the count reads the head of the same index range the page reads,
        // never the partition's heap from the start.
        .orderBy('status_timestamp', 'desc')
        .orderBy('id', 'desc')
        .limit(cap + 1)
        .as('capped'),
    )
    .select((eb) => eb.fn.countAll<number>().as('n'));
}

/**
 * How many tasks match, counting at most `cap + 1` index entries: a page load never counts a
 * tenant's whole table (100,000 tasks and more). `capped` means "more than `cap`".
 */
export async function countConsoleTasks(
  db: Db,
  filter: ConsoleTaskFilter,
  cap = CONSOLE_COUNT_CAP,
): Promise<CappedCount> {
  const { n } = await buildCountConsoleTasksQuery(db, filter, cap).executeTakeFirstOrThrow();
  return n > cap ? { count: cap, capped: true } : { count: n, capped: false };
}
