import { afterAll, describe, expect, it } from 'vitest';
import { createTestRedis, waitFor } from '@switchyard/testing';
import {
  createQueueKeys,
  TaskConsumer,
  TaskQueue,
  type RunTaskJob,
  type TaskCanceledJob,
} from '../src/index.ts';

// The consumer fetches through BullMQ's manual API (task-consumer.ts says why), so the lock
// renewal, the stalled-job recovery and the hand-back on pause that BullMQ's own loop did for it
// are its to get right; each is tested here against a real Redis.

const redis = createTestRedis();
afterAll(() => redis.cleanup());

let prefixSeq = 0;
function setup() {
  const keys = createQueueKeys(`${redis.prefix}-c${prefixSeq++}`);
  const queue = new TaskQueue({ connection: redis.connect(), keys });
  const consumers: TaskConsumer[] = [];
  const errors: unknown[] = [];
  const consumer = (
    handle: (job: RunTaskJob) => Promise<void>,
    options: {
      concurrency?: number;
      lockMs?: number;
      idleWaitSeconds?: number;
      handleCanceled?: (job: TaskCanceledJob) => Promise<void>;
      onTaken?: (priority: number) => void;
      isTransient?: (err: unknown) => boolean;
    } = {},
  ) => {
    const c = new TaskConsumer({
      connection: redis.connect(),
      keys,
      concurrency: options.concurrency ?? 4,
      handle,
      ...(options.handleCanceled ? { handleCanceled: options.handleCanceled } : {}),
      ...(options.onTaken ? { onTaken: options.onTaken } : {}),
      ...(options.isTransient ? { isTransient: options.isTransient } : {}),
      onError: (err) => errors.push(err),
      ...(options.lockMs ? { lockMs: options.lockMs } : {}),
      ...(options.idleWaitSeconds ? { idleWaitSeconds: options.idleWaitSeconds } : {}),
    });
    consumers.push(c);
    return c;
  };
  const enqueue = (taskId: string) => queue.enqueue({ tenantId: 't', taskId, version: 1, attempts: 0 });
  const close = async () => {
    await Promise.all(consumers.map((c) => c.close(true)));
    await queue.close();
  };
  return { keys, queue, consumer, enqueue, errors, close };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A consumer whose run of the job 'running' lasts until `release()`; `runs` records each run. */
async function consumerHoldingAJob(env: ReturnType<typeof setup>) {
  const runs: string[] = [];
  let done!: () => void;
  const held = new Promise<void>((r) => (done = r));
  const paused = env.consumer(async (job) => {
    runs.push(`paused:${job.taskId}`);
    await held;
  });
  paused.start();
  await env.enqueue('running');
  await waitFor(() => runs.length === 1);
  return { runs, paused, release: () => done() };
}

describe('TaskConsumer', () => {
  it('runs each job once, never more than its concurrency at a time, and completes it', async () => {
    const env = setup();
    let running = 0;
    let most = 0;
    const ran: string[] = [];
    const c = env.consumer(
      async (job) => {
        running++;
        most = Math.max(most, running);
        await sleep(20);
        ran.push(job.taskId);
        running--;
      },
      { concurrency: 3 },
    );
    c.start();
    await Promise.all(Array.from({ length: 12 }, (_, i) => env.enqueue(`t${i}`)));
    await waitFor(() => ran.length === 12);
    expect(ran.sort()).toEqual(Array.from({ length: 12 }, (_, i) => `t${i}`).sort());
    expect(most).toBeLessThanOrEqual(3);
    expect(most).toBeGreaterThan(1);
    // Completed jobs are removed (the queue's removeOnComplete); nothing is left active.
    await waitFor(async () => (await env.queue.queue.getJobCounts('active', 'completed')).active === 0);
    expect(await env.queue.queue.getJobCounts('active', 'completed', 'failed', 'wait')).toEqual({
      active: 0,
      completed: 0,
      failed: 0,
      wait: 0,
    });
    expect(env.errors).toEqual([]);
    await env.close();
  });

  it('takes the next waiting job with each completion, in the same round trip', async () => {
    const env = setup();
    for (let i = 0; i < 5; i++) await env.enqueue(`q${i}`);
    let fetches = 0;
    /** How many fetches the consumer had made when each job ran. */
    const fetchesWhenRun: number[] = [];
    const c = env.consumer(
      async () => {
        fetchesWhenRun.push(fetches);
      },
      { concurrency: 1 },
    );
    const getNextJob = c.worker.getNextJob.bind(c.worker);
    c.worker.getNextJob = (...args) => {
      fetches++;
      return getNextJob(...args);
    };
    c.start();
    await waitFor(() => fetchesWhenRun.length === 5);
    // One fetch brought the first job; the other four came with the completions before them.
    expect(fetchesWhenRun).toEqual([1, 1, 1, 1, 1]);
    await env.close();
  });

  it('takes a job from an idle queue with one fetch: no empty fetches after it', async () => {
    const env = setup();
    const ran: string[] = [];
    // Long enough that no idle wait times out (and fetches) while the jobs come and go.
    const c = env.consumer(
      async (job) => {
        ran.push(job.taskId);
      },
      { idleWaitSeconds: 3 },
    );
    const worker = c.worker as unknown as { moveToActive(...args: unknown[]): Promise<unknown> };
    const moveToActive = worker.moveToActive.bind(worker);
    let fetches = 0;
    worker.moveToActive = (...args) => {
      fetches++;
      return moveToActive(...args);
    };
    c.start();
    await sleep(100);
    const atStart = fetches;
    for (let i = 0; i < 3; i++) {
      await env.enqueue(`one-${i}`);
      await waitFor(() => ran.length === i + 1);
      await sleep(100);
    }
    // BullMQ re-marks the queue with every job it hands out; without clearing that mark, each of
    // these jobs cost two more fetches that found nothing.
    expect(fetches - atStart).toBe(3);
    expect(env.errors).toEqual([]);
    await env.close();
  });

  it('keeps the queue marked after a take while other jobs wait, and clears it when none does', async () => {
    const env = setup();
    const c = env.consumer(async () => {});
    const connection = redis.connect();
    const marked = async () => (await connection.zscore(c.worker.keys.marker!, '0')) !== null;
    await env.enqueue('first');
    await env.enqueue('second');
    expect(await c.worker.getNextJob('t1', { block: false })).toBeDefined();
    expect(await c.worker.moreWaiting(connection)).toBe(true);
    expect(await marked()).toBe(true);
    expect(await c.worker.getNextJob('t2', { block: false })).toBeDefined();
    expect(await c.worker.moreWaiting(connection)).toBe(false);
    expect(await marked()).toBe(false);
    await env.close();
  });

  it('marks when the next delayed job is due as it clears the queue, if the idle wait would outlast it', async () => {
    const env = setup();
    const c = env.consumer(async () => {}, { idleWaitSeconds: 30 });
    const connection = redis.connect();
    const marker = c.worker.keys.marker!;
    const delayed = (taskId: string, dueAt: number) =>
      env.queue.enqueue({ tenantId: 't', taskId, version: 1, attempts: 1, runAfter: new Date(dueAt) });
    const takeAlone = async (taskId: string) => {
      await env.enqueue(taskId);
      // A blocked wait takes the delay marker first (BullMQ keeps its time in memory, and a take
      // forgets it), as here:
      await connection.zrem(marker, '1');
      expect(await c.worker.getNextJob(taskId, { block: false })).toMatchObject({ data: { taskId } });
      expect(await c.worker.moreWaiting(connection)).toBe(false);
      expect(await connection.zscore(marker, '0')).toBeNull();
      return connection.zscore(marker, '1');
    };
    // Due after the idle wait would end: no marker, or every take would wake a blocked wait early.
    await delayed('much-later', Date.now() + 120_000);
    expect(await takeAlone('first')).toBeNull();
    // Due within it: marked with its due time.
    const dueAt = Date.now() + 10_000;
    await delayed('soon', dueAt);
    expect(Math.abs(Number(await takeAlone('second')) - dueAt)).toBeLessThan(1000);
    await env.close();
  });

  it('keeps the lock of a job that runs for many lock periods: no other consumer gets it', async () => {
    const env = setup();
    const runs: string[] = [];
    const handler = (name: string) => async (job: RunTaskJob) => {
      runs.push(`${name}:${job.taskId}`);
      await sleep(1_500);
    };
    const first = env.consumer(handler('first'), { lockMs: 300 });
    first.start();
    await env.enqueue('long');
    await waitFor(() => runs.length === 1);
    // A second consumer runs the stalled check too; a lapsed lock would hand it the job.
    env.consumer(handler('second'), { lockMs: 300 }).start();
    await waitFor(async () => (await env.queue.queue.getJobCounts('active')).active === 0, {
      timeoutMs: 10_000,
    });
    expect(runs).toEqual(['first:long']);
    expect(env.errors).toEqual([]);
    await env.close();
  });

  it('counts a job taken again while its first run goes on (a lapsed lock) as a run of its own', async () => {
    const env = setup();
    let running = 0;
    let most = 0;
    let firstRuns = 0;
    const c = env.consumer(
      async (job) => {
        running++;
        most = Math.max(most, running);
        try {
          if (job.taskId === 'X' && ++firstRuns === 1) await sleep(3_000);
          else await sleep(job.taskId === 'X' ? 10 : 1_500);
        } finally {
          running--;
        }
      },
      { concurrency: 2, lockMs: 400 },
    );
    c.start();
    await env.enqueue('X');
    await waitFor(() => firstRuns === 1);
    // As a lapsed lock would (the process froze past it, or Redis lost it): the stalled check
    // gives the job back, and this same consumer takes it again.
    await redis.connect().del(`${env.keys.bullPrefix}:${env.keys.taskQueue}:t.X.v1.a0:lock`);
    await waitFor(() => firstRuns === 2, { timeoutMs: 10_000 });
    for (const id of ['A', 'B', 'C']) await env.enqueue(id);
    await sleep(2_000);
    expect(most).toBeLessThanOrEqual(2);
    await env.close();
  });

  it('wakes an idle consumer when it hands a job back', async () => {
    const env = setup();
    const { runs, paused, release } = await consumerHoldingAJob(env);
    // Idle and blocked in a long wait before the job comes back: only a wake-up gets it the job
    // before the wait ends.
    env
      .consumer(
        async (job) => {
          runs.push(`idle:${job.taskId}`);
        },
        { idleWaitSeconds: 30 },
      )
      .start();
    await sleep(200);
    await paused.pause();
    await env.enqueue('later');
    await waitFor(() => runs.length === 2, { timeoutMs: 15_000 });
    expect(runs).toEqual(['paused:running', 'idle:later']);
    release();
    await env.close();
  });

  it('gives the job of a consumer that died mid-run to another consumer', async () => {
    const env = setup();
    const runs: string[] = [];
    const dying = env.consumer(
      async (job) => {
        runs.push(`dying:${job.taskId}`);
        await new Promise(() => {}); // never finishes: its process "dies" below
      },
      { lockMs: 300 },
    );
    dying.start();
    await env.enqueue('orphan');
    await waitFor(() => runs.length === 1);
    // As a SIGKILL would: no completion, no more lock renewals.
    await dying.close(true);
    env
      .consumer(
        async (job) => {
          runs.push(`heir:${job.taskId}`);
        },
        { lockMs: 300 },
      )
      .start();
    await waitFor(() => runs.length === 2, { timeoutMs: 10_000 });
    expect(runs).toEqual(['dying:orphan', 'heir:orphan']);
    await env.close();
  });

  it('fails the job of a handler that throws, keeping it for the dashboard and the reaper', async () => {
    const env = setup();
    const c = env.consumer(async () => {
      throw new Error('cannot claim');
    });
    c.start();
    await env.enqueue('bad');
    await waitFor(async () => (await env.queue.queue.getJobCounts('failed')).failed === 1);
    const [failed] = await env.queue.queue.getJobs(['failed']);
    expect(failed?.failedReason).toBe('cannot claim');
    await env.close();
  });

  it('a transient failure (Postgres away) pauses fetching and brings the job back, failing none', async () => {
    const env = setup();
    let away = true;
    const ran: string[] = [];
    const done = new Set<string>();
    const c = env.consumer(
      async (job) => {
        ran.push(job.taskId);
        if (away) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
        done.add(job.taskId);
      },
      { isTransient: (err) => err instanceof Error && err.message.includes('ECONNREFUSED') },
    );
    for (let i = 0; i < 20; i++) await env.enqueue(`t${i}`);
    c.start();
    await sleep(1_200);
    // Before: the 20 jobs were taken and failed within milliseconds. Now a few runs, then pauses.
    expect(ran.length).toBeLessThan(12);
    expect((await env.queue.queue.getJobCounts('failed')).failed).toBe(0);
    away = false;
    await waitFor(() => done.size === 20, {
      what: 'every job to run once Postgres is back',
      timeoutMs: 20_000,
    });
    // Completed jobs are removed (the queue's removeOnComplete): nothing failed, nothing left.
    await waitFor(async () => (await env.queue.queue.getJobCounts('active')).active === 0);
    expect(await env.queue.queue.getJobCounts('failed', 'wait', 'delayed', 'prioritized')).toEqual({
      failed: 0,
      wait: 0,
      delayed: 0,
      prioritized: 0,
    });
    await env.close();
  });

  it('hands a task-canceled notice to handleCanceled', async () => {
    const env = setup();
    const canceled: string[] = [];
    const c = env.consumer(async () => {}, {
      handleCanceled: async (job) => {
        canceled.push(job.taskId);
      },
    });
    c.start();
    await env.queue.notifyCanceled('t', 'waiting-task');
    await waitFor(() => canceled.length === 1);
    expect(canceled).toEqual(['waiting-task']);
    await env.close();
  });

  it('after pause takes nothing more: a running job finishes, a new one waits for another consumer', async () => {
    const env = setup();
    const { runs, paused, release } = await consumerHoldingAJob(env);
    await paused.pause();
    await env.enqueue('later');
    // The wait that was blocked when pause came may take it; it must hand it back, not run it.
    await sleep(300);
    expect(runs).toEqual(['paused:running']);
    env
      .consumer(async (job) => {
        runs.push(`other:${job.taskId}`);
      })
      .start();
    await waitFor(() => runs.length === 2);
    expect(runs).toEqual(['paused:running', 'other:later']);
    release();
    await paused.close();
    expect(await env.queue.queue.getJobCounts('active', 'failed')).toEqual({ active: 0, failed: 0 });
    await env.close();
  });
});

describe('TaskConsumer reports takes', () => {
  it("tells onTaken each job's level as it takes it (the fair order's current level follows the work)", async () => {
    const env = setup();
    try {
      const taken: number[] = [];
      const ran: string[] = [];
      for (let i = 0; i < 25; i++) await env.enqueue(`t${i}`);
      env
        .consumer(async (job) => void ran.push(job.taskId), { concurrency: 1, onTaken: (p) => taken.push(p) })
        .start();
      await waitFor(() => ran.length === 25, { what: 'every job to run' });
      // 20 dispatches a level: the first 20 on level 1, the next 5 on level 2, in that order.
      expect(taken).toEqual([...Array(20).fill(1), ...Array(5).fill(2)]);
    } finally {
      await env.close();
    }
  });
});
