import {
  buildCountConsoleTasksQuery,
  buildListConsoleTasksQuery,
  countConsoleTasks,
  createDb,
  explainQuery,
  listConsoleTasks,
  planNodes,
  type ConsoleTaskFilter,
  type ConsoleTaskRow,
  type Db,
  type PlanNode,
} from '@switchyard/store';
import { createTestDatabase, type TestDatabase } from '@switchyard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The console's task list on 100,000 tasks of one tenant (issue 7: "fast on 100,000 tasks"). No
// timings here (HACKING.md): the test proves the shape that makes it fast — every page is an index
// range read (no Seq Scan on a tasks partition, no Sort of the tenant's rows), keyset pages are
// disjoint and ordered, and the count stops at its cap.
const TENANT = 'big';
const TOTAL = 100_000;
let testDb: TestDatabase;
let db: Db;

beforeAll(async () => {
  testDb = await createTestDatabase();
  db = createDb(testDb.pool);
  // One statement. Timestamps repeat in threes so the id tie-breaker is exercised; states and
  // agents are spread like a busy tenant's: mostly completed, a few percent failed, a handful live.
  await testDb.pool.query(
    `INSERT INTO tasks (tenant_id, id, context_id, agent_id, owner, visibility, state, version,
                       status_timestamp, created_at, updated_at)
    SELECT $1, gen_random_uuid(), 'ctx-' || (g % 20000),
           (ARRAY['echo', 'invoices', 'booking', 'slow'])[1 + g % 4],
           'owner-' || (g % 7),
           CASE WHEN g % 50 = 7 THEN 'message' ELSE 'task' END,
           CASE WHEN g % 1000 < 5 THEN 'TASK_STATE_WORKING'
                WHEN g % 1000 < 30 THEN 'TASK_STATE_FAILED'
                WHEN g % 1000 < 40 THEN 'TASK_STATE_CANCELED'
                WHEN g % 1000 < 42 THEN 'TASK_STATE_INPUT_REQUIRED'
                ELSE 'TASK_STATE_COMPLETED' END,
           1 + g % 5,
           timestamptz '2025-01-01 00:00:00Z' + (g / 3) * interval '1 second',
           timestamptz '2025-01-01 00:00:00Z' + (g / 3) * interval '1 second',
           timestamptz '2025-01-01 00:00:00Z' + (g / 3) * interval '1 second'
    FROM generate_series(1, $2::int) AS g`,
    [TENANT, TOTAL],
  );
  // Neighbours in the same hash partitions, so a tenant filter has something to skip.
  await testDb.pool.query(`
    INSERT INTO tasks (tenant_id, id, context_id, agent_id, owner, visibility, state, version, status_timestamp)
    SELECT 'neighbour-' || (g % 16), gen_random_uuid(), 'n', 'echo', 'o', 'task', 'TASK_STATE_COMPLETED', 1,
           timestamptz '2025-01-01 00:00:00Z' + g * interval '1 second'
    FROM generate_series(1, 20000) AS g`);
  await testDb.pool.query('ANALYZE tasks');
}, 120_000);

afterAll(async () => {
  await testDb.drop();
});

/** The tasks relations a plan must never read sequentially: the parent and its partitions. */
const TASKS_RELATION = /^tasks(_p\d+)?$/;

function seqScansOnTasks(plan: PlanNode): PlanNode[] {
  return planNodes(plan).filter(
    (n) => n['Node Type'] === 'Seq Scan' && TASKS_RELATION.test(n['Relation Name'] ?? ''),
  );
}

/** The parent (partitioned) index of each partition index a plan uses. */
async function indexesUsed(plan: PlanNode): Promise<string[]> {
  const names = planNodes(plan)
    .map((n) => n['Index Name'])
    .filter((name): name is string => typeof name === 'string');
  const { rows } = await testDb.pool.query<{ parent: string }>(
    `SELECT p.relname AS parent FROM pg_inherits i
       JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
      WHERE c.relname = ANY($1::text[])`,
    [names],
  );
  return [...new Set(rows.map((r) => r.parent))];
}

function sortsOf(plan: PlanNode): PlanNode[] {
  return planNodes(plan).filter((n) => n['Node Type'] === 'Sort');
}

function assertOrdered(rows: readonly ConsoleTaskRow[]): void {
  for (let i = 1; i < rows.length; i++) {
    const prev = rows[i - 1]!;
    const cur = rows[i]!;
    const dt = prev.statusTimestamp.getTime() - cur.statusTimestamp.getTime();
    expect(dt > 0 || (dt === 0 && prev.id > cur.id), `row ${i} out of order`).toBe(true);
  }
}

/** Walks pages, checking each page's plan; returns every row seen. */
async function walk(filter: ConsoleTaskFilter, limit: number, maxPages: number) {
  const rows: ConsoleTaskRow[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const input = { ...filter, limit, ...(cursor ? { cursor } : {}) };
    const plan = await explainQuery(db, buildListConsoleTasksQuery(db, input));
    expect(seqScansOnTasks(plan), `page ${pages + 1} of ${JSON.stringify(filter)}`).toEqual([]);
    const page = await listConsoleTasks(db, input);
    expect(page.tasks.length).toBeLessThanOrEqual(limit);
    rows.push(...page.tasks);
    cursor = page.nextCursor ?? undefined;
    pages += 1;
  } while (cursor && pages < maxPages);
  return { rows, pages, done: cursor === undefined };
}

