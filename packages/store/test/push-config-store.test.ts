import { randomUUID } from 'node:crypto';
import { TaskState } from '@switchyard/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@switchyard/testing';
import { ConflictError, InvalidPageTokenError } from '../src/errors.ts';
import { PostgresPushConfigStore } from '../src/postgres-push-config-store.ts';
import { loadPushConfigSecrets } from '../src/push-configs/load-push-config-secrets.ts';
import { REDACTED } from '../src/push-configs/push-config-view.ts';
import type { TaskRecord } from '../src/task-store.ts';
import { claimTasks } from '../src/tasks/claim-task.ts';
import { endRuns } from '../src/tasks/end-runs.ts';
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

let env: TaskTestEnv;
let push: PostgresPushConfigStore;
beforeAll(async () => {
  env = await openTaskTestEnv();
  push = new PostgresPushConfigStore({ db: env.db, secrets: env.secrets });
});
afterAll(async () => {
  await env.testDb.drop();
});

/** A task of tenant `t`, with its row: a push config is only created for a task that exists. */
const aTask = async (t: string) => (await createdTask(env.store, newTask(t))).id;

/** Waits until `n` backends of this file's database wait on a lock. */
const lockWaiters = (n: number) =>
  waitFor(async () => {
    const { rows } = await env.testDb.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    return rows[0]!.n >= n;
  });

const secretConfig = {
  url: 'https://hooks.example/in',
  token: 'tok-secret',
  authentication: { scheme: 'Bearer', credentials: 'cred-secret' },
};

describe('push config secrets are redacted on read (digest §8 "Secrets", epic #1988)', () => {
  it('create stores sealed secrets and answers with redacted ones and a server id', async () => {
    const t = tenant();
    const taskId = await aTask(t);
    const created = await push.createPushConfig(t, taskId, secretConfig);
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      taskId,
      url: secretConfig.url,
      token: REDACTED,
      authentication: { scheme: 'Bearer', credentials: REDACTED },
    });
    const got = await push.getPushConfig(t, taskId, created.id!);
    expect(got).toEqual(created);
    expect(JSON.stringify(got)).not.toContain('secret');
    const row = await env.db
      .selectFrom('push_configs')
      .selectAll()
      .where('tenant_id', '=', t)
      .executeTakeFirstOrThrow();
    expect(row.token_enc?.toString('latin1')).not.toContain('tok-secret');
  });

  it('loadPushConfigSecrets gives the pusher the plaintext', async () => {
    const t = tenant();
    const taskId = await aTask(t);
    await push.createPushConfig(t, taskId, { id: 'c1', ...secretConfig });
    expect(await loadPushConfigSecrets(env.db, env.secrets, t, taskId, 'c1')).toEqual({
      url: secretConfig.url,
      token: 'tok-secret',
      authentication: { scheme: 'Bearer', credentials: 'cred-secret' },
    });
    expect(await loadPushConfigSecrets(env.db, env.secrets, tenant(), taskId, 'c1')).toBeNull();
  });

  it('a config read and saved back (placeholders and all) keeps its secrets; new ones replace them', async () => {
    const t = tenant();
    const taskId = await aTask(t);
    const created = await push.createPushConfig(t, taskId, { id: 'rt', ...secretConfig });
    expect(await push.createPushConfig(t, taskId, created)).toEqual(created);
    expect(await loadPushConfigSecrets(env.db, env.secrets, t, taskId, 'rt')).toEqual(secretConfig);
    // Without an id too: the URL names the config.
    const { id: _, ...idLess } = created;
    expect(await push.createPushConfig(t, taskId, idLess)).toEqual(created);
    const moved = { url: 'https://hooks.example/moved' };
    await push.createPushConfig(t, taskId, {
      ...created,
      ...moved,
      token: 'tok-new',
      authentication: { scheme: 'Bearer', credentials: 'cred-new' },
    });
    expect(await loadPushConfigSecrets(env.db, env.secrets, t, taskId, 'rt')).toEqual({
      ...moved,
      token: 'tok-new',
      authentication: { scheme: 'Bearer', credentials: 'cred-new' },
    });
    // Saved back without them, the secrets go, as a config saved without a token has none.
    await push.createPushConfig(t, taskId, { id: 'rt', ...moved });
    expect(await loadPushConfigSecrets(env.db, env.secrets, t, taskId, 'rt')).toEqual(moved);
  });

  it('a placeholder secret with a changed URL, or for a new config, is refused and changes nothing', async () => {
    const t = tenant();
    const taskId = await aTask(t);
    const created = await push.createPushConfig(t, taskId, { id: 'rt', ...secretConfig });
    const attacker = 'https://attacker.example/collect';
    // The stored credentials must never follow the config to another host.
    await expect(push.createPushConfig(t, taskId, { ...created, url: attacker })).rejects.toMatchObject({
      name: 'RedactedSecretError',
      field: 'token',
    });
    await expect(
      push.createPushConfig(t, taskId, { id: 'rt', url: attacker, authentication: created.authentication! }),
    ).rejects.toMatchObject({ name: 'RedactedSecretError', field: 'authentication.credentials' });
    expect(await loadPushConfigSecrets(env.db, env.secrets, t, taskId, 'rt')).toEqual(secretConfig);
    // Nothing stored stands for a placeholder on a new config (by id or by URL).
    for (const config of [
      { id: 'new', url: attacker, token: REDACTED },
      { url: attacker, token: REDACTED },
    ])
      await expect(push.createPushConfig(t, taskId, config)).rejects.toMatchObject({
        name: 'RedactedSecretError',
      });
    expect((await push.listPushConfigs(t, taskId, { pageSize: 10 })).configs.map((c) => c.id)).toEqual([
      'rt',
    ]);
  });

  it('a config without secrets has no token or credentials keys', async () => {
    const t = tenant();
    const taskId = await aTask(t);
    const plain = await push.createPushConfig(t, taskId, {
      id: 'p',
      url: 'https://hooks.example/p',
      authentication: { scheme: 'Basic' },
    });
    expect(plain).toEqual({
      id: 'p',
      taskId,
      url: 'https://hooks.example/p',
      authentication: { scheme: 'Basic' },
    });
  });

  it('creating an existing id replaces it (a retried create is idempotent)', async () => {
    const t = tenant();
    const taskId = await aTask(t);
    await push.createPushConfig(t, taskId, { id: 'c1', ...secretConfig });
    await push.createPushConfig(t, taskId, { id: 'c1', url: 'https://hooks.example/new' });
    expect(await push.getPushConfig(t, taskId, 'c1')).toEqual({
      id: 'c1',
      taskId,
      url: 'https://hooks.example/new',
    });
  });
});

