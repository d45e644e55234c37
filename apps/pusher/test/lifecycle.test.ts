import { createQueueKeys } from '@switchyard/queue';
import { silentLogger } from '@switchyard/telemetry';
import { waitFor } from '@switchyard/testing';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from './receiver.ts';
import { createPusher } from '../src/create-pusher.ts';
import {
  appendEvents,
  createTask,
  deliveriesOf,
  newTenant,
  openPusherTestEnv,
  TEST_SETTINGS,
  testScope,
  type PusherTestEnv,
} from './pusher-fixtures.ts';

let env: PusherTestEnv;
let receiver: Receiver;
const scope = testScope(() => env);

beforeAll(async () => {
  env = await openPusherTestEnv();
  receiver = await startReceiver();
});
afterEach(async () => {
  await scope.dispose();
  receiver.requests.length = 0;
  receiver.respond = () => ({ status: 204 });
});
afterAll(async () => {
  await receiver.close();
  await env.testDb.drop();
});

describe('lifecycle RUNNING → DRAINING → STOPPED', () => {
  it('stop() claims nothing more but lets the in-flight send finish and records it', async () => {
    const { tenantId } = await newTenant(env);
    const task = await createTask(env, tenantId, { id: 'hook', url: `${receiver.origin}/x` });
    await appendEvents(env, tenantId, task, 1);
    receiver.respond = () => ({ status: 204, delayMs: 200 });
    const pusher = scope.pusher();
    await pusher.start();
    await waitFor(() => receiver.pending === 1, { what: 'a send in flight' });

    await pusher.stop();

    expect(pusher.state).toBe('stopped');
    // Seq 1 finished during the drain; seq 2 became due then, but a draining pusher claims nothing.
    expect((await deliveriesOf(env, tenantId, task.taskId)).map((r) => r.status)).toEqual([
      'delivered',
      'pending',
    ]);
    expect(receiver.requests.map((r) => r.seq)).toEqual([1]);
    await expect(pusher.deliverOnce()).rejects.toThrow(/stopped/);
  });

  it('aborts sends still running after the grace; their claims lapse and another pusher sends them again', async () => {
    const { tenantId } = await newTenant(env);
    const task = await createTask(env, tenantId, { id: 'hook', url: `${receiver.origin}/x` });
    receiver.respond = (_req, i) => ({ status: 204, delayMs: i === 0 ? 1000 : 0 });
    const first = scope.pusher({ shutdownGraceMs: 20, lockMs: 400 });
    await first.start();
    await waitFor(() => receiver.pending === 1, { what: 'a send in flight' });

    await first.stop();

    const [row] = await deliveriesOf(env, tenantId, task.taskId);
    expect(row).toMatchObject({ status: 'pending', attempts: 1, lockedBy: first.workerId });
    const second = scope.pusher();
    await second.start();
    await waitFor(async () => (await deliveriesOf(env, tenantId, task.taskId))[0]?.status === 'delivered', {
      what: 'the re-send',
    });
    expect(receiver.requests.map((r) => r.headers['webhook-id'])).toEqual([
      `${task.taskId}.hook.1`,
      `${task.taskId}.hook.1`,
    ]);
  });

  it('keeps delivering by polling while Redis is unreachable (Redis only speeds delivery up)', async () => {
    const { tenantId } = await newTenant(env);
    const task = await createTask(env, tenantId, { id: 'hook', url: `${receiver.origin}/x` });
    await appendEvents(env, tenantId, task, 2);
    const deadRedis = new Redis('redis://127.0.0.1:9', {
      maxRetriesPerRequest: null,
      retryStrategy: () => 100,
    });
    deadRedis.on('error', () => {});
    const pusher = createPusher({
      pool: env.testDb.pool,
      subscriber: deadRedis,
      keys: createQueueKeys('unreachable'),
      secrets: env.secrets,
      log: silentLogger(),
      settings: { workerId: 'no-redis', ...TEST_SETTINGS },
    });
    const started = pusher.start();
    try {
      await waitFor(() => receiver.requests.length === 3, { what: 'three deliveries by polling' });
      expect((await pusher.ready()).redis).toBe(false);
    } finally {
      await pusher.stop();
      deadRedis.disconnect();
      await started;
    }
    expect(receiver.requests.map((r) => r.seq)).toEqual([1, 2, 3]);
  });

  it('starts once', async () => {
    const pusher = scope.pusher();
    await pusher.start();
    await expect(pusher.start()).rejects.toThrow(/cannot start/);
  });
});
