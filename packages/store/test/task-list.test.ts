import { TaskState } from '@switchyard/protocol';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { InvalidPageTokenError } from '../src/errors.ts';
import type { Caller, ListTasksInput } from '../src/task-store.ts';
import { createdTask, newTask, useTaskTestEnv, statusEvent, tenant, userMessage } from './task-fixtures.ts';

const env = useTaskTestEnv();

const user = (tenantId: string, principal = 'alice'): Caller => ({ tenantId, principal, admin: false });
const list = (caller: Caller, extra: Partial<ListTasksInput> = {}) =>
  env.store.listTasks({ caller, agentId: 'echo', pageSize: 50, includeArtifacts: false, ...extra });

/** Inserts `count` visible tasks sharing one status timestamp, in one statement. */
async function bulkTasks(tenantId: string, count: number, timestamp: string): Promise<void> {
  await sql`
    INSERT INTO tasks (tenant_id, id, context_id, agent_id, owner, visibility, state, version, status_timestamp)
    SELECT ${tenantId}, gen_random_uuid(), 'ctx-bulk', 'echo', 'alice', 'task', 'TASK_STATE_WORKING', 1, ${timestamp}::timestamptz
    FROM generate_series(1, ${count}::int)
  `.execute(env.db);
}

/** Follows nextPageToken to the end and returns every id seen, in order. */
async function pageThrough(
  caller: Caller,
  pageSize: number,
): Promise<{ ids: string[]; totals: Set<number>; pages: number }> {
  const ids: string[] = [];
  const totals = new Set<number>();
  let pageToken: string | undefined;
  let pages = 0;
  do {
    const page = await list(caller, { pageSize, pageToken });
    pages += 1;
    ids.push(...page.tasks.map((t) => t.id));
    totals.add(page.totalSize);
    expect(page.pageSize).toBe(pageSize);
    pageToken = page.nextPageToken || undefined;
  } while (pageToken);
  return { ids, totals, pages };
}

describe('ListTasks paging (digest §7.4 rules 21–22)', () => {
  it('pages through 10,000 tasks with identical status timestamps, each exactly once', async () => {
    const t = tenant();
    await bulkTasks(t, 10_000, '2026-03-01T12:00:00.123456Z');
    const { ids, totals, pages } = await pageThrough(user(t), 100);
    expect(pages).toBe(100);
    expect(ids).toHaveLength(10_000);
    expect(new Set(ids).size).toBe(10_000);
    expect([...totals]).toEqual([10_000]);
    // The tie-breaker is id, descending.
    expect([...ids].sort().reverse()).toEqual(ids);
  });

  it('keeps microseconds in the cursor: timestamps within one millisecond are neither skipped nor repeated', async () => {
    const t = tenant();
    for (const us of ['100', '200', '300', '400']) await bulkTasks(t, 3, `2026-03-01T12:00:00.123${us}Z`);
    const { ids } = await pageThrough(user(t), 1);
    expect(ids).toHaveLength(12);
    expect(new Set(ids).size).toBe(12);
    const order = await env.db
      .selectFrom('tasks')
      .select('id')
      .where('tenant_id', '=', t)
      .orderBy('status_timestamp', 'desc')
      .orderBy('id', 'desc')
      .execute();
    expect(ids).toEqual(order.map((r) => r.id));
  });

  it('newest status first; nextPageToken is "" on the last page', async () => {
    const t = tenant();
    const a = await createdTask(env.store, newTask(t));
    const b = await createdTask(env.store, newTask(t));
    await env.store.changeTask({
      tenantId: t,
      taskId: a.id,
      expectedVersion: 1,
      patch: { state: TaskState.WORKING },
      event: statusEvent(a, TaskState.WORKING),
    });
    const page = await list(user(t));
    expect(page.tasks.map((x) => x.id)).toEqual([a.id, b.id]);
    expect(page).toMatchObject({ nextPageToken: '', totalSize: 2, pageSize: 50 });
    const first = await list(user(t), { pageSize: 1 });
    expect(first.nextPageToken).not.toBe('');
    const second = await list(user(t), { pageSize: 1, pageToken: first.nextPageToken });
    expect(second.tasks.map((x) => x.id)).toEqual([b.id]);
    expect(second.nextPageToken).toBe('');
  });

  it('a malformed pageToken is InvalidPageTokenError', async () => {
    const t = tenant();
    for (const pageToken of [
      '%%%',
      'bm90IGpzb24',
      Buffer.from('{"v":1,"t":"x","i":"y"}').toString('base64url'),
      // Well shaped, but no time Postgres can read: once an internal error from its cast.
      ...['2024-99-99T99:99:99.000000Z', '0000-01-01T00:00:00.000000Z', '2024-02-30T12:00:00.000000Z'].map(
        (t) =>
          Buffer.from(JSON.stringify({ v: 1, t, i: '00000000-0000-4000-8000-000000000000' })).toString(
            'base64url',
          ),
      ),
    ]) {
      await expect(list(user(t), { pageToken })).rejects.toBeInstanceOf(InvalidPageTokenError);
    }
  });
});