describe('list, delete and tenant scope', () => {
  it('lists in id order with an opaque page token', async () => {
    const t = tenant();
    const taskId = await aTask(t);
    for (const id of ['c', 'a', 'b', 'd', 'e'])
      await push.createPushConfig(t, taskId, { id, url: `https://hooks.example/${id}` });
    const first = await push.listPushConfigs(t, taskId, { pageSize: 2 });
    expect(first.configs.map((c) => c.id)).toEqual(['a', 'b']);
    const second = await push.listPushConfigs(t, taskId, { pageSize: 2, pageToken: first.nextPageToken });
    const third = await push.listPushConfigs(t, taskId, { pageSize: 2, pageToken: second.nextPageToken });
    expect(second.configs.map((c) => c.id)).toEqual(['c', 'd']);
    expect(third).toEqual({ configs: [expect.objectContaining({ id: 'e' })], nextPageToken: '' });
    expect((await push.listPushConfigs(t, taskId, { pageSize: 0 })).configs).toHaveLength(5);
    await expect(push.listPushConfigs(t, taskId, { pageSize: 2, pageToken: '!!' })).rejects.toBeInstanceOf(
      InvalidPageTokenError,
    );
  });

  it('delete is idempotent and takes the config’s queued deliveries with it', async () => {
    const t = tenant();
    const task = await createdTask(
      env.store,
      newTask(t, { pushConfig: { id: 'c1', url: 'https://hooks.example/1' } }),
    );
    await env.store.changeTask({
      tenantId: t,
      taskId: task.id,
      expectedVersion: 1,
      patch: { state: TaskState.WORKING },
      event: statusEvent(task, TaskState.WORKING),
    });
    expect(await deliverySeqs(env.db, t, task.id)).toHaveLength(2);
    expect(await push.deletePushConfig(t, task.id, 'c1')).toBe(true);
    expect(await push.deletePushConfig(t, task.id, 'c1')).toBe(false);
    expect(await deliverySeqs(env.db, t, task.id)).toEqual([]);
    expect(await push.getPushConfig(t, task.id, 'c1')).toBeNull();
  });

  it('another tenant cannot read, list or delete a config', async () => {
    const t = tenant();
    const taskId = await aTask(t);
    await push.createPushConfig(t, taskId, { id: 'c1', ...secretConfig });
    const other = tenant();
    expect(await push.getPushConfig(other, taskId, 'c1')).toBeNull();
    expect(await push.listPushConfigs(other, taskId, { pageSize: 10 })).toEqual({
      configs: [],
      nextPageToken: '',
    });
    expect(await push.deletePushConfig(other, taskId, 'c1')).toBe(false);
    expect(await push.getPushConfig(t, taskId, 'c1')).not.toBeNull();
  });

  // Found in review: a create that waited for its task's row while retention deleted the task
  // stored a config of no task, its sealed secrets kept forever (only a task's deletion removes its
  // configs). A task without a row takes no config.
  it('a create for a task that has no row (deleted meanwhile) is a conflict and stores nothing', async () => {
    const t = tenant();
    const gone = randomUUID();
    await expect(push.tryCreatePushConfig(t, gone, { url: 'https://hooks.example.com/x' })).rejects.toThrow(
      ConflictError,
    );
    expect(await push.listPushConfigs(t, gone, { pageSize: 10 })).toEqual({ configs: [], nextPageToken: '' });
  });

  it('a malformed task id reads as nothing', async () => {
    const t = tenant();
    expect(await push.getPushConfig(t, 'nope', 'c1')).toBeNull();
    expect(await push.listPushConfigs(t, 'nope', { pageSize: 10 })).toEqual({
      configs: [],
      nextPageToken: '',
    });
    expect(await push.deletePushConfig(t, 'nope', 'c1')).toBe(false);
  });
});

