import { waitFor } from '@switchyard/testing';
import { describe, expect, it } from 'vitest';
import { firstSeen } from './receiver.ts';
import { appendEvents, createTask, deliveriesOf, newTenant, usePusherSuite } from './pusher-fixtures.ts';

const suite = usePusherSuite();
const { scope } = suite;
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('per-task order (ARCHITECTURE.md §7: per task, deliveries go out in order)', () => {
  it('delivers a task’s events in seq order, one at a time per config, while tasks run in parallel', async () => {
    const { tenantId } = await newTenant(suite.env);
    const a = await createTask(suite.env, tenantId, { id: 'hook', url: `${suite.receiver.origin}/a` });
    const b = await createTask(suite.env, tenantId, { id: 'hook', url: `${suite.receiver.origin}/b` });
    await appendEvents(suite.env, tenantId, a, 24);
    await appendEvents(suite.env, tenantId, b, 24);
    // A little latency so that sends of one task would overlap if the outbox let them.
    suite.receiver.respond = () => ({ status: 204, delayMs: 2 });

    await scope.pusher({ concurrency: 8 }).start();
    const rows = await waitFor(
      async () => {
        const all = [
          ...(await deliveriesOf(suite.env, tenantId, a.taskId)),
          ...(await deliveriesOf(suite.env, tenantId, b.taskId)),
        ];
        return all.every((r) => r.status === 'delivered') && all;
      },
      { what: 'all 50 deliveries recorded' },
    );

    for (const task of [a, b]) {
      const seen = suite.receiver.requests.filter((r) => r.taskId === task.taskId).map((r) => r.seq);
      expect(seen).toEqual(range(1, 25));
    }
    expect(rows).toHaveLength(50);
    expect(rows.every((r) => r.attempts === 1)).toBe(true);
  });

  it('gives every event to each of two configs on one task, each in order', async () => {
    const { tenantId } = await newTenant(suite.env);
    const task = await createTask(suite.env, tenantId, {
      id: 'first',
      url: `${suite.receiver.origin}/first`,
    });
    await suite.env.pushConfigs.createPushConfig(tenantId, task.taskId, {
      id: 'second',
      url: `${suite.receiver.origin}/second`,
    });
    await appendEvents(suite.env, tenantId, task, 10);

    await scope.pusher().start();
    // Event 1 predates the second config, so it has 10 deliveries (seq 2–11) and the first has 11.
    await waitFor(() => suite.receiver.requests.length >= 21, { what: '21 deliveries' });

    expect(firstSeen(suite.receiver.requests, task.taskId, 'first')).toEqual(range(1, 11));
    expect(firstSeen(suite.receiver.requests, task.taskId, 'second')).toEqual(range(2, 11));
    expect(
      suite.receiver.requests.filter((r) => r.configId === 'second').every((r) => r.path === '/second'),
    ).toBe(true);
  });

  it('sends nothing more to a deleted config, not even its pending retries (digest §8)', async () => {
    const { tenantId } = await newTenant(suite.env);
    const task = await createTask(suite.env, tenantId, { id: 'keep', url: `${suite.receiver.origin}/keep` });
    await suite.env.pushConfigs.createPushConfig(tenantId, task.taskId, {
      id: 'gone',
      url: `${suite.receiver.origin}/gone`,
    });
    await appendEvents(suite.env, tenantId, task, 2);
    // The doomed receiver keeps failing, so its seq 2 is pending in retries and seq 3 waits behind it.
    suite.receiver.respond = (req) => ({ status: req.configId === 'gone' ? 500 : 204 });
    await scope.pusher({ retry: { maxAttempts: 100, baseMs: 20, maxMs: 40 } }).start();
    await waitFor(() => suite.receiver.requests.filter((r) => r.configId === 'gone').length >= 2, {
      what: 'two failed attempts',
    });

    await suite.env.pushConfigs.deletePushConfig(tenantId, task.taskId, 'gone');
    await appendEvents(suite.env, tenantId, task, 3);
    await waitFor(() => firstSeen(suite.receiver.requests, task.taskId, 'keep').length === 6, {
      what: 'every event of the kept config',
    });

    expect(firstSeen(suite.receiver.requests, task.taskId, 'keep')).toEqual(range(1, 6));
    expect(new Set(suite.receiver.requests.filter((r) => r.configId === 'gone').map((r) => r.seq))).toEqual(
      new Set([2]),
    );
    expect(
      (await deliveriesOf(suite.env, tenantId, task.taskId)).filter((r) => r.configId === 'gone'),
    ).toEqual([]);
  });

  it('holds a config’s later events while an earlier one waits for its retry', async () => {
    const { tenantId } = await newTenant(suite.env);
    const task = await createTask(suite.env, tenantId, { id: 'hook', url: `${suite.receiver.origin}/x` });
    await appendEvents(suite.env, tenantId, task, 3);
    let failures = 0;
    suite.receiver.respond = (req) => (req.seq === 2 && failures++ < 2 ? { status: 503 } : { status: 204 });

    await scope.pusher({ random: () => 1 }).start();
    await waitFor(() => firstSeen(suite.receiver.requests, task.taskId).length === 4, {
      what: 'all four events',
    });

    expect(suite.receiver.requests.map((r) => r.seq)).toEqual([1, 2, 2, 2, 3, 4]);
  });
});
