import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentFailure, type Agent } from '@switchyard/agents';
import { TaskState } from '@switchyard/protocol';
import type { Dispatch } from '@switchyard/queue';
import { isConflict } from '@switchyard/store';
import { silentLogger } from '@switchyard/telemetry';
import { FAILURE_CODE_METADATA_KEY, TaskRunner, type EngineConfig } from '../src/index.ts';
import { makeVisible } from '../src/service/make-visible.ts';
import {
  alice,
  quietWriter,
  startPlatform,
  storeWith,
  testCard,
  userMessage,
  type Platform,
} from './platform-fixture.ts';

// Found in review: the quick-reply upgrade (the request made a visible Task when the agent has not
// answered within its window) bumps the task's version, and the run went on with the record from
// before it. An agent error after that was settled with the stale version: the retry (or, on the
// last attempt, the failure) conflicted and was given up, the task sat leased until the reaper,
// and on the last attempt the reaper failed it as "its workers stopped responding", losing the
// agent's safe message and failure code. A gateway making the task visible mid-run, or a chunk
// write that committed with its reply lost, leave the run's version behind the same way.
let p: Platform;
beforeAll(async () => {
  // A lease far longer than any of these runs: nothing here is left to the reaper.
  p = await startPlatform({ leaseMs: 60_000 });
});
afterAll(() => p.close());

const card = testCard;
const failure = () => new AgentFailure('the upstream answered nonsense', { code: 'InvalidAgentResponse' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Outlives its quick-reply window (so the runner upgrades the request to a Task), then throws. */
const lateThrower: Agent = {
  executor: 'late-thrower',
  quickReplyWindowMs: 50,
  card: card('late-thrower'),
  async execute() {
    await sleep(300);
    throw failure();
  },
};

/** A gateway makes its request visible while it runs (no upgrade of the runner's), then it throws. */
const madeVisibleThrower: Agent = {
  executor: 'made-visible-thrower',
  quickReplyWindowMs: 60_000,
  card: card('made-visible-thrower'),
  async execute(ctx) {
    const record = (await p.store.getTaskRecord('acme', ctx.task.id))!;
    await makeVisible({ store: p.store, writer: quietWriter(p.store) }, record);
    throw failure();
  },
};

/** Canceled while it runs (the run hears nothing: no hub), then it throws. */
const canceledThrower: Agent = {
  executor: 'canceled-thrower',
  card: card('canceled-thrower'),
  async execute(ctx) {
    await p.service.cancelTask(alice, 'canceled-thrower', ctx.task.id);
    throw failure();
  },
};

const agents = [lateThrower, madeVisibleThrower, canceledThrower];
beforeAll(async () => {
  for (const agent of agents) await p.registerAgent(agent);
});

/** A request as a send without returnImmediately stores it: 'pending' until upgraded or answered. */
async function storedRequest(agentId: string, visibility: 'pending' | 'task' = 'pending'): Promise<string> {
  const id = crypto.randomUUID();
  const contextId = crypto.randomUUID();
  await p.store.createTask({
    tenantId: 'acme',
    id,
    contextId,
    agentId,
    owner: alice.principal,
    visibility,
    message: { ...userMessage('go'), contextId, taskId: id },
    event: {
      task: { id, contextId, status: { state: TaskState.SUBMITTED, timestamp: new Date().toISOString() } },
    },
  });
  return id;
}

function runner(config: Partial<EngineConfig>, dispatched: Dispatch[], store = p.store): TaskRunner {
  return new TaskRunner({
    store,
    writer: quietWriter(store),
    dispatcher: { enqueue: async (d) => void dispatched.push(d) },
    hub: { watch: () => () => undefined },
    agents: { getAgent: (tenantId, agentId) => p.admin.getAgent(tenantId, agentId) },
    findAgent: (executor) => agents.find((a) => a.executor === executor),
    config: { ...p.config, ...config },
    workerId: 'w',
    log: silentLogger(),
  });
}

describe('the runner settles a run whose record another write made stale', () => {
  it('an agent error after the quick-reply upgrade schedules the retry at once', async () => {
    const taskId = await storedRequest('late-thrower');
    const dispatched: Dispatch[] = [];
    await runner({ maxAttempts: 2 }, dispatched).run({ tenantId: 'acme', taskId });
    const record = (await p.store.getTaskRecord('acme', taskId))!;
    expect(record).toMatchObject({
      state: TaskState.WORKING,
      visibility: 'task',
      leaseOwner: null,
      lastError: 'the upstream answered nonsense',
    });
    expect(dispatched).toMatchObject([{ taskId, attempts: 1 }]);
  });

  it("on the last attempt, it fails the task with the agent's safe message and failure code", async () => {
    const taskId = await storedRequest('late-thrower');
    await runner({ maxAttempts: 1 }, []).run({ tenantId: 'acme', taskId });
    const record = (await p.store.getTaskRecord('acme', taskId))!;
    expect(record).toMatchObject({ state: TaskState.FAILED, visibility: 'task', leaseOwner: null });
    expect(record.statusMessage?.parts).toEqual([{ text: 'the upstream answered nonsense' }]);
    expect(record.statusMessage?.metadata).toEqual({ [FAILURE_CODE_METADATA_KEY]: 'InvalidAgentResponse' });
  });

  it('a gateway making the request visible mid-run does not stop the failure being written', async () => {
    const taskId = await storedRequest('made-visible-thrower');
    await runner({ maxAttempts: 1 }, []).run({ tenantId: 'acme', taskId });
    const record = (await p.store.getTaskRecord('acme', taskId))!;
    expect(record).toMatchObject({ state: TaskState.FAILED, visibility: 'task', leaseOwner: null });
    expect(record.statusMessage?.parts).toEqual([{ text: 'the upstream answered nonsense' }]);
  });

  it('a task canceled meanwhile stays CANCELED: the settle write never goes over a terminal state', async () => {
    const taskId = await storedRequest('canceled-thrower', 'task'); // CancelTask sees only tasks
    const dispatched: Dispatch[] = [];
    await runner({ maxAttempts: 2 }, dispatched).run({ tenantId: 'acme', taskId });
    expect((await p.store.getTaskRecord('acme', taskId))?.state).toBe(TaskState.CANCELED);
    expect(dispatched).toEqual([]);
  });

  it("the run's own writes after the upgrade start from the upgraded record", async () => {
    // Conflicts the run's writes meet: none, when the upgrade's record was handed to the run.
    const conflicts: string[] = [];
    let upgraded!: () => void;
    const upgradedNow = new Promise<void>((resolve) => (upgraded = resolve));
    const store = storeWith(p.store, 'changeTask', (changeTask) => async (input) => {
      try {
        const record = await changeTask(input);
        if (input.patch.visibility === 'task' && input.patch.state === undefined && !input.artifactChunk)
          upgraded();
        return record;
      } catch (err) {
        if (isConflict(err)) conflicts.push(input.patch.state ?? 'no state');
        throw err;
      }
    });
    const reporter: Agent = {
      executor: 'late-reporter',
      quickReplyWindowMs: 50,
      card: card('late-reporter'),
      async execute(ctx) {
        await upgradedNow;
        await sleep(50); // the upgrade's answer reaches the runner
        await ctx.setStatus('still on it');
        await ctx.complete('done');
      },
    };
    agents.push(reporter);
    await p.registerAgent(reporter);
    const taskId = await storedRequest('late-reporter');
    await runner({}, [], store).run({ tenantId: 'acme', taskId });
    expect((await p.store.getTaskRecord('acme', taskId))?.state).toBe(TaskState.COMPLETED);
    expect(conflicts).toEqual([]);
  });
});
