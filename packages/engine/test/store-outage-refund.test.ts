import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '@switchyard/agents';
import { TaskState } from '@switchyard/protocol';
import type { Dispatch } from '@switchyard/queue';
import { silentLogger } from '@switchyard/telemetry';
import { TaskRunner, type EngineConfig } from '../src/index.ts';
import type { RunnerDeps } from '../src/runner/runner-deps.ts';
import {
  alice,
  quietWriter,
  startPlatform,
  storeWith,
  testCard,
  userMessage,
  type Platform,
} from './platform-fixture.ts';

// Found in review: a run whose write found Postgres away (a restart, a failover) let the error out
// of its agent, and the runner counted it as the agent's failure: retried with an attempt spent,
// and on the last attempt FAILED with "The agent failed". A few short outages in a long task's
// life failed a healthy task. Such a run now gives its lease back with the attempt refunded.
let p: Platform;
beforeAll(async () => {
  p = await startPlatform({ leaseMs: 60_000 });
});
afterAll(() => p.close());

const card = testCard;

/** Emits one chunk (its write may find Postgres away and throw), then completes. */
const chunker: Agent = {
  executor: 'outage-chunker',
  card: card('outage-chunker'),
  async execute(ctx) {
    await ctx.emitArtifact({ artifactId: 'a', parts: [{ text: 'x' }], lastChunk: true });
    await ctx.complete();
  },
};

/** Fails on its own: an upstream of its refused the connection (not the platform's store). */
const ownOutage: Agent = {
  executor: 'own-outage',
  card: card('own-outage'),
  async execute() {
    throw Object.assign(new Error('connect ECONNREFUSED 10.0.0.9:443'), { code: 'ECONNREFUSED' });
  },
};

beforeAll(async () => {
  await p.registerAgent(chunker);
  await p.registerAgent(ownOutage);
});

/** What node-postgres throws when Postgres refuses connections. */
const refused = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

function runner(
  config: Partial<EngineConfig>,
  dispatched: Dispatch[],
  store = p.store,
  options: { agent?: Agent; getAgent?: RunnerDeps['agents']['getAgent'] } = {},
): TaskRunner {
  return new TaskRunner({
    store,
    writer: quietWriter(store),
    dispatcher: { enqueue: async (d) => void dispatched.push(d) },
    hub: { watch: () => () => undefined },
    agents: { getAgent: options.getAgent ?? ((tenantId, agentId) => p.admin.getAgent(tenantId, agentId)) },
    findAgent: (executor) => options.agent ?? [chunker, ownOutage].find((a) => a.executor === executor),
    config: { ...p.config, ...config },
    workerId: 'w',
    log: silentLogger(),
  });
}

async function queuedTask(agentId: string): Promise<string> {
  const sent = await p.service.send(alice, await p.agent(agentId), {
    message: userMessage('go'),
    configuration: { returnImmediately: true },
  });
  if (!('task' in sent)) throw new Error('expected a task');
  return sent.task.id;
}

