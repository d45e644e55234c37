import { waitFor } from '@switchyard/testing';
import { describe, expect, it } from 'vitest';
import { firstSeen, startReceiver, type Received } from './receiver.ts';
import {
  appendEvents,
  createTask,
  deliveriesOf,
  newTenant,
  usePusherSuite,
  type SeededTask,
} from './pusher-fixtures.ts';

// A multi-tenant pusher must not let one tenant, or one slow receiver, starve the others: caps on
// the sends in flight per tenant and per receiver host, and claims that take tenants in turn.
const suite = usePusherSuite();
const { scope } = suite;

/**
 * Receiver answers for `isSlow` requests wait until release(): a webhook slower than any wait in
 * these tests. Counts how many of them were ever in flight at once.
 */
function holdSlow(isSlow: (req: Received) => boolean) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const held = { now: 0, most: 0, release };
  suite.receiver.respond = async (req) => {
    if (!isSlow(req)) return { status: 204 };
    held.now += 1;
    held.most = Math.max(held.most, held.now);
    await released;
    held.now -= 1;
    return { status: 204 };
  };
  return held;
}

/** A POST timeout longer than any wait here: without the caps, the held sends keep every slot. */
const HANGING = { timeoutMs: 30_000, lockMs: 35_000, shutdownGraceMs: 100 };

async function tasks(tenantId: string, count: number, url: string): Promise<SeededTask[]> {
  const made: SeededTask[] = [];
  for (let i = 0; i < count; i++) made.push(await createTask(suite.env, tenantId, { id: 'hook', url }));
  return made;
}

async function rowsOf(tenantId: string, of: SeededTask[]) {
  return (await Promise.all(of.map((t) => deliveriesOf(suite.env, tenantId, t.taskId)))).flat();
}

const allDelivered = async (tenantId: string, of: SeededTask[]) =>
  (await rowsOf(tenantId, of)).every((r) => r.status === 'delivered');

describe('fair shares of the pusher’s slots', () => {
  it('a tenant whose webhook hangs holds at most its share while another tenant’s deliveries flow', async () => {
    const slow = await newTenant(suite.env);
    const fast = await newTenant(suite.env);
    const held = holdSlow((req) => req.path === '/slow');
    // The hanging tenant's deliveries are the older ones: in one global order they came first.
    const slowTasks = await tasks(slow.tenantId, 6, `${suite.receiver.origin}/slow`);
    const fastTasks = await tasks(fast.tenantId, 3, `${suite.receiver.origin}/fast`);
    try {
      await scope
        .pusher({ ...HANGING, concurrency: 4, maxInFlightPerTenant: 2, maxInFlightPerHost: 4 })
        .start();
      await waitFor(async () => held.now === 2 && (await allDelivered(fast.tenantId, fastTasks)), {
        what: 'two held sends and the other tenant’s deliveries',
      });
      expect(held.most).toBe(2);
      expect(suite.receiver.requests.filter((r) => r.path === '/slow')).toHaveLength(2);
    } finally {
      held.release();
    }
    await waitFor(() => allDelivered(slow.tenantId, slowTasks), { what: 'the slow tenant’s deliveries' });
    expect(held.most).toBe(2);
    expect((await rowsOf(slow.tenantId, slowTasks)).map((r) => r.attempts)).toEqual([1, 1, 1, 1, 1, 1]);
  });

  it('a receiver host that hangs holds at most its share while the tenant’s other receivers get theirs', async () => {
    const other = await startReceiver();
    const { tenantId } = await newTenant(suite.env);
    const held = holdSlow(() => true);
    const slowTasks = await tasks(tenantId, 6, `${suite.receiver.origin}/hook`);
    const fastTasks = await tasks(tenantId, 3, `${other.origin}/hook`);
    try {
      await scope
        .pusher({ ...HANGING, concurrency: 4, maxInFlightPerTenant: 4, maxInFlightPerHost: 2 })
        .start();
      await waitFor(async () => held.now === 2 && (await allDelivered(tenantId, fastTasks)), {
        what: 'two held sends and the other receiver’s deliveries',
      });
      expect(held.most).toBe(2);
      expect(suite.receiver.requests).toHaveLength(2);
    } finally {
      held.release();
    }
    try {
      await waitFor(() => allDelivered(tenantId, slowTasks), { what: 'the slow receiver’s deliveries' });
      // Deliveries claimed beyond the host's cap were handed back without spending an attempt.
      expect((await rowsOf(tenantId, slowTasks)).map((r) => r.attempts)).toEqual([1, 1, 1, 1, 1, 1]);
      expect(other.requests).toHaveLength(3);
    } finally {
      await other.close();
    }
  });

  it('one tenant’s backlog does not hold back another tenant’s delivery: one claim round serves both', async () => {
    const big = await newTenant(suite.env);
    const small = await newTenant(suite.env);
    await tasks(big.tenantId, 20, `${suite.receiver.origin}/big`);
    const [single] = await tasks(small.tenantId, 1, `${suite.receiver.origin}/small`);

    await scope.pusher({ concurrency: 4, maxInFlightPerTenant: 2 }).deliverOnce();
    expect(suite.receiver.requests.map((r) => r.taskId)).toContain(single!.taskId);
  });

  it('without a per-tenant cap, tenants take turns: a backlog delays another tenant by one claim round at most', async () => {
    const big = await newTenant(suite.env);
    const small = await newTenant(suite.env);
    await tasks(big.tenantId, 20, `${suite.receiver.origin}/big`);
    const [single] = await tasks(small.tenantId, 1, `${suite.receiver.origin}/small`);

    const pusher = scope.pusher({ concurrency: 4, maxInFlightPerTenant: 4, maxInFlightPerHost: 4 });
    for (let round = 0; round < 2; round++) await pusher.deliverOnce();
    expect(suite.receiver.requests.map((r) => r.taskId)).toContain(single!.taskId);
  });

  it('keeps per-task order and sends every event once while deliveries are deferred and handed back', async () => {
    const { tenantId } = await newTenant(suite.env);
    const all = await tasks(tenantId, 4, `${suite.receiver.origin}/hook`);
    for (const task of all) await appendEvents(suite.env, tenantId, task, 5);
    suite.receiver.respond = () => ({ status: 204, delayMs: 2 });

    // Each claim brings up to four deliveries to the one receiver and may start one.
    await scope.pusher({ concurrency: 4, maxInFlightPerTenant: 4, maxInFlightPerHost: 1 }).start();
    await waitFor(() => allDelivered(tenantId, all), { what: 'every event' });

    for (const task of all)
      expect(firstSeen(suite.receiver.requests, task.taskId)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(suite.receiver.requests).toHaveLength(24);
    expect((await rowsOf(tenantId, all)).every((r) => r.attempts === 1)).toBe(true);
  });
});
