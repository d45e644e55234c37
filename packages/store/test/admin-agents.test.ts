import { createTestDatabase, type TestDatabase } from '@switchyard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresAdminStore } from '../src/admin/index.ts';
import { createDb } from '../src/db.ts';
import { createSecretBox } from '../src/secret-box.ts';

let testDb: TestDatabase;
let store: PostgresAdminStore;

beforeAll(async () => {
  testDb = await createTestDatabase();
  store = new PostgresAdminStore({
    db: createDb(testDb.pool),
    secrets: createSecretBox('admin-agents-test-key'),
  });
  await store.createTenant({ id: 't1', name: 'T1' });
  await store.createTenant({ id: 't2', name: 'T2' });
});
afterAll(async () => {
  await testDb.drop();
});

const card = { name: 'Echo', description: 'echoes', version: '1.0.0', skills: [{ id: 'echo' }] };

describe('agents', () => {
  it('upsertAgent creates an agent with its card, executor and default settings', async () => {
    const agent = await store.upsertAgent({ tenantId: 't1', id: 'echo', card, executor: 'echo' });
    expect(agent).toMatchObject({ tenantId: 't1', id: 'echo', card, executor: 'echo', settings: {} });
    expect(agent.createdAt).toBeInstanceOf(Date);
    expect(await store.getAgent('t1', 'echo')).toEqual(agent);
  });

  it('upsertAgent replaces card, executor and settings, keeps created_at and bumps updated_at', async () => {
    const before = await store.upsertAgent({ tenantId: 't1', id: 'swap', card, executor: 'echo' });
    const after = await store.upsertAgent({
      tenantId: 't1',
      id: 'swap',
      card: { ...card, version: '2.0.0' },
      executor: 'llm',
      settings: { model: 'small' },
    });
    expect(after).toMatchObject({
      executor: 'llm',
      settings: { model: 'small' },
      card: { version: '2.0.0' },
    });
    expect(after.createdAt).toEqual(before.createdAt);
    expect(after.updatedAt.getTime()).toBeGreaterThanOrEqual(before.updatedAt.getTime());
  });

  it('agents are scoped by tenant: the same id in another tenant is another agent', async () => {
    await store.upsertAgent({ tenantId: 't2', id: 'echo', card: { name: 'Other' }, executor: 'other' });
    expect((await store.getAgent('t1', 'echo'))?.executor).toBe('echo');
    expect((await store.getAgent('t2', 'echo'))?.executor).toBe('other');
    expect((await store.listAgents('t2')).map((a) => a.id)).toEqual(['echo']);
    expect((await store.listAgents('t1')).map((a) => a.id)).toEqual(['echo', 'swap']);
  });

  it('deleteAgent removes one agent and answers absent the second time', async () => {
    expect(await store.deleteAgent('t2', 'echo')).toBe('deleted');
    expect(await store.deleteAgent('t2', 'echo')).toBe('absent');
    expect(await store.getAgent('t2', 'echo')).toBeNull();
    expect(await store.getAgent('t1', 'echo')).not.toBeNull();
  });
});