describe('a run ended by a Postgres outage', () => {
  it('on its last attempt, goes back with the attempt refunded, and the next run completes it', async () => {
    const taskId = await queuedTask('outage-chunker');
    let away = true;
    const store = storeWith(p.store, 'changeTask', (changeTask) => async (input) => {
      if (away) throw refused();
      return changeTask(input);
    });
    const dispatched: Dispatch[] = [];
    await runner({ maxAttempts: 1 }, dispatched, store).run({ tenantId: 'acme', taskId });
    const record = (await p.store.getTaskRecord('acme', taskId))!;
    expect(record).toMatchObject({ state: TaskState.WORKING, leaseOwner: null, attempts: 0 });
    expect(dispatched).toMatchObject([{ taskId, attempts: 0 }]);

    away = false;
    await runner({ maxAttempts: 1 }, [], store).run({ tenantId: 'acme', taskId });
    expect((await p.store.getTaskRecord('acme', taskId))?.state).toBe(TaskState.COMPLETED);
  });

  it('a write that timed out (an overloaded Postgres, not a gone one) still counts: the task fails', async () => {
    const taskId = await queuedTask('outage-chunker');
    const timedOut = () =>
      Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' });
    const store = storeWith(p.store, 'changeTask', (changeTask) => async (input) => {
      // The agent's writes time out; the runner's failure goes through.
      if (input.artifactChunk || input.patch.state === TaskState.COMPLETED) throw timedOut();
      return changeTask(input);
    });
    const dispatched: Dispatch[] = [];
    await runner({ maxAttempts: 1 }, dispatched, store).run({ tenantId: 'acme', taskId });
    expect((await p.store.getTaskRecord('acme', taskId))?.state).toBe(TaskState.FAILED);
    expect(dispatched).toEqual([]);
  });

  it('is refunded five times in a row at most, with a growing wait; the sixth counts', async () => {
    const taskId = await queuedTask('outage-chunker');
    const store = storeWith(p.store, 'changeTask', (changeTask) => async (input) => {
      // Every write of the agent's fails; the runner's own settle writes (no event) go through.
      if (input.artifactChunk || input.patch.state === TaskState.COMPLETED) throw refused();
      return changeTask(input);
    });
    const dispatched: Dispatch[] = [];
    for (let refunds = 0; refunds <= 5; refunds++)
      await runner({ maxAttempts: 1 }, dispatched, store).run({
        tenantId: 'acme',
        taskId,
        outageRefunds: refunds,
      });
    expect(dispatched.map((d) => d.outageRefunds)).toEqual([1, 2, 3, 4, 5]);
    const waits = dispatched.map((d) => d.runAfter!.getTime());
    expect(waits).toEqual([...waits].sort((a, b) => a - b));
    // The sixth run's outage counts as an error: on the last attempt, the task fails.
    expect((await p.store.getTaskRecord('acme', taskId))?.state).toBe(TaskState.FAILED);
  });

  it('a memory write that found Postgres gone counts as the outage it is', async () => {
    const taskId = await queuedTask('outage-chunker');
    const remembers: Agent = {
      executor: 'outage-chunker',
      card: card('outage-chunker'),
      async execute(ctx) {
        await ctx.memory.set('k', 'v');
        await ctx.complete();
      },
    };
    const store = storeWith(p.store, 'setRunMemory', () => () => Promise.reject(refused()));
    const dispatched: Dispatch[] = [];
    await runner({ maxAttempts: 1 }, dispatched, store, { agent: remembers }).run({
      tenantId: 'acme',
      taskId,
    });
    expect(await p.store.getTaskRecord('acme', taskId)).toMatchObject({
      state: TaskState.WORKING,
      attempts: 0,
    });
    expect(dispatched).toMatchObject([{ taskId, outageRefunds: 1 }]);
  });

  it("an agent's own connection error still counts: on the last attempt the task fails", async () => {
    const taskId = await queuedTask('own-outage');
    const dispatched: Dispatch[] = [];
    await runner({ maxAttempts: 1 }, dispatched).run({ tenantId: 'acme', taskId });
    expect((await p.store.getTaskRecord('acme', taskId))?.state).toBe(TaskState.FAILED);
    expect(dispatched).toEqual([]);
  });

  it('one that fenced itself because its renewals found Postgres away goes back with the attempt refunded', async () => {
    const taskId = await queuedTask('outage-chunker');
    const stopped: Agent = {
      executor: 'outage-chunker',
      card: card('outage-chunker'),
      // A cooperative agent: it stops when its run does.
      execute: (ctx) =>
        new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true })),
    };
    const store = storeWith(p.store, 'renewLease', () => () => Promise.reject(refused()));
    const dispatched: Dispatch[] = [];
    // A short lease, so the fence (3/4 of it) comes soon.
    const fenced = runner({ maxAttempts: 1, leaseMs: 400 }, dispatched, store, { agent: stopped });
    await fenced.run({ tenantId: 'acme', taskId });
    expect(await p.store.getTaskRecord('acme', taskId)).toMatchObject({
      state: TaskState.WORKING,
      leaseOwner: null,
      attempts: 0,
    });
    expect(dispatched).toMatchObject([{ taskId, attempts: 0 }]);
  });

  it('one that could not even look its agent up goes back without spending an attempt', async () => {
    const taskId = await queuedTask('outage-chunker');
    const dispatched: Dispatch[] = [];
    const lookingUp = runner({ maxAttempts: 1 }, dispatched, p.store, {
      agent: chunker,
      getAgent: () => Promise.reject(refused()),
    });
    await lookingUp.run({ tenantId: 'acme', taskId });
    expect(await p.store.getTaskRecord('acme', taskId)).toMatchObject({
      state: TaskState.WORKING,
      leaseOwner: null,
      attempts: 0,
    });
    expect(dispatched).toMatchObject([{ taskId, attempts: 0 }]);
  });
});
