import { afterAll, describe, expect, it, vi } from 'vitest';
import { createTestRedis, waitFor } from '@switchyard/testing';
import {
  createQueueKeys,
  readRunCapUsage,
  TaskConsumer,
  TaskQueue,
  TenantRunCap,
  type RunTaskJob,
} from '../src/index.ts';

// The per-tenant run cap (tenant-run-cap.ts) against a real Redis and real consumers: the cap
// holds across processes' consumers, other tenants run past a capped one, parked jobs come back
// when a run ends or when a dead consumer's slots lapse, and no job is stranded or run twice.

const redis = createTestRedis();
const inspect = redis.connect();
afterAll(() => redis.cleanup());

let prefixSeq = 0;
function setup() {
  const keys = createQueueKeys(`${redis.prefix}-cap${prefixSeq++}`);
  const queue = new TaskQueue({ connection: redis.connect(), keys });
  const consumers: TaskConsumer[] = [];
  const errors: unknown[] = [];
  const consumer = (
    handle: (job: RunTaskJob) => Promise<void>,
    options: {
      maxRunning: number;
      concurrency?: number;
      lockMs?: number;
      minParkMs?: number;
      capFor?: (tenantId: string) => Promise<number | null>;
    },
  ) => {
    const c = new TaskConsumer({
      connection: redis.connect(),
      keys,
      concurrency: options.concurrency ?? 4,
      handle,
      onError: (err) => errors.push(err),
      tenantRunCap: {
        maxRunning: options.maxRunning,
        ...(options.minParkMs ? { minParkMs: options.minParkMs } : {}),
        ...(options.capFor ? { capFor: options.capFor } : {}),
      },
      ...(options.lockMs ? { lockMs: options.lockMs } : {}),
    });
    consumers.push(c);
    c.start();
    return c;
  };
  const enqueue = (tenantId: string, taskId: string) =>
    queue.enqueue({ tenantId, taskId, version: 1, attempts: 0 });
  const close = async () => {
    await Promise.all(consumers.map((c) => c.close(true)));
    await queue.close();
  };
  return { keys, queue, consumer, enqueue, errors, close };
}

