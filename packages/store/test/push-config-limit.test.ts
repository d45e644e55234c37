import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresPushConfigStore } from '../src/postgres-push-config-store.ts';
import { DEFAULT_MAX_PUSH_CONFIGS_PER_TASK } from '../src/push-configs/add-push-config.ts';
import { REDACTED } from '../src/push-configs/push-config-view.ts';
import { createdTask, newTask, openTaskTestEnv, tenant, type TaskTestEnv } from './task-fixtures.ts';

// README "Limits": webhooks per task. A refused create changes nothing; re-registering an id or a
// URL the task has is not a new config; concurrent creates cannot pass the limit together.
let env: TaskTestEnv;
let push: PostgresPushConfigStore;
const MAX = 3;
beforeAll(async () => {
  env = await openTaskTestEnv();
  push = new PostgresPushConfigStore({ db: env.db, secrets: env.secrets, maxConfigsPerTask: MAX });
});
afterAll(async () => {
  await env.testDb.drop();
});

/** A task of tenant `t`, with its row: a push config is only created for a task that exists. */
const aTask = async (t: string) => (await createdTask(env.store, newTask(t))).id;

const hook = (n: number | string) => ({ url: `https://hooks.example/${n}` });

/** The task's rows as stored, so a refusal can be shown to change nothing (secrets included). */
async function rows(tenantId: string, taskId: string) {
  return env.db
    .selectFrom('push_configs')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('task_id', '=', taskId)
    .orderBy('id')
    .execute();
}

/** A task (uuid) of tenant `t` that already has MAX configs, ids c0…c2, URLs …/0…/2. */
async function fullTask(t: string): Promise<string> {
  const taskId = await aTask(t);
  for (let i = 0; i < MAX; i++) await push.createPushConfig(t, taskId, { id: `c${i}`, ...hook(i) });
  return taskId;
}

describe('push configs per task (README "Limits")', () => {
  it('defaults to 10 and refuses a nonsense setting', () => {
    expect(DEFAULT_MAX_PUSH_CONFIGS_PER_TASK).toBe(10);
    expect(new PostgresPushConfigStore({ db: env.db, secrets: env.secrets }).maxConfigsPerTask).toBe(10);
    expect(() => new PostgresPushConfigStore({ ...env, maxConfigsPerTask: 0 })).toThrow(RangeError);
  });

  it('one config more than the limit is refused and changes nothing', async () => {
    const t = tenant();
    const taskId = await fullTask(t);
    const before = await rows(t, taskId);
    expect(await push.tryCreatePushConfig(t, taskId, { id: 'c9', ...hook(9), token: 'tok' })).toBeNull();
    expect(await push.tryCreatePushConfig(t, taskId, hook(9))).toBeNull();
    await expect(push.createPushConfig(t, taskId, hook(9))).rejects.toThrow(/already has 3/);
    expect(await rows(t, taskId)).toEqual(before);
  });

  it('re-registering an existing id at the limit is an upsert, not a new config', async () => {
    const t = tenant();
    const taskId = await fullTask(t);
    const updated = await push.tryCreatePushConfig(t, taskId, { id: 'c1', ...hook('new'), token: 'tok' });
    expect(updated).toEqual({ id: 'c1', taskId, url: 'https://hooks.example/new', token: REDACTED });
    expect(await rows(t, taskId)).toHaveLength(MAX);
  });

  it('a URL the task has, given without an id, updates that config and keeps its id', async () => {
    const t = tenant();
    const taskId = await fullTask(t);
    const again = await push.tryCreatePushConfig(t, taskId, {
      ...hook(2),
      authentication: { scheme: 'Bearer', credentials: 'c' },
    });
    expect(again).toEqual({
      id: 'c2',
      taskId,
      url: 'https://hooks.example/2',
      authentication: { scheme: 'Bearer', credentials: REDACTED },
    });
    expect(await rows(t, taskId)).toHaveLength(MAX);
  });

  it('below the limit too, an id-less config for a registered URL adds no second delivery target', async () => {
    const t = tenant();
    const taskId = await aTask(t);
    const first = await push.createPushConfig(t, taskId, hook('same'));
    const second = await push.createPushConfig(t, taskId, hook('same'));
    expect(second.id).toBe(first.id);
    expect(await rows(t, taskId)).toHaveLength(1);
  });

  it('the same URL under a new id is a new config, so it counts', async () => {
    const t = tenant();
    const taskId = await fullTask(t);
    expect(await push.tryCreatePushConfig(t, taskId, { id: 'c9', ...hook(0) })).toBeNull();
  });

  it('deleting a config makes room for one more', async () => {
    const t = tenant();
    const taskId = await fullTask(t);
    await push.deletePushConfig(t, taskId, 'c0');
    expect(await push.tryCreatePushConfig(t, taskId, { id: 'c9', ...hook(9) })).not.toBeNull();
    expect(await push.tryCreatePushConfig(t, taskId, { id: 'c10', ...hook(10) })).toBeNull();
  });

  it('the limit is per task and per tenant', async () => {
    const t = tenant();
    const taskId = await fullTask(t);
    expect(await push.tryCreatePushConfig(t, await aTask(t), hook(9))).not.toBeNull();
    // The same task id in another tenant is another task.
    const other = tenant();
    await createdTask(env.store, newTask(other, { id: taskId }));
    expect(await push.tryCreatePushConfig(other, taskId, hook(9))).not.toBeNull();
  });

  it('concurrent creates on one task never pass the limit together', async () => {
    const t = tenant();
    const taskId = await aTask(t);
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, i) => push.tryCreatePushConfig(t, taskId, hook(i))),
    );
    expect(results.filter((r) => r !== null)).toHaveLength(MAX);
    expect(await rows(t, taskId)).toHaveLength(MAX);
  });

  it('concurrent id-less creates of one URL store it once', async () => {
    const t = tenant();
    const taskId = await aTask(t);
    const results = await Promise.all(
      Array.from({ length: 8 }, () => push.tryCreatePushConfig(t, taskId, hook('same'))),
    );
    expect(new Set(results.map((r) => r?.id)).size).toBe(1);
    expect(await rows(t, taskId)).toHaveLength(1);
  });

  it('inside a caller’s transaction it runs there (no nested transaction)', async () => {
    const t = tenant();
    const taskId = await aTask(t);
    await env.db.transaction().execute(async (trx) => {
      const inTrx = new PostgresPushConfigStore({ db: trx, secrets: env.secrets, maxConfigsPerTask: 1 });
      expect(await inTrx.tryCreatePushConfig(t, taskId, hook(1))).not.toBeNull();
      expect(await inTrx.tryCreatePushConfig(t, taskId, hook(2))).toBeNull();
    });
    expect(await rows(t, taskId)).toHaveLength(1);
  });
});