/** The truth to compare pages with (test-only SQL over the whole tenant). */
async function exactCount(where: string): Promise<number> {
  const { rows } = await testDb.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM tasks WHERE tenant_id = $1 AND ${where}`,
    [TENANT],
  );
  return rows[0]?.n ?? -1;
}

describe('console task list on 100,000 tasks', () => {
  const STATE_FILTERS: Array<[string, ConsoleTaskFilter, string]> = [
    ['no filter', { tenantId: TENANT }, 'tasks_tenant_list'],
    ['state', { tenantId: TENANT, state: 'TASK_STATE_FAILED' }, 'tasks_console_state'],
    ['agent', { tenantId: TENANT, agentId: 'booking' }, 'tasks_console_agent'],
    [
      'agent and state',
      { tenantId: TENANT, agentId: 'slow', state: 'TASK_STATE_INPUT_REQUIRED' },
      'tasks_console_agent_state',
    ],
  ];

  it.each(STATE_FILTERS)(
    'serves the first and a deep page of "%s" by an index range, never a Seq Scan or Sort',
    async (_name, filter, index) => {
      const first = await listConsoleTasks(db, { ...filter, limit: 50 });
      // A deep page: the cursor of the 10th page.
      let cursor = first.nextCursor;
      for (let i = 0; i < 8 && cursor; i++)
        cursor = (await listConsoleTasks(db, { ...filter, limit: 50, cursor })).nextCursor;
      for (const c of [undefined, cursor ?? undefined]) {
        const plan = await explainQuery(
          db,
          buildListConsoleTasksQuery(db, { ...filter, limit: 50, ...(c ? { cursor: c } : {}) }),
        );
        expect(seqScansOnTasks(plan)).toEqual([]);
        expect(sortsOf(plan)).toEqual([]);
        expect(await indexesUsed(plan)).toEqual([index]);
      }
    },
  );

  it('serves context and id searches by index too', async () => {
    const [sample] = (await listConsoleTasks(db, { tenantId: TENANT, limit: 1 })).tasks;
    if (!sample) throw new Error('no tasks');
    for (const filter of [
      { tenantId: TENANT, contextId: sample.contextId },
      { tenantId: TENANT, search: sample.id },
      { tenantId: TENANT, search: sample.contextId },
      { tenantId: TENANT, visibility: 'all' as const },
    ]) {
      const plan = await explainQuery(db, buildListConsoleTasksQuery(db, { ...filter, limit: 50 }));
      expect(seqScansOnTasks(plan), JSON.stringify(filter)).toEqual([]);
      expect((await indexesUsed(plan)).length).toBeGreaterThan(0);
    }
    const found = await listConsoleTasks(db, { tenantId: TENANT, search: sample.id, limit: 50 });
    expect(found.tasks.map((t) => t.id)).toContain(sample.id);
  });

  it('pages the whole tenant list disjoint and in order for the first 40 pages', async () => {
    const { rows, pages } = await walk({ tenantId: TENANT }, 100, 40);
    expect(pages).toBe(40);
    expect(rows).toHaveLength(4000);
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
    assertOrdered(rows);
    // Newest first: the very first row is the newest visible task.
    const { rows: newest } = await testDb.pool.query<{ id: string }>(
      `SELECT id FROM tasks WHERE tenant_id = $1 AND visibility = 'task'
       ORDER BY status_timestamp DESC, id DESC LIMIT 1`,
      [TENANT],
    );
    expect(rows[0]?.id).toBe(newest[0]?.id);
  });

  it('walks every failed task exactly once, page by page', async () => {
    const filter: ConsoleTaskFilter = { tenantId: TENANT, state: 'TASK_STATE_FAILED' };
    const { rows, done } = await walk(filter, 200, 100);
    expect(done).toBe(true);
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
    assertOrdered(rows);
    expect(rows.every((r) => r.state === 'TASK_STATE_FAILED' && r.visibility === 'task')).toBe(true);
    expect(rows.length).toBe(await exactCount(`state = 'TASK_STATE_FAILED' AND visibility = 'task'`));
  });

  it('walks a rare agent-and-state combination to its end', async () => {
    const filter: ConsoleTaskFilter = { tenantId: TENANT, agentId: 'slow', state: 'TASK_STATE_WORKING' };
    const { rows, done } = await walk(filter, 25, 100);
    expect(done).toBe(true);
    assertOrdered(rows);
    expect(rows.length).toBe(
      await exactCount(`agent_id = 'slow' AND state = 'TASK_STATE_WORKING' AND visibility = 'task'`),
    );
  });

  it('counts at most cap + 1 rows: capped for the whole tenant, exact for a small filter', async () => {
    expect(await countConsoleTasks(db, { tenantId: TENANT })).toEqual({ count: 10_000, capped: true });
    const failed = await exactCount(`state = 'TASK_STATE_FAILED' AND visibility = 'task'`);
    expect(await countConsoleTasks(db, { tenantId: TENANT, state: 'TASK_STATE_FAILED' })).toEqual({
      count: failed,
      capped: false,
    });
    for (const filter of [{ tenantId: TENANT }, { tenantId: TENANT, state: 'TASK_STATE_FAILED' as const }]) {
      const plan = await explainQuery(db, buildCountConsoleTasksQuery(db, filter));
      expect(planNodes(plan).some((n) => n['Node Type'] === 'Limit')).toBe(true);
      expect(seqScansOnTasks(plan), JSON.stringify(filter)).toEqual([]);
    }
  });
});