/** Counts each tenant's runs going at once, the most seen, and every run. */
function runTracker() {
  const now = new Map<string, number>();
  const most = new Map<string, number>();
  const ran: string[] = [];
  const parked = new Map<string, number | undefined>();
  return {
    ran,
    most,
    parked,
    async during(job: RunTaskJob, work: () => Promise<void>) {
      parked.set(job.taskId, job.parkedAt);
      const n = (now.get(job.tenantId) ?? 0) + 1;
      now.set(job.tenantId, n);
      most.set(job.tenantId, Math.max(most.get(job.tenantId) ?? 0, n));
      ran.push(`${job.tenantId}/${job.taskId}`);
      try {
        await work();
      } finally {
        now.set(job.tenantId, now.get(job.tenantId)! - 1);
      }
    },
  };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe('per-tenant run cap', () => {
  it('holds across consumers under a race of short runs, and strands no job', async () => {
    const env = setup();
    const runs = runTracker();
    // A parked job that no release promoted would wait out a minute: the wait below would fail.
    const handle = (job: RunTaskJob) => runs.during(job, () => sleep(2 + Math.random() * 8));
    env.consumer(handle, { maxRunning: 2, concurrency: 4, minParkMs: 60_000 });
    env.consumer(handle, { maxRunning: 2, concurrency: 4, minParkMs: 60_000 });
    const ids = Array.from({ length: 60 }, (_, i) => `t${i}`);
    await Promise.all(ids.map((id) => env.enqueue('flood', id)));

    await waitFor(() => new Set(runs.ran).size === ids.length, { timeoutMs: 30_000 });
    await sleep(200);
    expect(runs.most.get('flood')).toBeLessThanOrEqual(2);
    // Each job ran once: parking never lost one nor ran one twice.
    expect(runs.ran.sort()).toEqual(ids.map((id) => `flood/${id}`).sort());
    expect(env.errors).toEqual([]);
    await env.close();
  });

  it("runs another tenant's job at once while a flooding tenant holds its cap", async () => {
    const env = setup();
    const runs = runTracker();
    let releaseFlood!: () => void;
    const flooding = new Promise<void>((r) => (releaseFlood = r));
    env.consumer((job) => runs.during(job, () => (job.tenantId === 'flood' ? flooding : sleep(1))), {
      maxRunning: 1,
      concurrency: 8,
      minParkMs: 60_000,
    });
    for (let i = 0; i < 5; i++) await env.enqueue('flood', `f${i}`);
    await waitFor(() => runs.ran.length === 1);
    await env.enqueue('quiet', 'q0');

    // The quiet tenant's task runs though the consumer took (and parked) the flood's others.
    await waitFor(() => runs.ran.includes('quiet/q0'));
    expect(runs.ran.filter((r) => r.startsWith('flood/'))).toHaveLength(1);
    // What operators see (the console's tenants page): one run holding the flood's slot, four parked.
    await waitFor(async () => (await inspect.zcard(env.keys.tenantParkedRuns('flood'))) === 4);
    await waitFor(
      async () => (await readRunCapUsage(inspect, env.keys, ['quiet'])).get('quiet')?.running === 0,
    );
    expect(await readRunCapUsage(inspect, env.keys, ['flood', 'quiet'])).toEqual(
      new Map([
        ['flood', { running: 1, parked: 4 }],
        ['quiet', { running: 0, parked: 0 }],
      ]),
    );

    // Each run of the flood that ends lets the next parked one in, one at a time.
    releaseFlood();
    await waitFor(() => runs.ran.filter((r) => r.startsWith('flood/')).length === 5, { timeoutMs: 10_000 });
    expect(runs.most.get('flood')).toBe(1);
    // Oldest first: the parked ones came back in the order they were sent.
    expect(runs.ran.filter((r) => r.startsWith('flood/'))).toEqual(
      ['f0', 'f1', 'f2', 'f3', 'f4'].map((f) => `flood/${f}`),
    );
    // Each parked job came back marked with when it was first parked; the first ran unmarked.
    expect(runs.parked.get('f0')).toBeUndefined();
    for (const f of ['f1', 'f2', 'f3', 'f4']) expect(runs.parked.get(f)).toEqual(expect.any(Number));
    await env.close();
  });

  it("gives back a dead consumer's slots once its renewals stop, and the parked job runs", async () => {
    const env = setup();
    const runs = runTracker();
    // The first consumer's run never ends and it stops renewing (closed by force): as if it died.
    const dead = env.consumer((job) => runs.during(job, () => new Promise<void>(() => {})), {
      maxRunning: 1,
      lockMs: 4000,
      concurrency: 1,
    });
    await env.enqueue('solo', 'held');
    await waitFor(() => runs.ran.length === 1);
    await dead.close(true);

    env.consumer((job) => runs.during(job, () => sleep(1)), { maxRunning: 1, lockMs: 4000, minParkMs: 1000 });
    await env.enqueue('solo', 'next');
    // Refused while the dead run's slot is held: parked, not run.
    await waitFor(async () => (await inspect.zcard(env.keys.tenantParkedRuns('solo'))) === 1);
    expect(runs.ran).toEqual(['solo/held']);
    // Run once the slot lapsed (no release will come: the parked job's own delay brings it back).
    await waitFor(() => runs.ran.includes('solo/next'), { timeoutMs: 15_000 });
    expect(runs.ran.filter((r) => r === 'solo/next')).toHaveLength(1);
    await env.close();
  });

  it('leaves no slot behind when runs end, so the cap stays whole', async () => {
    const env = setup();
    const runs = runTracker();
    env.consumer((job) => runs.during(job, () => sleep(2)), { maxRunning: 3, minParkMs: 60_000 });
    for (let i = 0; i < 12; i++) await env.enqueue('tidy', `t${i}`);
    await waitFor(() => runs.ran.length === 12, { timeoutMs: 30_000 });
    await waitFor(async () => (await inspect.zcard(env.keys.tenantRunSlots('tidy'))) === 0);
    expect(await inspect.zcard(env.keys.tenantParkedRuns('tidy'))).toBe(0);
    await env.close();
  });

  it('passes a slot given to a stale parked entry on to the next parked job', async () => {
    const env = setup();
    const runs = runTracker();
    let releaseFirst!: () => void;
    const first = new Promise<void>((r) => (releaseFirst = r));
    env.consumer((job) => runs.during(job, () => (job.taskId === 'first' ? first : sleep(1))), {
      maxRunning: 1,
      minParkMs: 60_000,
    });
    await env.enqueue('stale', 'first');
    await waitFor(() => runs.ran.length === 1);
    await env.enqueue('stale', 'second');
    const parked = env.keys.tenantParkedRuns('stale');
    await waitFor(async () => (await inspect.zcard(parked)) === 1);
    // Older than the real one: a job that is gone (it ran while the tenant had no cap), whose
    // promotion finds nothing. The freed slot must not wait out the real job's 60 s delay.
    await inspect.zadd(parked, 0, 'gone-job');

    releaseFirst();
    await waitFor(() => runs.ran.includes('stale/second'), { timeoutMs: 15_000 });
    expect(await inspect.zcard(parked)).toBe(0);
    expect(runs.most.get('stale')).toBe(1);
    await env.close();
  });

  it("brings a tenant's parked runs back soon after its cap is raised, not by their own delays", async () => {
    const env = setup();
    const runs = runTracker();
    let cap = 1;
    let releaseAll!: () => void;
    const held = new Promise<void>((r) => (releaseAll = r));
    env.consumer((job) => runs.during(job, () => held), {
      maxRunning: 1,
      concurrency: 8,
      minParkMs: 60_000,
      capFor: () => Promise.resolve(cap),
    });
    for (let i = 0; i < 4; i++) await env.enqueue('raised', `r${i}`);
    const parked = env.keys.tenantParkedRuns('raised');
    await waitFor(async () => (await inspect.zcard(parked)) === 3);
    expect(runs.ran).toHaveLength(1);

    cap = 4;
    expect(await env.queue.releaseParked('raised', 200)).toBe(3);
    // All four at once under the new cap, long before the parked jobs' own 60 s delay.
    await waitFor(() => runs.ran.length === 4, { timeoutMs: 15_000 });
    expect(runs.most.get('raised')).toBe(4);
    // Nothing parked is left to release.
    await waitFor(async () => (await inspect.zcard(parked)) === 0);
    expect(await env.queue.releaseParked('raised', 200)).toBe(0);
    releaseAll();
    await env.close();
  });

  it('a run ending between a refusal and the park cannot strand the parked job', async () => {
    // The interleaving no timing reliably hits, step by step through the cap's own scripts: the
    // release finds nothing parked yet, so the park must see the free slot and say "promote it".
    const keys = createQueueKeys(`${redis.prefix}-cap${prefixSeq++}`);
    const conn = redis.connect();
    new TenantRunCap({ queue: {} as never, connection: conn, keys, leaseMs: 30_000 });
    const scripts = conn as unknown as {
      syCapAdmit(...a: Array<string | number>): Promise<number>;
      syCapPark(...a: Array<string | number>): Promise<number>;
      syCapRelease(...a: Array<string | number>): Promise<string[]>;
    };
    const [slots, parked] = [keys.tenantRunSlots('t'), keys.tenantParkedRuns('t')];
    const place = Date.now();
    expect(await scripts.syCapAdmit(slots, parked, 30_000, 1, 'running:tok', 'running', 600_000)).toBe(1);
    // Refused: all slots held, nothing parked ahead of it.
    expect(await scripts.syCapAdmit(slots, parked, 30_000, 1, 'late:tok', 'late', 600_000)).toBe(0);
    expect(await scripts.syCapRelease(slots, parked, 'running:tok', 1)).toEqual([]);
    expect(await scripts.syCapPark(slots, parked, 1, 'late', place, 600_000)).toBe(1);
    expect(await conn.zcard(parked)).toBe(0);

    // Without the release, the park records it, and the next release hands it out.
    expect(await scripts.syCapAdmit(slots, parked, 30_000, 1, 'other:tok', 'other', 600_000)).toBe(1);
    expect(await scripts.syCapPark(slots, parked, 1, 'late', place, 600_000)).toBe(0);
    expect(await scripts.syCapRelease(slots, parked, 'other:tok', 1)).toEqual(['late']);
  });

  // Found in review: slots were scored on each worker's clock in one shared set, so a worker an
  // hour ahead renewed its slots an hour too long (a dead one's would hold the tenant's cap that
  // long) and counted everyone's live slots as lapsed.
  it("scores slots on Redis's clock: a worker whose clock is off neither stretches nor loses them", async () => {
    const keys = createQueueKeys(`${redis.prefix}-cap${prefixSeq++}`);
    const conn = redis.connect();
    const cap = new TenantRunCap({ queue: {} as never, connection: conn, keys, leaseMs: 30_000 });
    const scripts = conn as unknown as { syCapAdmit(...a: Array<string | number>): Promise<number> };
    const slots = keys.tenantRunSlots('t');
    await scripts.syCapAdmit(slots, keys.tenantParkedRuns('t'), 30_000, 1, 'run:tok', 'run', 600_000);
    const hourAhead = vi.spyOn(Date, 'now').mockReturnValue(Date.now() + 3_600_000);
    try {
      await cap.renew([{ tenantId: 't', member: 'run:tok', maxRunning: 1 }]);
      expect((await readRunCapUsage(conn, keys, ['t'])).get('t')).toEqual({ running: 1, parked: 0 });
    } finally {
      hourAhead.mockRestore();
    }
    const [seconds] = await conn.time();
    expect(Number(await conn.zscore(slots, 'run:tok'))).toBeLessThanOrEqual((Number(seconds) + 31) * 1000);
  });
});
