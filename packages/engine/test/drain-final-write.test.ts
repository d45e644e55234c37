import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunEndedError, type Agent, type AgentContext } from '@switchyard/agents';
import { TaskState } from '@switchyard/protocol';
import type { Dispatch } from '@switchyard/queue';
import { silentLogger } from '@switchyard/telemetry';
import { TaskRunner } from '../src/index.ts';
import { queuedEchoTask, quietWriter, startPlatform, storeWith, type Platform } from './platform-fixture.ts';

// Found in review: a graceful drain stops the runs still going when its grace is over, and that
// stop aborts their signal. Every write of the run was then refused, although the run still holds
// its lease until it hands the task back: an agent that had returned (its completion waiting for a
// chunk's write) or that finished on the stop (complete() within the stop grace) lost its ending,
// and the task was handed back and run again. A shutdown now leaves the run its writes (the lease
// CAS and the hand-back's release fence them); a cancel or a lost lease still refuses them.
let p: Platform;
beforeAll(async () => {
  p = await startPlatform({ leaseMs: 5000 });
});
afterAll(() => p.close());

const card = {
  name: 'x',
  description: 'x',
  version: '1',
  skills: [],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
};

function runnerFor(agent: Agent, handedBack: Dispatch[], store = p.store): TaskRunner {
  return new TaskRunner({
    store,
    writer: quietWriter(store),
    dispatcher: { enqueue: async (d) => void handedBack.push(d) },
    hub: { watch: () => () => undefined },
    agents: { getAgent: (tenantId, agentId) => p.admin.getAgent(tenantId, agentId) },
    findAgent: () => agent,
    config: p.config,
    workerId: 'w',
    log: silentLogger(),
  });
}

/** An agent that waits for its stop, then does `then` with its context; `started` once it runs. */
function stoppedAgent(then: (ctx: AgentContext) => Promise<void>) {
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const agent: Agent = {
    executor: 'echo',
    card,
    async execute(ctx) {
      started();
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
      await then(ctx);
    },
  };
  return { agent, running };
}

describe('a run stopped by a shutdown', () => {
  it('whose agent returned before the stop is completed, not handed back', async () => {
    const taskId = await queuedEchoTask(p);
    let returned!: () => void;
    const hasReturned = new Promise<void>((resolve) => (returned = resolve));
    const agent: Agent = {
      executor: 'echo',
      card,
      async execute(ctx) {
        await ctx.emitArtifact({ artifactId: 'a', parts: [{ text: 'all the work' }], lastChunk: true });
        await new Promise((resolve) => setTimeout(resolve, 20)); // the chunk's write starts
        returned();
      },
    };
    // The chunk's write takes a round trip that the stop lands in (slowed, so the test is sure to).
    const store = storeWith(p.store, 'changeTask', (changeTask) => async (input) => {
      if (input.artifactChunk) await new Promise((resolve) => setTimeout(resolve, 300));
      return changeTask(input);
    });
    const handedBack: Dispatch[] = [];
    const runner = runnerFor(agent, handedBack, store);
    const run = runner.run({ tenantId: 'acme', taskId });
    await hasReturned;
    // Past the return: the runner's completion is under way, waiting for the chunk's write.
    await new Promise((resolve) => setImmediate(resolve));
    await runner.stopAll('shutdown');
    await run;
    const record = await p.store.getTaskRecord('acme', taskId);
    expect(record).toMatchObject({ state: TaskState.COMPLETED, leaseOwner: null });
    expect(handedBack).toEqual([]);
  });

  it('whose agent finishes on the stop, within its grace, keeps that ending', async () => {
    const taskId = await queuedEchoTask(p);
    const { agent, running } = stoppedAgent((ctx) => ctx.complete('finished as the worker stopped'));
    const handedBack: Dispatch[] = [];
    const runner = runnerFor(agent, handedBack);
    const run = runner.run({ tenantId: 'acme', taskId });
    await running;
    await runner.stopAll('shutdown');
    await run;
    const record = (await p.store.getTaskRecord('acme', taskId))!;
    expect(record).toMatchObject({ state: TaskState.COMPLETED, leaseOwner: null });
    expect(record.statusMessage?.parts).toEqual([{ text: 'finished as the worker stopped' }]);
    expect(handedBack).toEqual([]);
  });

  it('whose agent stops on it (returns quietly, as agents are told to) is handed back, not completed', async () => {
    const taskId = await queuedEchoTask(p);
    const { agent, running } = stoppedAgent(async () => undefined);
    const handedBack: Dispatch[] = [];
    const runner = runnerFor(agent, handedBack);
    const run = runner.run({ tenantId: 'acme', taskId });
    await running;
    const before = (await p.store.getTaskRecord('acme', taskId))!;
    await runner.stopAll('shutdown');
    await run;
    const record = (await p.store.getTaskRecord('acme', taskId))!;
    expect(record).toMatchObject({
      state: TaskState.WORKING,
      leaseOwner: null,
      attempts: before.attempts - 1,
    });
    expect(handedBack).toMatchObject([{ taskId }]);
  });
});

describe.each(['canceled', 'lease-lost'] as const)('a run stopped as %s', (reason) => {
  it("has its agent's writes refused", async () => {
    const taskId = await queuedEchoTask(p);
    let refusal: unknown;
    const { agent, running } = stoppedAgent(async (ctx) => {
      await ctx.complete('too late').catch((err: unknown) => (refusal = err));
    });
    const runner = runnerFor(agent, []);
    const run = runner.run({ tenantId: 'acme', taskId });
    await running;
    await runner.stopAll(reason);
    await run;
    expect(refusal).toBeInstanceOf(RunEndedError);
    expect((await p.store.getTaskRecord('acme', taskId))?.state).toBe(TaskState.WORKING);
  });
});