describe('a config deleted while a write queues its delivery', () => {
  it('the write goes through without it (no foreign-key failure), and nothing is queued for it', async () => {
    const t = tenant();
    const task = await createdTask(
      env.store,
      newTask(t, { pushConfig: { id: 'gone', url: 'https://hooks.example/gone' } }),
    );
    // The delete holds the config's row, uncommitted, while the change starts: the change's
    // snapshot still sees the config, queues a delivery for it, and its foreign-key check waits.
    const deleter = await env.testDb.pool.connect();
    try {
      await deleter.query('BEGIN');
      await deleter.query('DELETE FROM push_configs WHERE tenant_id = $1 AND task_id = $2', [t, task.id]);
      const change = env.store.changeTask({
        tenantId: t,
        taskId: task.id,
        expectedVersion: 1,
        patch: { state: TaskState.WORKING },
        event: statusEvent(task, TaskState.WORKING),
      });
      await lockWaiters(1);
      await deleter.query('COMMIT');
      expect((await change).version).toBe(2);
    } finally {
      deleter.release();
    }
    expect(await eventSeqs(env.db, t, task.id)).toEqual([1, 2]);
    expect(await deliverySeqs(env.db, t, task.id)).toEqual([]);
  });
});

describe('a config created while a write of its task is in flight', () => {
  it('gets the events committed after it, even by a write whose statement began before it', async () => {
    const t = tenant();
    const task = await createdTask(env.store, newTask(t, { visibility: 'task' }));
    // Another session's uncommitted insert of the same config key holds the create after it has
    // taken the task's row (FOR SHARE): the create is in flight, its config not yet committed.
    const rival = await env.testDb.pool.connect();
    try {
      await rival.query('BEGIN');
      await rival.query(
        `INSERT INTO push_configs (tenant_id, task_id, id, url) VALUES ($1, $2, 'c1', 'https://hooks.example/r')`,
        [t, task.id],
      );
      const create = push.createPushConfig(t, task.id, { id: 'c1', url: 'https://hooks.example/1' });
      await lockWaiters(1);
      // The task's writer starts now: its snapshot has no config; it waits for the row.
      const change = env.store.changeTask({
        tenantId: t,
        taskId: task.id,
        expectedVersion: 1,
        patch: { state: TaskState.WORKING },
        event: statusEvent(task, TaskState.WORKING),
      });
      await lockWaiters(2);
      await rival.query('ROLLBACK');
      // The config commits first, then the write: its event is owed to the config.
      await Promise.all([create, change]);
    } finally {
      rival.release();
    }
    expect(await deliverySeqs(env.db, t, task.id)).toEqual([{ config_id: 'c1', seq: 2 }]);
  });
});