describe('ListTasks filters and scope (digest §7.4 rules 20, 23–25)', () => {
  it('sees only the caller’s visible tasks in the caller’s tenant; admins see the tenant’s', async () => {
    const t = tenant();
    const mine = await createdTask(env.store, newTask(t));
    const bobs = await createdTask(env.store, newTask(t, { owner: 'bob' }));
    await createdTask(env.store, newTask(t, { visibility: 'pending' }));
    await createdTask(env.store, newTask(t, { visibility: 'message' }));
    await createdTask(env.store, newTask(tenant()));
    expect((await list(user(t))).tasks.map((x) => x.id)).toEqual([mine.id]);
    const admin = await list({ tenantId: t, principal: 'root', admin: true });
    expect(admin.tasks.map((x) => x.id).sort()).toEqual([mine.id, bobs.id].sort());
    expect(admin.totalSize).toBe(2);
    expect(await list(user(tenant()))).toEqual({ tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 });
  });

  it('filters by agent, context, state and statusTimestampAfter (>=), and counts the matches', async () => {
    const t = tenant();
    const a = await createdTask(env.store, newTask(t, { contextId: 'ctx-1' }));
    const b = await createdTask(env.store, newTask(t, { contextId: 'ctx-1', agentId: 'other' }));
    const c = await createdTask(env.store, newTask(t, { contextId: 'ctx-2' }));
    const working = await env.store.changeTask({
      tenantId: t,
      taskId: c.id,
      expectedVersion: 1,
      patch: { state: TaskState.WORKING },
      event: statusEvent(c, TaskState.WORKING),
    });
    const ids = async (extra: Partial<ListTasksInput>) =>
      (await list(user(t), extra)).tasks.map((x) => x.id).sort();
    // Each agent lists its own (the default here is echo's).
    expect(await ids({ contextId: 'ctx-1' })).toEqual([a.id]);
    expect(await ids({ agentId: 'other' })).toEqual([b.id]);
    expect(await ids({ agentId: 'other', contextId: 'ctx-2' })).toEqual([]);
    expect(await ids({ state: TaskState.WORKING })).toEqual([c.id]);
    expect(await ids({ state: TaskState.UNSPECIFIED })).toHaveLength(2);
    expect(await ids({ statusTimestampAfter: working.statusTimestamp })).toEqual([c.id]);
    expect((await list(user(t), { pageSize: 1 })).totalSize).toBe(2);
  });

  it('totalSize is exact on both sides of a full first page (counted from the page, or by a count)', async () => {
    const t = tenant();
    // Tasks another principal owns or nobody sees yet are neither in the page nor in the total.
    await createdTask(env.store, newTask(t, { owner: 'bob' }));
    await createdTask(env.store, newTask(t, { visibility: 'pending' }));
    const sizes: Array<[number, number, number, boolean]> = [];
    for (let n = 1; n <= 4; n += 1) {
      await createdTask(env.store, newTask(t));
      const first = await list(user(t), { pageSize: 3 });
      sizes.push([n, first.tasks.length, first.totalSize, first.nextPageToken !== '']);
      if (first.nextPageToken) {
        const last = await list(user(t), { pageSize: 3, pageToken: first.nextPageToken });
        expect([last.tasks.length, last.totalSize, last.nextPageToken]).toEqual([n - 3, n, '']);
      }
    }
    expect(sizes).toEqual([
      [1, 1, 1, false],
      [2, 2, 2, false],
      [3, 3, 3, false],
      [4, 3, 4, true],
    ]);
  });

  it('artifacts key absent unless includeArtifacts, then present even when empty (rule 24)', async () => {
    const t = tenant();
    const task = await createdTask(env.store, newTask(t));
    const plain = await createdTask(env.store, newTask(t));
    await env.store.changeTask({
      tenantId: t,
      taskId: task.id,
      expectedVersion: 1,
      patch: {},
      event: {
        artifactUpdate: {
          taskId: task.id,
          contextId: task.contextId,
          artifact: { artifactId: 'a', parts: [{ text: 'x' }] },
        },
      },
      artifactChunk: { artifactId: 'a', append: false, lastChunk: true, parts: [{ text: 'x' }] },
    });
    for (const x of (await list(user(t))).tasks) expect(x).not.toHaveProperty('artifacts');
    const withArtifacts = await list(user(t), { includeArtifacts: true });
    const byId = new Map(withArtifacts.tasks.map((x) => [x.id, x]));
    expect(byId.get(task.id)?.artifacts).toEqual([{ artifactId: 'a', parts: [{ text: 'x' }] }]);
    expect(byId.get(plain.id)?.artifacts).toEqual([]);
  });

  it('applies historyLength to each task (rule 25)', async () => {
    const t = tenant();
    const tasks = [await createdTask(env.store, newTask(t)), await createdTask(env.store, newTask(t))];
    for (const task of tasks) {
      await env.store.changeTask({
        tenantId: t,
        taskId: task.id,
        expectedVersion: 1,
        patch: {},
        event: statusEvent(task, TaskState.SUBMITTED),
        appendMessages: [userMessage('latest')],
      });
    }
    const one = await list(user(t), { historyLength: 1 });
    for (const x of one.tasks) expect(x.history?.map((m) => m.parts[0])).toEqual([{ text: 'latest' }]);
    for (const x of (await list(user(t), { historyLength: 0 })).tasks)
      expect(x).not.toHaveProperty('history');
    for (const x of (await list(user(t))).tasks) expect(x.history).toHaveLength(2);
  });
});

