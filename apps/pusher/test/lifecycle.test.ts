import { createQueueKeys } from '@switchyard/queue';
import { silentLogger } from '@switchyard/telemetry';
import { startTcpProxy, waitFor } from '@switchyard/testing';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createPusher } from '../src/create-pusher.ts';
import {
  appendEvents,
  createTask,
  deliveriesOf,
  newTenant,
  TEST_SETTINGS,
  usePusherSuite,
} from './pusher-fixtures.ts';

const suite = usePusherSuite();
const { scope } = suite;

describe('lifecycle RUNNING → DRAINING → STOPPED', () => {
  it('stop() claims nothing more but lets the in-flight send finish and records it', async () => {
    const { tenantId } = await newTenant(suite.env);
    const task = await createTask(suite.env, tenantId, { id: 'hook', url: `${suite.receiver.origin}/x` });
    await appendEvents(suite.env, tenantId, task, 1);
    suite.receiver.respond = () => ({ status: 204, delayMs: 200 });
    const pusher = scope.pusher();
    await pusher.start();
    await waitFor(() => suite.receiver.pending === 1, { what: 'a send in flight' });

    await pusher.stop();

    expect(pusher.state).toBe('stopped');
    // Seq 1 finished during the drain; seq 2 became due then, but a draining pusher claims nothing.
    expect((await deliveriesOf(suite.env, tenantId, task.taskId)).map((r) => r.status)).toEqual([
      'delivered',
      'pending',
    ]);
    expect(suite.receiver.requests.map((r) => r.seq)).toEqual([1]);
    await expect(pusher.deliverOnce()).rejects.toThrow(/stopped/);
  });

  it('aborts sends still running after the grace; their claims lapse and another pusher sends them again', async () => {
    const { tenantId } = await newTenant(suite.env);
    const task = await createTask(suite.env, tenantId, { id: 'hook', url: `${suite.receiver.origin}/x` });
    suite.receiver.respond = (_req, i) => ({ status: 204, delayMs: i === 0 ? 1000 : 0 });
    // A short lock that still outlasts a POST's timeout, as the config requires.
    const first = scope.pusher({ shutdownGraceMs: 20, lockMs: 1500, timeoutMs: 1200 });
    await first.start();
    await waitFor(() => suite.receiver.pending === 1, { what: 'a send in flight' });

    await first.stop();

    const [row] = await deliveriesOf(suite.env, tenantId, task.taskId);
    expect(row).toMatchObject({ status: 'pending', attempts: 1, lockedBy: first.workerId });
    const second = scope.pusher();
    await second.start();
    await waitFor(
      async () => (await deliveriesOf(suite.env, tenantId, task.taskId))[0]?.status === 'delivered',
      {
        what: 'the re-send',
      },
    );
    expect(suite.receiver.requests.map((r) => r.headers['webhook-id'])).toEqual([
      `${task.taskId}.hook.1`,
      `${task.taskId}.hook.1`,
    ]);
  });

  it('keeps delivering by polling while Redis is unreachable (Redis only speeds delivery up)', async () => {
    const { tenantId } = await newTenant(suite.env);
    const task = await createTask(suite.env, tenantId, { id: 'hook', url: `${suite.receiver.origin}/x` });
    await appendEvents(suite.env, tenantId, task, 2);
    const deadRedis = new Redis('redis://127.0.0.1:9', {
      maxRetriesPerRequest: null,
      retryStrategy: () => 100,
    });
    deadRedis.on('error', () => {});
    const pusher = createPusher({
      pool: suite.env.testDb.pool,
      subscriber: deadRedis,
      keys: createQueueKeys('unreachable'),
      secrets: suite.env.secrets,
      log: silentLogger(),
      settings: { workerId: 'no-redis', ...TEST_SETTINGS },
    });
    const started = pusher.start();
    try {
      await waitFor(() => suite.receiver.requests.length === 3, { what: 'three deliveries by polling' });
      expect((await pusher.ready()).redis).toBe(false);
    } finally {
      await pusher.stop();
      deadRedis.disconnect();
      await started;
    }
    expect(suite.receiver.requests.map((r) => r.seq)).toEqual([1, 2, 3]);
  });

  // Found in review: an UNSUBSCRIBE to a Redis that stopped answering (its socket still up) was
  // awaited without a bound, so the drain never got to its sends' grace or its closes.
  it('stops while Redis hangs: the wake-up channel gets a short while, not the whole outage', async () => {
    const target = new URL(scope.redis.url);
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
    const hanging = new Redis(`redis://127.0.0.1:${proxy.port}`, { maxRetriesPerRequest: null });
    hanging.on('error', () => {});
    const pusher = createPusher({
      pool: suite.env.testDb.pool,
      subscriber: hanging,
      keys: createQueueKeys(scope.redis.prefix),
      secrets: suite.env.secrets,
      log: silentLogger(),
      settings: { workerId: 'hanging-redis', ...TEST_SETTINGS },
    });
    try {
      await pusher.start();
      proxy.freeze();
      await pusher.stop();
      expect(pusher.state).toBe('stopped');
    } finally {
      hanging.disconnect();
      await proxy.close();
    }
  });

  it('starts once', async () => {
    const pusher = scope.pusher();
    await pusher.start();
    await expect(pusher.start()).rejects.toThrow(/cannot start/);
  });
});
