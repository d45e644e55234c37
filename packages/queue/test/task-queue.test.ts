import { afterAll, describe, expect, it, vi } from 'vitest';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { createTestRedis, startTcpProxy, waitFor } from '@switchyard/testing';
import { COMMANDS_CONNECTION_OPTIONS, createQueueKeys, isRedisAway, TaskQueue } from '../src/index.ts';

const redis = createTestRedis();
afterAll(() => redis.cleanup());

/** Each job's priority, by task id. */
async function prioritiesOf(queue: TaskQueue): Promise<Record<string, number | undefined>> {
  const jobs = await queue.queue.getJobs(['prioritized']);
  return Object.fromEntries(jobs.map((j) => [j.data.taskId, j.opts.priority]));
}

const dispatchOf = (tenantId: string, taskId: string) => ({ tenantId, taskId, version: 1, attempts: 0 });

/** Runs the queue's jobs one at a time, calling `onEach` with each task id in the order they ran. */
function runInOrder(keys: ReturnType<typeof createQueueKeys>, onEach: (taskId: string) => Promise<void>) {
  return new Worker(keys.taskQueue, async (job) => onEach(String(job.data.taskId)), {
    connection: redis.connect(),
    prefix: keys.bullPrefix,
    concurrency: 1,
  });
}

