import { afterAll, describe, expect, it, vi } from 'vitest';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { createTestRedis, startTcpProxy, waitFor } from '@switchyard/testing';
import { COMMANDS_CONNECTION_OPTIONS, createQueueKeys, isRedisAway, TaskQueue } from '../src/index.ts';

const redis = createTestRedis();
afterAll(() => redis.cleanup());

describe('TaskQueue backlog counter (fairness)', () => {
  it("counts a tenant's waiting dispatches in one script, sets the counter's TTL, and prioritises by it", async () => {
    const connection = redis.connect();
    const keys = createQueueKeys(redis.prefix);
    const queue = new TaskQueue({ connection, keys });
    // A second queue on the same connection must not redefine the script.
    const again = new TaskQueue({ connection, keys });
    for (let i = 1; i <= 3; i++) {
      await queue.enqueue({ tenantId: 'busy', taskId: `t${i}`, version: 1, attempts: 0 });
    }
    await again.enqueue({ tenantId: 'quiet', taskId: 'q1', version: 1, attempts: 0 });
    expect(await connection.get(keys.tenantBacklog('busy'))).toBe('3');
    const ttl = await connection.ttl(keys.tenantBacklog('busy'));
    expect(ttl).toBeGreaterThan(3500);
    expect(ttl).toBeLessThanOrEqual(3600);
    const jobs = await queue.queue.getJobs(['prioritized']);
    const priorities = Object.fromEntries(jobs.map((j) => [j.data.taskId, j.opts.priority]));
    expect(priorities).toEqual({ t1: 1, t2: 2, t3: 3, q1: 1 });
    await queue.started('busy');
    expect(await connection.get(keys.tenantBacklog('busy'))).toBe('2');
    await queue.close();
    await again.close();
  });

  it('a slot reserved before the commit gives the add its priority; a released one counts out', async () => {
    const connection = redis.connect();
    const keys = createQueueKeys(`${redis.prefix}-reserve`);
    const queue = new TaskQueue({ connection, keys });
    const first = queue.reserve('busy');
    const second = queue.reserve('busy');
    const dropped = queue.reserve('busy');
    dropped.release();
    dropped.release(); // once only
    await queue.enqueue({ tenantId: 'busy', taskId: 'second', version: 1, attempts: 0 }, second);
    await queue.enqueue({ tenantId: 'busy', taskId: 'first', version: 1, attempts: 0 }, first);
    const jobs = await queue.queue.getJobs(['prioritized']);
    expect(Object.fromEntries(jobs.map((j) => [j.data.taskId, j.opts.priority]))).toEqual({
      first: 1,
      second: 2,
    });
    await waitFor(async () => (await connection.get(keys.tenantBacklog('busy'))) === '2');
    await queue.close();
  });

  it('keeps the counters on an auto-pipelined connection of their own, exact under concurrent sends', async () => {
    const connection = redis.connect();
    const counters = redis.connect(COMMANDS_CONNECTION_OPTIONS);
    const keys = createQueueKeys(`${redis.prefix}-pipelined`);
    const queue = new TaskQueue({ connection, counters, keys });
    // Issued in one turn: the increments share pipelines, and each still gets its own depth.
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        queue.enqueue({ tenantId: 'busy', taskId: `t${i}`, version: 1, attempts: 0 }),
      ),
    );
    expect(await connection.get(keys.tenantBacklog('busy'))).toBe('20');
    const jobs = await queue.queue.getJobs(['prioritized']);
    expect(jobs.map((j) => j.opts.priority).sort((a, b) => a! - b!)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    // BullMQ's connection never carried the counter script.
    expect('syBacklogIncr' in connection).toBe(false);
    await Promise.all([queue.started('busy'), queue.started('busy')]);
    expect(await counters.get(keys.tenantBacklog('busy'))).toBe('18');
    await queue.close();
  });

  it('dispatches at priority 1 at once while its counters have lost Redis: fairness waits, tasks do not', async () => {
    const connection = redis.connect();
    const counters = new Redis('redis://127.0.0.1:1', {
      ...COMMANDS_CONNECTION_OPTIONS,
      retryStrategy: () => 50,
    });
    counters.on('error', () => undefined);
    const keys = createQueueKeys(`${redis.prefix}-away`);
    const queue = new TaskQueue({ connection, counters, keys });
    try {
      await waitFor(() => isRedisAway(counters));
      for (const taskId of ['a1', 'a2', 'a3'])
        await queue.enqueue({ tenantId: 'busy', taskId, version: 1, attempts: 0 });
      await queue.started('busy');
      const jobs = await queue.queue.getJobs(['prioritized']);
      expect(jobs.map((j) => j.opts.priority)).toEqual([1, 1, 1]);
      expect(await connection.exists(keys.tenantBacklog('busy'))).toBe(0);
    } finally {
      counters.disconnect();
      await queue.close();
    }
  });
});

