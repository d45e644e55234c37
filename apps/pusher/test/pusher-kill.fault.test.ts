import {
  createTestRedis,
  startProcess,
  waitFor,
  type RunningProcess,
  type TestRedis,
} from '@switchyard/testing';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { firstSeen, startReceiver, type Receiver } from './receiver.ts';
import {
  appendEvents,
  createTask,
  deliveriesOf,
  newTenant,
  openPusherTestEnv,
  SECRET_KEY,
  type PusherTestEnv,
  type SeededTask,
} from './pusher-fixtures.ts';

// A real pusher process is SIGKILLed mid-delivery and another one takes over (ARCHITECTURE.md §11:
// fault tests kill and restart real processes). The outbox must deliver every event at least once
// and, per task, in order: the receiver's first-seen seqs are 1..N with no gap.
const EVENTS = 30;
const LOCK_MS = 3000;
let env: PusherTestEnv;
let redis: TestRedis;
let receiver: Receiver;
const procs: RunningProcess[] = [];

function startPusher(id: string): RunningProcess {
  const proc = startProcess('apps/pusher/src/main.ts', {
    DATABASE_URL: env.testDb.url,
    REDIS_URL: redis.url,
    SWITCHYARD_REDIS_PREFIX: redis.prefix,
    SWITCHYARD_SECRET_KEY: SECRET_KEY,
    WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
    PUSHER_ID: id,
    PUSHER_OPS_PORT: '0',
    PUSHER_CONCURRENCY: '4',
    // A send starts only while it can end inside the lock: a second of slack between the two.
    PUSH_TIMEOUT_MS: '1000',
    PUSH_LOCK_MS: String(LOCK_MS),
    PUSH_POLL_MS: '100',
    PUSH_RETRY_BASE_MS: '50',
    PUSH_RETRY_MAX_MS: '500',
    LOG_LEVEL: 'info',
  });
  procs.push(proc);
  return proc;
}

beforeAll(async () => {
  env = await openPusherTestEnv();
  redis = createTestRedis();
  receiver = await startReceiver();
});
afterAll(async () => {
  // Never leak a child: SIGKILL whatever is still alive, then wait for it.
  for (const proc of procs) proc.signal('SIGKILL');
  await Promise.all(procs.map((p) => p.exited));
  await receiver.close();
  await redis.cleanup();
  await env.testDb.drop();
});

describe('pusher process killed mid-delivery', () => {
  it('delivers every event at least once and in order per task after a SIGKILL and a restart', async () => {
    onTestFailed(() => {
      for (const proc of procs) console.error(proc.lines.slice(-30).join('\n'));
    });
    const { tenantId } = await newTenant(env);
    const tasks: SeededTask[] = [];
    for (const name of ['a', 'b']) {
      const task = await createTask(env, tenantId, {
        id: 'hook',
        url: `${receiver.origin}/${name}`,
        token: `tok-${name}`,
      });
      await appendEvents(env, tenantId, task, EVENTS - 1);
      tasks.push(task);
    }

    // A slow receiver; while `hold` is set it answers nobody, so the killed pusher cannot have
    // seen the answer to a request that was in flight when it died.
    const answering = new Set<string>();
    let hold: Promise<void> | undefined;
    let release = () => {};
    receiver.respond = async (req) => {
      const id = String(req.headers['webhook-id']);
      answering.add(id);
      await new Promise((r) => setTimeout(r, 40));
      if (hold) await hold;
      answering.delete(id);
      return { status: 204 };
    };

    const first = startPusher('pusher-first');
    const cutOff = await waitFor(
      () => {
        if (receiver.requests.length < 10 || answering.size === 0) return undefined;
        hold = new Promise((r) => (release = r));
        return [...answering];
      },
      { timeoutMs: 30_000, intervalMs: 5, what: 'the first pusher mid-delivery' },
    );
    first.signal('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    release();
    const seenBeforeRestart = receiver.requests.length;
    expect(seenBeforeRestart).toBeLessThan(2 * EVENTS);

    const second = startPusher('pusher-second');
    await waitFor(
      async () => {
        const rows = (await Promise.all(tasks.map((t) => deliveriesOf(env, tenantId, t.taskId)))).flat();
        return rows.length === 2 * EVENTS && rows.every((r) => r.status === 'delivered');
      },
      { timeoutMs: 60_000, intervalMs: 100, what: 'every delivery recorded as delivered' },
    );
    // A pusher only listens for wake-ups: no BullMQ or pipelined-commands connection.
    expect(await redis.clientRoles('pusher', second.child.pid!)).toEqual(['subscriber']);

    const everySeq = Array.from({ length: EVENTS }, (_, i) => i + 1);
    for (const task of tasks) expect(firstSeen(receiver.requests, task.taskId)).toEqual(everySeq);
    // What was in flight at the kill was never acknowledged, so the second pusher sent it again
    // (same webhook-id: the receiver's dedupe key) once the dead pusher's claim lapsed.
    for (const id of cutOff) {
      expect(receiver.requests.filter((r) => r.headers['webhook-id'] === id).length).toBeGreaterThanOrEqual(
        2,
      );
    }
    // A graceful stop of the survivor: SIGTERM drains and exits 0.
    second.signal('SIGTERM');
    expect(await second.exited).toBe(0);
  });
});
