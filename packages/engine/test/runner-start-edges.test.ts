import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '@switchyard/agents';
import type { Dispatch } from '@switchyard/queue';
import { TaskState } from '@switchyard/protocol';
import type { PostgresTaskStore } from '@switchyard/store';
import { TaskRunner } from '../src/index.ts';
import { silentLogger } from '@switchyard/telemetry';
import { queuedEchoTask, quietWriter, startPlatform, storeWith, type Platform } from './platform-fixture.ts';

// Found in review: two ways a run could end between its claim and its agent's start with the task
// left leased to nobody (or run after shutdown gave up on it).
let p: Platform;
beforeAll(async () => {
  p = await startPlatform({ leaseMs: 30_000, retryBaseMs: 10 });
});
afterAll(() => p.close());

const queuedTask = () => queuedEchoTask(p);

function runner(options: { store?: PostgresTaskStore; findAgent: (executor: string) => Agent | undefined }) {
  const store = options.store ?? p.store;
  const dispatched: Dispatch[] = [];
  const runner = new TaskRunner({
    store,
    writer: quietWriter(store),
    dispatcher: { enqueue: async (d) => void dispatched.push(d) },
    hub: { watch: () => () => undefined },
    agents: { getAgent: (tenantId, agentId) => p.admin.getAgent(tenantId, agentId) },
    findAgent: options.findAgent,
    config: p.config,
    workerId: 'edges',
    log: silentLogger(),
  });
  return { runner, dispatched };
}

const echo = (): Agent => ({
  executor: 'echo',
  card: { name: 'echo' } as Agent['card'],
  async execute(ctx) {
    await ctx.complete();
  },
});

describe('a run that cannot start its agent', () => {
  it('is retried with backoff, not left leased until the lease lapses', async () => {
    const taskId = await queuedTask();
    let lookups = 0;
    const { runner: r, dispatched } = runner({
      findAgent: () => {
        if (++lookups === 1) throw new Error('agent directory unreachable');
        return echo();
      },
    });
    await r.run({ tenantId: 'acme', taskId });
    const after = (await p.store.getTaskRecord('acme', taskId))!;
    expect(after.leaseOwner).toBeNull();
    expect(after.attempts).toBe(1);
    expect(after.lastError).toBe('could not start the agent');
    expect(dispatched).toMatchObject([{ taskId, runAfter: expect.any(Date) }]);
    // The retry (due after the backoff) runs the agent.
    await new Promise((resolve) => setTimeout(resolve, 50));
    await r.run({ tenantId: 'acme', taskId });
    expect((await p.store.getTaskRecord('acme', taskId))!.state).toBe(TaskState.COMPLETED);
  });
});

describe('a task whose executor this worker was not built with', () => {
  // Found in review: it was failed at once, though another worker (a newer build in a rolling
  // upgrade) may have the executor. It is retried like an agent error, then failed.
  it('is retried for another worker, and fails with the safe message after the last attempt', async () => {
    const taskId = await queuedTask();
    const { runner: r, dispatched } = runner({ findAgent: () => undefined });
    await r.run({ tenantId: 'acme', taskId });
    expect(await p.store.getTaskRecord('acme', taskId)).toMatchObject({
      state: TaskState.WORKING,
      leaseOwner: null,
      lastError: 'executor echo is not built into this worker',
    });
    expect(dispatched).toMatchObject([{ taskId }]);
    for (let attempt = 2; attempt <= p.config.maxAttempts; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** attempt));
      await r.run({ tenantId: 'acme', taskId });
    }
    const failed = (await p.store.getTaskRecord('acme', taskId))!;
    expect(failed.state).toBe(TaskState.FAILED);
    expect(failed.statusMessage?.parts).toEqual([{ text: 'This agent is not available on this platform.' }]);
  });
});

describe('a claim still in flight when the worker drains', () => {
  it('is waited for, and once the grace period is over its task is handed back, its agent never started', async () => {
    const taskId = await queuedTask();
    let releaseClaim!: () => void;
    const claimHeld = new Promise<void>((resolve) => (releaseClaim = resolve));
    const slowClaims = storeWith(p.store, 'claimTask', (claimTask) => async (input) => {
      await claimHeld;
      return claimTask(input);
    });
    let started = 0;
    const { runner: r, dispatched } = runner({
      store: slowClaims,
      findAgent: () => ({ ...echo(), execute: async () => void started++ }),
    });
    const run = r.run({ tenantId: 'acme', taskId });
    await new Promise((resolve) => setImmediate(resolve));
    r.beginDrain();
    expect(await r.idle(100)).toBe(false); // the claim in flight counts
    await r.stopAll('shutdown');
    releaseClaim();
    await run;
    expect(started).toBe(0);
    const after = (await p.store.getTaskRecord('acme', taskId))!;
    expect(after.leaseOwner).toBeNull();
    expect(after.attempts).toBe(0); // handed back: the attempt is refunded
    // Held back until the queue consumer has closed, then dispatched again.
    expect(dispatched).toEqual([]);
    await r.releaseHeldBack();
    expect(dispatched).toMatchObject([{ taskId }]);
  });
});

describe('a drain with only a claim in flight', () => {
  it('lets the claim answer (the event loop keeps turning) and then finds the worker idle', async () => {
    const taskId = await queuedTask();
    // Answered by a timer, as a claim's reply comes from I/O: neither can come in if the drain's
    // wait never yields to the event loop.
    const slowClaims = storeWith(p.store, 'claimTask', (claimTask) => async (input) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return claimTask(input);
    });
    const { runner: r } = runner({ store: slowClaims, findAgent: () => echo() });
    const run = r.run({ tenantId: 'acme', taskId });
    await new Promise((resolve) => setImmediate(resolve));
    r.beginDrain();
    expect(await r.idle(10_000)).toBe(true);
    await run;
    expect((await p.store.getTaskRecord('acme', taskId))!.state).toBe(TaskState.COMPLETED);
  });
});

describe('a duplicate dispatch of a task whose last attempt lapsed', () => {
  it('fails it as the reaper would, without a run past MAX_ATTEMPTS', async () => {
    const taskId = await queuedTask();
    await p.store.claimTask({ tenantId: 'acme', taskId, workerId: 'gone', leaseMs: 60_000 });
    await p.db.pool.query(
      `UPDATE tasks SET attempts = $2, lease_expires_at = now() - interval '1 second'
        WHERE tenant_id = 'acme' AND id = $1`,
      [taskId, p.config.maxAttempts],
    );
    let started = 0;
    const failed: string[] = [];
    const { runner: r } = runner({
      findAgent: () => ({
        ...echo(),
        execute: async () => void started++,
        onFailed: async ({ taskId: id }) => void failed.push(id),
      }),
    });
    await r.run({ tenantId: 'acme', taskId });
    expect(started).toBe(0);
    // The agent hears of the failure: its last run may have started work elsewhere.
    expect(failed).toEqual([taskId]);
    const after = (await p.store.getTaskRecord('acme', taskId))!;
    expect(after.state).toBe(TaskState.FAILED);
    expect(after.lastError).toBe('lease expired');
    expect(after.leaseOwner).toBeNull();
  });
});
