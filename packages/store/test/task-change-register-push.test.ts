import { TaskState } from '@switchyard/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isConflict, isPushConfigLimit } from '../src/errors.ts';
import { DEFAULT_MAX_PUSH_CONFIGS_PER_TASK } from '../src/push-configs/add-push-config.ts';
import { PostgresPushConfigStore } from '../src/postgres-push-config-store.ts';
import { PostgresTaskStore } from '../src/postgres-task-store.ts';
import type { ChangeTaskInput, TaskRecord } from '../src/task-store.ts';
import {
  createdTask,
  deliverySeqs,
  eventSeqs,
  newTask,
  openTaskTestEnv,
  statusEvent,
  tenant,
  type TaskTestEnv,
} from './task-fixtures.ts';

// A continuation registers the webhook its message names in the change's own transaction
// (ChangeTaskInput.registerPushConfig): the change's event is queued for it, and a change that
// fails registers nothing, so a send that lost its race leaves no webhook (and no token) behind.

let env: TaskTestEnv;
let push: PostgresPushConfigStore;
beforeAll(async () => {
  env = await openTaskTestEnv();
  push = new PostgresPushConfigStore({ db: env.db, secrets: env.secrets });
});
afterAll(async () => {
  await env.testDb.drop();
});

const answer = (task: TaskRecord, expectedVersion: number, token: string): ChangeTaskInput => ({
  tenantId: task.tenantId,
  taskId: task.id,
  expectedVersion,
  fromStates: [TaskState.SUBMITTED],
  patch: { state: TaskState.WORKING },
  event: statusEvent(task, TaskState.WORKING),
  registerPushConfig: { url: 'https://hooks.example/a2a', token },
});

describe('a change that registers a webhook', () => {
  it('registers it with the change, and queues the change’s own event for it', async () => {
    const task = await createdTask(env.store, newTask(tenant(), { visibility: 'task' }));
    await env.store.changeTask(answer(task, 1, 'winner'));
    const { configs } = await push.listPushConfigs(task.tenantId, task.id, { pageSize: 10 });
    expect(configs.map((c) => c.url)).toEqual(['https://hooks.example/a2a']);
    expect(await deliverySeqs(env.db, task.tenantId, task.id)).toEqual([
      { config_id: configs[0]!.id, seq: 2 },
    ]);
  });

  it('registers nothing when the change is refused', async () => {
    const task = await createdTask(env.store, newTask(tenant()));
    const refused = await env.store.changeTask(answer(task, 7, 'loser')).catch((err: unknown) => err);
    expect(isConflict(refused)).toBe(true);
    expect((await push.listPushConfigs(task.tenantId, task.id, { pageSize: 10 })).configs).toEqual([]);
    expect(await eventSeqs(env.db, task.tenantId, task.id)).toEqual([1]);
  });

  it('leaves a webhook the task already has for the URL as it is', async () => {
    const task = await createdTask(env.store, newTask(tenant()));
    const first = await push.createPushConfig(task.tenantId, task.id, {
      url: 'https://hooks.example/a2a',
      token: 'first',
    });
    await env.store.changeTask(answer(task, 1, 'second'));
    const { configs } = await push.listPushConfigs(task.tenantId, task.id, { pageSize: 10 });
    expect(configs.map((c) => c.id)).toEqual([first.id]);
    const row = await env.db
      .selectFrom('push_configs')
      .select('token_enc')
      .where('tenant_id', '=', task.tenantId)
      .where('task_id', '=', task.id)
      .executeTakeFirstOrThrow();
    expect(env.secrets.open(row.token_enc!)).toBe('first');
  });

  it('changes nothing at the task’s limit of webhooks', async () => {
    const task = await createdTask(env.store, newTask(tenant()));
    for (let k = 0; k < DEFAULT_MAX_PUSH_CONFIGS_PER_TASK; k++)
      await push.createPushConfig(task.tenantId, task.id, { id: `c${k}`, url: `https://hooks.example/${k}` });
    const refused = await env.store.changeTask(answer(task, 1, 'over')).catch((err: unknown) => err);
    expect(isPushConfigLimit(refused)).toBe(true);
    expect(await env.store.getTaskRecord(task.tenantId, task.id)).toMatchObject({
      version: 1,
      state: TaskState.SUBMITTED,
    });
  });

  it('stops at the limit the store was given, and says which', async () => {
    const store = new PostgresTaskStore({ db: env.db, secrets: env.secrets, maxPushConfigsPerTask: 1 });
    const task = await createdTask(store, newTask(tenant()));
    await push.createPushConfig(task.tenantId, task.id, { url: 'https://hooks.example/first' });
    const refused = await store.changeTask(answer(task, 1, 'second')).catch((err: unknown) => err);
    expect(isPushConfigLimit(refused) && refused.max).toBe(1);
    expect((await push.listPushConfigs(task.tenantId, task.id, { pageSize: 10 })).configs).toHaveLength(1);
  });

  it('refuses a limit that is not a positive count', () => {
    expect(() => new PostgresTaskStore({ db: env.db, maxPushConfigsPerTask: 0 })).toThrow(
      /maxPushConfigsPerTask/,
    );
  });
});