describe('TaskQueue while Redis is away', () => {
  it('refuses an add at once instead of queueing it in memory, and adds again once Redis is back', async () => {
    const proxy = await startTcpProxy('127.0.0.1', Number(new URL(redis.url).port || 6379));
    const connection = new Redis(`redis://127.0.0.1:${proxy.port}`, {
      maxRetriesPerRequest: null,
      retryStrategy: () => 50,
    });
    connection.on('error', () => undefined);
    const keys = createQueueKeys(`${redis.prefix}-outage`);
    const queue = new TaskQueue({ connection, keys });
    try {
      await queue.enqueue({ tenantId: 'acme', taskId: 'before', version: 1, attempts: 0 });
      await proxy.cut();
      await waitFor(() => isRedisAway(connection));
      for (let i = 0; i < 50; i++)
        await expect(
          queue.enqueue({ tenantId: 'acme', taskId: `during-${i}`, version: 1, attempts: 0 }),
        ).rejects.toThrow(/Redis is unreachable/);
      // Nothing waits in ioredis's offline queue for the reconnect.
      expect((connection as unknown as { offlineQueue: { length: number } }).offlineQueue.length).toBe(0);
      await proxy.restore();
      await waitFor(() => connection.status === 'ready');
      await queue.enqueue({ tenantId: 'acme', taskId: 'after', version: 1, attempts: 0 });
      const ids = (await queue.queue.getJobs(['prioritized'])).map((j) => j.data.taskId).sort();
      expect(ids).toEqual(['after', 'before']);
    } finally {
      await queue.close();
      connection.disconnect();
      await proxy.close();
    }
  });
});

/** A queue under a prefix of its own: the tests above leave jobs in theirs. */
function ownQueue(name: string) {
  const keys = createQueueKeys(`${redis.prefix}-${name}`);
  const connection = redis.connect();
  return { keys, connection, queue: new TaskQueue({ connection, keys }) };
}

describe('TaskQueue.redispatch (the reaper)', () => {
  it('revives a failed job of the same dispatch that a plain enqueue would be swallowed by, once under racing reapers', async () => {
    const { keys, connection, queue } = ownQueue('redispatch');
    const dispatch = { tenantId: 'acme', taskId: 'stuck', version: 2, attempts: 0 };
    await queue.enqueue(dispatch);
    // A worker whose claim failed: the job ends failed and keeps the dispatch's id.
    const worker = new Worker(
      keys.taskQueue,
      async () => {
        throw new Error('claim refused');
      },
      { connection: redis.connect(), prefix: keys.bullPrefix, autorun: true },
    );
    await waitFor(async () => (await queue.queue.getFailedCount()) === 1, { what: 'the job failed' });
    await worker.close();
    await queue.enqueue(dispatch);
    expect(await queue.queue.getJobCounts('wait', 'prioritized', 'failed')).toMatchObject({ failed: 1 });
    await Promise.all([queue.redispatch(dispatch), queue.redispatch(dispatch), queue.redispatch(dispatch)]);
    const counts = await queue.queue.getJobCounts('wait', 'prioritized', 'failed');
    expect(counts.failed).toBe(0);
    expect(counts.wait! + counts.prioritized!).toBe(1);
    // The first enqueue and the swallowed plain one above counted (this test's worker never counts
    // a dispatch out, as the runner does when it takes one); of the racing reapers, only the one
    // whose retry put the job back counted it again.
    expect(await connection.get(keys.tenantBacklog('acme'))).toBe('3');
    await queue.close();
  });

  it("leaves a dispatch whose job is still queued alone, so sweeps over a backlog do not inflate the tenant's counter", async () => {
    const { keys, connection, queue } = ownQueue('redispatch-queued');
    const counter = () => connection.get(keys.tenantBacklog('acme'));
    const dispatch = { tenantId: 'acme', taskId: 'waiting', version: 1, attempts: 0 };
    await queue.enqueue(dispatch);
    for (let sweep = 0; sweep < 3; sweep++) await queue.redispatch(dispatch);
    expect(await counter()).toBe('1');
    expect(await queue.queue.getJobCounts('wait', 'prioritized')).toMatchObject({ prioritized: 1 });
    // A dispatch the queue lost (Redis flushed, the gateway died before its add) is enqueued and counted.
    const lost = { tenantId: 'acme', taskId: 'lost', version: 1, attempts: 0 };
    await queue.redispatch(lost);
    expect(await counter()).toBe('2');
    const jobs = await queue.queue.getJobs(['prioritized']);
    expect(jobs.map((j) => [j.data.taskId, j.opts.priority]).sort()).toEqual([
      ['lost', 2],
      ['waiting', 1],
    ]);
    await queue.close();
  });
});

describe('TaskQueue adds in one turn', () => {
  it('go to Redis as one addBulk, each with its own id and fairness priority; a lone add goes alone', async () => {
    const { queue } = ownQueue('bulk');
    const bulk = vi.spyOn(queue.queue, 'addBulk');
    const single = vi.spyOn(queue.queue, 'add');
    await Promise.all(
      [1, 2, 3, 4, 5].map((i) =>
        queue.enqueue({ tenantId: 'acme', taskId: `b${i}`, version: 1, attempts: 0 }),
      ),
    );
    expect(bulk).toHaveBeenCalledTimes(1);
    expect(bulk.mock.calls[0]![0]).toHaveLength(5);
    expect(single).not.toHaveBeenCalled();
    const jobs = await queue.queue.getJobs(['prioritized', 'wait']);
    expect(jobs.map((j) => [j.id, j.opts.priority]).sort()).toEqual([
      ['acme.b1.v1.a0', 1],
      ['acme.b2.v1.a0', 2],
      ['acme.b3.v1.a0', 3],
      ['acme.b4.v1.a0', 4],
      ['acme.b5.v1.a0', 5],
    ]);
    await queue.enqueue({ tenantId: 'acme', taskId: 'alone', version: 1, attempts: 0 });
    expect(single).toHaveBeenCalledTimes(1);
    expect(bulk).toHaveBeenCalledTimes(1);
    await queue.close();
  });
});
