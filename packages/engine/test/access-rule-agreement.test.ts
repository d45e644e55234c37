import { randomUUID } from 'node:crypto';
import { TaskState } from '@switchyard/protocol';
import {
  createDb,
  PostgresTaskStore,
  type Caller,
  type TaskRecord,
  type Visibility,
} from '@switchyard/store';
import { createTestDatabase, type TestDatabase } from '@switchyard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canSee } from '../src/service/access.ts';

// The access rule lives in two places: canSee (the engine, over a record it read) and the guards
// the store's GetTask and ListTasks put in their SQL (one statement, no second read). This test
// holds them to one answer over every combination of tenant, agent, visibility, owner and role.
let testDb: TestDatabase;
let store: PostgresTaskStore;

beforeAll(async () => {
  testDb = await createTestDatabase();
  store = new PostgresTaskStore({ db: createDb(testDb.pool) });
});
afterAll(async () => {
  await testDb.drop();
});

const visibilities: Visibility[] = ['pending', 'task', 'message'];
const owners = ['alice', 'bob'];
const agents = ['echo', 'other'];

async function seed(tenantId: string): Promise<TaskRecord[]> {
  const records: TaskRecord[] = [];
  for (const visibility of visibilities)
    for (const owner of owners)
      for (const agentId of agents) {
        const id = randomUUID();
        const contextId = randomUUID();
        const created = await store.createTask({
          tenantId,
          id,
          contextId,
          agentId,
          owner,
          visibility,
          message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] },
          event: { task: { id, contextId, status: { state: TaskState.SUBMITTED } } },
        });
        if (!created.created) throw new Error('expected a new task');
        records.push(created.task);
      }
  return records;
}

describe('the access rule, in the engine and in the store’s SQL', () => {
  it('GetTask and ListTasks answer exactly what canSee answers', async () => {
    const tenantA = `t-${randomUUID().slice(0, 8)}`;
    const tenantB = `t-${randomUUID().slice(0, 8)}`;
    const records = [...(await seed(tenantA)), ...(await seed(tenantB))];
    const callers: Caller[] = [
      { tenantId: tenantA, principal: 'alice', admin: false },
      { tenantId: tenantA, principal: 'carol', admin: false },
      { tenantId: tenantA, principal: 'root', admin: true },
      { tenantId: tenantB, principal: 'bob', admin: false },
    ];
    let visible = 0;
    for (const caller of callers)
      for (const agentId of agents) {
        const expected = records.filter((r) => canSee(r, caller, agentId)).map((r) => r.id);
        visible += expected.length;
        const got: string[] = [];
        for (const r of records) if (await store.getTask(caller, r.id, { agentId })) got.push(r.id);
        expect(got.sort()).toEqual([...expected].sort());
        const page = await store.listTasks({ caller, agentId, pageSize: 100, includeArtifacts: false });
        expect(page.tasks.map((t) => t.id).sort()).toEqual([...expected].sort());
        expect(page.totalSize).toBe(expected.length);
      }
    // Not vacuous: owners, admins and both agents see something, and most pairs see nothing.
    expect(visible).toBeGreaterThan(4);
  });
});