describe('TaskQueue fair order (levels)', () => {
  it("fills a tenant's levels 20 dispatches at a time; a quiet tenant goes on the level that runs next", async () => {
    const connection = redis.connect();
    const keys = createQueueKeys(`${redis.prefix}-levels`);
    const queue = new TaskQueue({ connection, keys });
    // A second queue on the same connection must not redefine the script.
    const again = new TaskQueue({ connection, keys });
    for (let i = 0; i < 45; i++) await queue.enqueue(dispatchOf('busy', `b${i}`));
    await again.enqueue(dispatchOf('quiet', 'q0'));
    const priorities = await prioritiesOf(queue);
    expect([
      priorities['b0'],
      priorities['b19'],
      priorities['b20'],
      priorities['b39'],
      priorities['b40'],
    ]).toEqual([1, 1, 2, 2, 3]);
    // Behind the busy tenant's first 20, ahead of its other 25.
    expect(priorities['q0']).toBe(1);
    const ttl = await connection.ttl(keys.tenantFairPlace('busy'));
    expect(ttl).toBeGreaterThan(3500);
    expect(ttl).toBeLessThanOrEqual(3600);
    await queue.close();
    await again.close();
  });

  it("runs one tenant's dispatches first in, first out while new ones keep arriving", async () => {
    // The review's case for the old scheme (priority = the tenant's backlog depth): once a burst
    // had shrunk, each new dispatch ran ahead of the burst's tail, which waited for arrivals to stop.
    const { keys, queue } = ownQueue('fifo');
    for (let i = 0; i < 50; i++) await queue.enqueue(dispatchOf('acme', `old${String(i).padStart(2, '0')}`));
    const ran: string[] = [];
    let arrivals = 0;
    const worker = runInOrder(keys, async (taskId) => {
      ran.push(taskId);
      if (arrivals < 40) await queue.enqueue(dispatchOf('acme', `new${String(arrivals++).padStart(2, '0')}`));
    });
    await waitFor(() => ran.length === 90, { what: 'every job to run' });
    await worker.close();
    const named = (prefix: string, n: number) =>
      Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(2, '0')}`);
    expect(ran).toEqual([...named('old', 50), ...named('new', 40)]);
    await queue.close();
  });

  it('takes turns between two backlogged tenants, a level each, whoever queued first', async () => {
    const { keys, queue } = ownQueue('turns');
    for (let i = 0; i < 60; i++) await queue.enqueue(dispatchOf('first', `f${i}`));
    for (let i = 0; i < 60; i++) await queue.enqueue(dispatchOf('second', `s${i}`));
    const ran: string[] = [];
    const worker = runInOrder(keys, async (taskId) => {
      ran.push(taskId);
    });
    await waitFor(() => ran.length === 120, { what: 'every job to run' });
    await worker.close();
    const tenantsOf = (from: number) => new Set(ran.slice(from, from + 20).map((id) => id[0]));
    // Level by level: 20 of the first tenant's, then 20 of the second's (FIFO within a level).
    for (let level = 0; level < 3; level++) {
      expect(tenantsOf(level * 40)).toEqual(new Set(['f']));
      expect(tenantsOf(level * 40 + 20)).toEqual(new Set(['s']));
    }
    await queue.close();
  });

  it("reports the oldest waiting job's age, not that of the job that runs next", async () => {
    const { queue } = ownQueue('oldest');
    for (let i = 0; i < 40; i++) await queue.enqueue(dispatchOf('busy', `b${i}`));
    await new Promise((r) => setTimeout(r, 300));
    await queue.enqueue(dispatchOf('quiet', 'newcomer'));
    // The busy tenant's first level has run: the newcomer is next, ahead of older jobs.
    for (const job of await queue.queue.getJobs(['prioritized'], 0, 19, true)) await job.remove();
    const [next] = await queue.queue.getJobs(['prioritized'], 0, 0, true);
    expect(next?.data.taskId).toBe('newcomer');
    expect((await queue.stats()).oldestWaitingAgeMs).toBeGreaterThanOrEqual(300);
    await queue.close();
  });

  it('starts every tenant again from level 1 once levels ran high and nothing waits', async () => {
    const { keys, connection, queue } = ownQueue('restart');
    await queue.enqueue(dispatchOf('acme', 'waiting'));
    // Something waits: the order goes on from where it is; a restart waits for an empty queue.
    await connection.set(keys.fairLevelFloor, String(2 ** 20 + 7));
    await queue.enqueue(dispatchOf('globex', 'next'));
    expect(await prioritiesOf(queue)).toEqual({ waiting: 1, next: 2 ** 20 + 7 });
    await queue.queue.obliterate({ force: true });
    await queue.enqueue(dispatchOf('globex', 'fresh'));
    expect(await prioritiesOf(queue)).toEqual({ fresh: 1 });
    await queue.close();
  });

  it("keeps a tenant whose every task was taken at once level with the work, not behind a newcomer's flood", async () => {
    // The review's case: with the level read from the queue's head alone, a tenant sending
    // steadily into an empty queue climbed a level per 20 tasks while the level stood still.
    const { queue } = ownQueue('trickle');
    const takeNext = async () => {
      const [job] = await queue.queue.getJobs(['prioritized'], 0, 0, true);
      await job!.remove();
      queue.taken(job!.priority); // as the worker's consumer reports each take
    };
    for (let i = 0; i < 200; i++) {
      await queue.enqueue(dispatchOf('steady', `s${i}`));
      await takeNext();
    }
    await new Promise((r) => setTimeout(r, 50)); // the last take's report is not awaited
    for (let i = 0; i < 200; i++) await queue.enqueue(dispatchOf('flood', `f${i}`));
    await queue.enqueue(dispatchOf('steady', 'next'));
    const inLine = (await queue.queue.getJobs(['prioritized'], 0, -1, true)).map((j) => j.data.taskId);
    expect(inLine.indexOf('next')).toBeLessThanOrEqual(40);
    await queue.close();
  });

  it('a slot reserved before the commit gives the add its place; an unused one costs nothing else', async () => {
    const { queue } = ownQueue('reserve');
    const first = queue.reserve('busy');
    const second = queue.reserve('busy');
    queue.reserve('busy'); // a send that turned out to be a retry: never enqueued
    await queue.enqueue(dispatchOf('busy', 'second'), second);
    await queue.enqueue(dispatchOf('busy', 'first'), first);
    expect(await prioritiesOf(queue)).toEqual({ first: 1, second: 1 });
    await queue.close();
  });

  it('keeps its script on an auto-pipelined connection of its own, exact under concurrent sends', async () => {
    const connection = redis.connect();
    const counters = redis.connect(COMMANDS_CONNECTION_OPTIONS);
    const keys = createQueueKeys(`${redis.prefix}-pipelined`);
    const queue = new TaskQueue({ connection, counters, keys });
    // Issued in one turn: the scripts share pipelines, and each still gets its own place.
    await Promise.all(Array.from({ length: 50 }, (_, i) => queue.enqueue(dispatchOf('busy', `t${i}`))));
    const levels = Object.values(await prioritiesOf(queue)).sort((a, b) => a! - b!);
    expect(levels).toEqual([...Array(20).fill(1), ...Array(20).fill(2), ...Array(10).fill(3)]);
    // BullMQ's connection never carried the script.
    expect('syFairLevel' in connection).toBe(false);
    await queue.close();
  });

  it('dispatches at priority 1 at once while its script has lost Redis: fairness waits, tasks do not', async () => {
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
      for (const taskId of ['a1', 'a2', 'a3']) await queue.enqueue(dispatchOf('busy', taskId));
      expect(Object.values(await prioritiesOf(queue))).toEqual([1, 1, 1]);
      expect(await connection.exists(keys.tenantFairPlace('busy'))).toBe(0);
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
      // The reaper's redispatch and a cancel's notice are refused at once too.
      await expect(queue.redispatch(dispatchOf('acme', 'swept'))).rejects.toThrow(/Redis is unreachable/);
      await expect(queue.notifyCanceled('acme', 'canceled')).rejects.toThrow(/Redis is unreachable/);
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

describe('TaskQueue while Redis hangs without dropping the connection', () => {
  it('refuses adds past its bound of unanswered ones instead of holding each in memory, and adds again once Redis answers', async () => {
    const proxy = await startTcpProxy('127.0.0.1', Number(new URL(redis.url).port || 6379));
    const connection = new Redis(`redis://127.0.0.1:${proxy.port}`, { maxRetriesPerRequest: null });
    connection.on('error', () => undefined);
    const keys = createQueueKeys(`${redis.prefix}-hang`);
    const queue = new TaskQueue({ connection, keys, maxUnanswered: 5 });
    try {
      await queue.enqueue({ tenantId: 'acme', taskId: 'before', version: 1, attempts: 0 });
      proxy.freeze();
      const held = Array.from({ length: 5 }, (_, i) =>
        queue.enqueue({ tenantId: 'acme', taskId: `held-${i}`, version: 1, attempts: 0 }),
      );
      // Connected all along (not "away"), yet the sixth is refused at once.
      expect(isRedisAway(connection)).toBe(false);
      await expect(
        queue.enqueue({ tenantId: 'acme', taskId: 'refused', version: 1, attempts: 0 }),
      ).rejects.toThrow(/Redis has not answered 5 enqueues/);
      // Nor do a send's reservation, the reaper's redispatch or a cancel's notice ask it.
      await expect(queue.reserve('acme').priority).resolves.toBe(1);
      await expect(queue.redispatch(dispatchOf('acme', 'swept'))).rejects.toThrow(/not answered/);
      await expect(queue.notifyCanceled('acme', 'canceled')).rejects.toThrow(/not answered/);
      proxy.thaw();
      await Promise.all(held);
      await queue.enqueue({ tenantId: 'acme', taskId: 'after', version: 1, attempts: 0 });
      const ids = (await queue.queue.getJobs(['prioritized'])).map((j) => j.data.taskId).sort();
      expect(ids).toEqual(['after', 'before', 'held-0', 'held-1', 'held-2', 'held-3', 'held-4']);
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
    const { keys, queue } = ownQueue('redispatch');
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
    const revived = await Promise.all([
      queue.redispatch(dispatch),
      queue.redispatch(dispatch),
      queue.redispatch(dispatch),
    ]);
    // Said once: the reaper's "dispatched" count is of jobs added or revived.
    expect(revived.filter(Boolean)).toHaveLength(1);
    const counts = await queue.queue.getJobCounts('wait', 'prioritized', 'failed');
    expect(counts.failed).toBe(0);
    expect(counts.wait! + counts.prioritized!).toBe(1);
    await queue.close();
  });

  it("leaves a dispatch whose job is still queued alone, so sweeps over a backlog do not move the tenant's place", async () => {
    const { keys, connection, queue } = ownQueue('redispatch-queued');
    const counter = () => connection.hget(keys.tenantFairPlace('acme'), 'used');
    const dispatch = { tenantId: 'acme', taskId: 'waiting', version: 1, attempts: 0 };
    await queue.enqueue(dispatch);
    // Found in review: the reaper counted these as dispatched, every sweep.
    for (let sweep = 0; sweep < 3; sweep++) expect(await queue.redispatch(dispatch)).toBe(false);
    expect(await counter()).toBe('1');
    expect(await queue.queue.getJobCounts('wait', 'prioritized')).toMatchObject({ prioritized: 1 });
    // A dispatch the queue lost (Redis flushed, the gateway died before its add) is enqueued, in its turn.
    const lost = { tenantId: 'acme', taskId: 'lost', version: 1, attempts: 0 };
    expect(await queue.redispatch(lost)).toBe(true);
    expect(await counter()).toBe('2');
    const jobs = await queue.queue.getJobs(['prioritized']);
    expect(jobs.map((j) => [j.data.taskId, j.opts.priority]).sort()).toEqual([
      ['lost', 1],
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
    // Places asked for first (as sends do while their tasks commit), so the five adds are issued
    // in one turn whatever turns the script's answers arrive in.
    const slots = [1, 2, 3, 4, 5].map(() => queue.reserve('acme'));
    await Promise.all(slots.map((slot) => slot.priority));
    await Promise.all(
      slots.map((slot, i) =>
        queue.enqueue({ tenantId: 'acme', taskId: `b${i + 1}`, version: 1, attempts: 0 }, slot),
      ),
    );
    expect(bulk).toHaveBeenCalledTimes(1);
    expect(bulk.mock.calls[0]![0]).toHaveLength(5);
    expect(single).not.toHaveBeenCalled();
    const jobs = await queue.queue.getJobs(['prioritized', 'wait']);
    expect(jobs.map((j) => [j.id, j.opts.priority]).sort()).toEqual([
      ['acme.b1.v1.a0', 1],
      ['acme.b2.v1.a0', 1],
      ['acme.b3.v1.a0', 1],
      ['acme.b4.v1.a0', 1],
      ['acme.b5.v1.a0', 1],
    ]);
    await queue.enqueue({ tenantId: 'acme', taskId: 'alone', version: 1, attempts: 0 });
    expect(single).toHaveBeenCalledTimes(1);
    expect(bulk).toHaveBeenCalledTimes(1);
    await queue.close();
  });
});
