import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Caller, ListTasksPage } from '../src/task-store.ts';
import { listTasks, pageCandidates } from '../src/tasks/list-tasks.ts';
import { rowsRead } from './rows-read.ts';
import { pageThrough, sizedTask, text } from './sized-tasks.ts';
import { tenant, useTaskTestEnv } from './task-fixtures.ts';

// A ListTasks page stops at its byte budget (maxPageBytes), sized in Postgres before the history
// and artifacts are read: 100 tasks of a few MB each were once one response of hundreds of MB.
// Servers may return fewer tasks than pageSize (AIP-158); nextPageToken, totalSize and pageSize
// keep their meaning (digest §7.4 rule 22).

const env = useTaskTestEnv();
const alice = (tenantId: string): Caller => ({ tenantId, principal: 'alice', admin: false });

/** Every task of the tenant in ListTasks order (digest §7.4 rule 21), straight from the table. */
async function listOrder(tenantId: string): Promise<string[]> {
  const rows = await env.db
    .selectFrom('tasks')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .orderBy('status_timestamp', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map((r) => r.id);
}

const sizes = (pages: string[][]) => pages.map((p) => p.length);

describe('ListTasks within a byte budget', () => {
  it('ends a page before the task that would pass the budget; its token continues right after it', async () => {
    const t = tenant();
    for (let k = 0; k < 10; k++) await sizedTask(env, t, { history: [text(100_000)] });
    const { pages, totals, pageSizes } = await pageThrough(env, alice(t), { maxPageBytes: 350_000 });
    expect(sizes(pages)).toEqual([3, 3, 3, 1]);
    expect(pages.flat()).toEqual(await listOrder(t));
    expect([...totals]).toEqual([10]);
    // The page size applied, not the count of a page the budget cut short.
    expect([...pageSizes]).toEqual([50]);
  });

  it('a task over the budget alone is a page of its own, with the newest history that fits', async () => {
    const t = tenant();
    const oldest = await sizedTask(env, t, { history: ['small'] });
    const big = await sizedTask(env, t, {
      history: [text(100_000, 'one'), text(100_000, 'two'), text(100_000, 'three')],
    });
    const newest = await sizedTask(env, t, { history: ['small'] });
    const bigViews: ListTasksPage['tasks'] = [];
    const { pages, totals } = await pageThrough(env, alice(t), { maxPageBytes: 250_000 }, (page) =>
      bigViews.push(...page.tasks.filter((task) => task.id === big)),
    );
    expect(pages).toEqual([[newest], [big], [oldest]]);
    expect([...totals]).toEqual([3]);
    expect(bigViews[0]?.history?.map((m) => m.parts[0]?.text?.slice(0, 5))).toEqual(['twoxx', 'three']);
  });

  it('counts artifacts only when they are included, and never cuts them', async () => {
    const t = tenant();
    for (let k = 0; k < 4; k++) await sizedTask(env, t, { history: ['hi'], artifacts: [text(100_000)] });
    const budget = { maxPageBytes: 250_000 };
    expect(sizes((await pageThrough(env, alice(t), budget)).pages)).toEqual([4]);
    const withArtifacts = await pageThrough(env, alice(t), { ...budget, includeArtifacts: true });
    expect(sizes(withArtifacts.pages)).toEqual([2, 2]);
    expect(withArtifacts.pages.flat()).toEqual(await listOrder(t));

    const u = tenant();
    await sizedTask(env, u, { history: [text(10_000), text(10_000)], artifacts: [text(300_000, 'whole')] });
    const [task] = (
      await env.store.listTasks({
        caller: alice(u),
        agentId: 'echo',
        pageSize: 50,
        includeArtifacts: true,
        ...budget,
      })
    ).tasks;
    expect(task?.artifacts?.[0]?.parts[0]?.text).toBe(text(300_000, 'whole'));
    // Nothing of the history fits beside it: the key is omitted, as for historyLength 0.
    expect(task).not.toHaveProperty('history');
  });

  it('counts only the history historyLength shows', async () => {
    const t = tenant();
    for (let k = 0; k < 4; k++) await sizedTask(env, t, { history: [text(100_000), 'latest'] });
    const budget = { maxPageBytes: 250_000 };
    expect(sizes((await pageThrough(env, alice(t), { ...budget, historyLength: 1 })).pages)).toEqual([4]);
    expect(sizes((await pageThrough(env, alice(t), { ...budget, historyLength: 0 })).pages)).toEqual([4]);
    expect(sizes((await pageThrough(env, alice(t), budget)).pages)).toEqual([2, 2]);
  });

  it('sizes the candidates only until the page is full: a page of big tasks reads what it returns', async () => {
    const t = tenant();
    for (let k = 0; k < 20; k++) await sizedTask(env, t, { history: [text(100_000)] });
    const input = {
      caller: alice(t),
      agentId: 'echo',
      pageSize: 20,
      includeArtifacts: false,
      maxPageBytes: 250_000,
    };
    expect((await listTasks(env.db, input)).tasks).toHaveLength(2);
    let sized = 0;
    const read = await rowsRead(env.db, 'task_messages', async (trx) => {
      sized = (await pageCandidates(trx, input)).rows.filter((row) => row.row_bytes !== null).length;
    });
    // Three tasks sized (the third passes the budget), one message each; not all twenty.
    expect(sized).toBe(3);
    expect(read).toBe(3);
  });

  it('sizes a task by the JSON Postgres sends, not by what it stores', async () => {
    const t = tenant();
    // 300 KB of one letter compresses (TOAST) to a few KB; 2,000 × 1e308 are stored as a few bytes
    // each and sent as 309 digits each, about 620 KB.
    const compressible = await sizedTask(env, t, { history: ['a'.repeat(300_000)] });
    await sizedTask(env, t, { history: [[{ data: Array.from({ length: 2000 }, () => 1e308) }]] });
    const stored = await sql<{ bytes: number }>`
      SELECT pg_column_size(message) AS bytes FROM task_messages
      WHERE tenant_id = ${t} AND task_id = ${compressible}::uuid`.execute(env.db);
    expect(stored.rows[0]!.bytes).toBeLessThan(20_000);
    const { pages } = await pageThrough(env, alice(t), { maxPageBytes: 500_000 });
    expect(sizes(pages)).toEqual([1, 1]);
  });
});