/**
 * The three statements that write a task's events: each prepares the task (resolving to the write
 * to race), with the seqs the write queues for a config that is there.
 */
type Write = () => Promise<unknown>;
const writers: Array<[string, (task: TaskRecord) => Promise<Write>, number[]]> = [
  [
    'a change (cancel, continuation)',
    async (task) => () =>
      env.store.changeTask({
        tenantId: task.tenantId,
        taskId: task.id,
        expectedVersion: 1,
        patch: { state: TaskState.WORKING },
        event: statusEvent(task, TaskState.WORKING),
      }),
    [2],
  ],
  [
    "a worker's claim",
    async (task) => () =>
      claimTasks(env.db, [{ tenantId: task.tenantId, taskId: task.id, workerId: 'w1', leaseMs: 60_000 }]),
    [2],
  ],
  [
    "a run's ending with its last chunk",
    async (task) => {
      const [claim] = await claimTasks(env.db, [
        { tenantId: task.tenantId, taskId: task.id, workerId: 'w1', leaseMs: 60_000 },
      ]);
      const claimed = claim!.task;
      // The claim's own event (seq 2) committed before the config: not owed to it.
      await env.testDb.pool.query('DELETE FROM push_deliveries WHERE task_id = $1', [task.id]);
      return () =>
        endRuns(env.db, [
          {
            tenantId: claimed.tenantId,
            taskId: claimed.id,
            expectedVersion: claimed.version,
            fromStates: [TaskState.WORKING],
            leaseOwner: claimed.leaseOwner!,
            patch: { state: TaskState.COMPLETED, statusMessage: null, clearLease: true },
            event: statusEvent(claimed, TaskState.COMPLETED),
            precededBy: {
              artifactChunk: { artifactId: 'a1', append: false, lastChunk: true, parts: [{ text: 'done' }] },
              event: {
                artifactUpdate: {
                  taskId: claimed.id,
                  contextId: claimed.contextId,
                  artifact: { artifactId: 'a1', parts: [{ text: 'done' }] },
                  lastChunk: true,
                },
              },
            },
          },
        ]);
    },
    [3, 4],
  ],
];

describe('a config whose create committed while a write of its task waited, the creator gone since', () => {
  it.each(writers)(
    'gets the events of %s, with no help from the creator after its commit',
    async (_, prepare, seqs) => {
      const t = tenant();
      const task = await createdTask(env.store, newTask(t, { visibility: 'task' }));
      const write = await prepare(task);
      // The create's transaction as addPushConfig runs it (the task's row held FOR SHARE, the
      // config inserted), committed by hand: the gateway that ran it is killed right after, so
      // nothing of the create runs past its commit, and a retry of the create finds the config there.
      const creator = await env.testDb.pool.connect();
      try {
        await creator.query('BEGIN');
        await creator.query('SELECT 1 FROM tasks WHERE tenant_id = $1 AND id = $2 FOR SHARE', [t, task.id]);
        await creator.query(
          `INSERT INTO push_configs (tenant_id, task_id, id, url) VALUES ($1, $2, 'c1', 'https://hooks.example/1')`,
          [t, task.id],
        );
        // The writer starts now: its statement's snapshot has no config; it waits for the row.
        const written = write();
        await lockWaiters(1);
        await creator.query('COMMIT');
        await written;
      } finally {
        creator.release();
      }
      expect(await deliverySeqs(env.db, t, task.id)).toEqual(seqs.map((seq) => ({ config_id: 'c1', seq })));
    },
  );
});