// Found in review: the only list index by owner was (tenant_id, owner, …), so a caller's list of
// one agent walked the caller's tasks of every other agent and the hidden Message-reply rows, on
// every page and in the count. The query below has list-tasks.ts's shape for a non-admin caller.
describe('ListTasks of one agent, for one owner', () => {
  it('reads only the rows it returns: other agents and Message replies are not walked', async () => {
    const t = tenant();
    await sql`
      INSERT INTO tasks (tenant_id, id, context_id, agent_id, owner, visibility, state, version, status_timestamp)
      SELECT ${t}, gen_random_uuid(), 'c', a.agent, 'alice', a.visibility, 'TASK_STATE_COMPLETED', 1,
             now() - a.age - (g || ' ms')::interval
      FROM generate_series(1, 3000) g,
           (VALUES ('other', 'task', interval '0'), ('echo', 'message', interval '0'),
                   ('echo', 'task', interval '1 day')) AS a(agent, visibility, age)
    `.execute(env.db);
    await sql`ANALYZE tasks`.execute(env.db);
    const plan = await env.db.transaction().execute(async (trx) => {
      await sql`SET LOCAL plan_cache_mode = force_custom_plan`.execute(trx);
      return (
        await sql<{ 'QUERY PLAN': unknown }>`
          EXPLAIN (ANALYZE, FORMAT JSON)
          SELECT * FROM tasks
          WHERE tenant_id = ${t} AND visibility = 'task' AND owner = 'alice' AND agent_id = 'echo'
          ORDER BY status_timestamp DESC, id DESC LIMIT 11`.execute(trx)
      ).rows[0]!['QUERY PLAN'];
    });
    const text = JSON.stringify(plan);
    expect(text).toMatch(/"Index Name":"[^"]*tasks_agent_owner_list"/);
    expect(text).not.toMatch(/"Rows Removed by Filter":[1-9]/);
    expect(text).not.toContain('"Sort Method"');
  });
});
