import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '@switchyard/agents';
import { TaskState } from '@switchyard/protocol';
import { silentLogger } from '@switchyard/telemetry';
import { TaskRunner } from '../src/index.ts';
import {
  alice,
  quietWriter,
  startPlatform,
  storeWith,
  userMessage,
  type Platform,
} from './platform-fixture.ts';
import { refusals, sizer } from './sizer-agent.ts';

// Found in review: the chunk past the artifact limit fails the task, but when that FAILED write
// itself failed (Postgres away for it), the refusal was forgotten. The sizer agent catches the
// error and returns, the runner completed the task, and the last accepted chunk, held for that
// write, was lost with it.
let p: Platform;
beforeAll(async () => {
  p = await startPlatform({ taskMaxArtifactBytes: 2000 });
  await p.registerAgent(sizer);
});
afterAll(() => p.close());

/** The platform's store whose first write of `state` fails as a dropped connection would. */
function failOnce(state: TaskState) {
  const outcome = { failed: false, store: p.store };
  outcome.store = storeWith(p.store, 'changeTask', (real) => async (input) => {
    if (input.patch.state === state && !outcome.failed) {
      outcome.failed = true;
      throw new Error('Connection terminated unexpectedly');
    }
    return real(input);
  });
  return outcome;
}

function runnerWith(store: Platform['store'], agent: Agent): TaskRunner {
  return new TaskRunner({
    store,
    writer: quietWriter(store),
    dispatcher: { enqueue: async () => undefined },
    hub: { watch: () => () => undefined },
    agents: { getAgent: (tenantId, agentId) => p.admin.getAgent(tenantId, agentId) },
    findAgent: () => agent,
    config: p.config,
    workerId: 'w',
    log: silentLogger(),
  });
}

describe('a refusal at the artifact limit whose FAILED write fails', () => {
  it('still ends the task FAILED, with every chunk accepted before it', async () => {
    const sent = await p.service.send(alice, await p.agent('sizer'), {
      message: userMessage('emit 10'),
      configuration: { returnImmediately: true },
    });
    if (!('task' in sent)) throw new Error('expected a task');
    const failing = failOnce(TaskState.FAILED);
    refusals.length = 0;
    await runnerWith(failing.store, sizer).run({ tenantId: 'acme', taskId: sent.task.id });
    expect(failing.failed).toBe(true);
    // The agent saw the write's error, caught it and returned.
    expect(String(refusals[0])).toContain('Connection terminated');
    const task = await p.service.getTask(alice, 'sizer', sent.task.id);
    expect(task.status.state).toBe(TaskState.FAILED);
    expect(task.status.message?.parts).toEqual([
      { text: "The task's artifacts would pass their limit of 2000 bytes." },
    ]);
    expect(task.artifacts).toHaveLength(4);
  });
});

describe('a refusal whose FAILED write fails, and an agent that lets the error out', () => {
  it('is failed by the runner with the limit message, not retried', async () => {
    const thrower = {
      ...sizer,
      execute: async (ctx: Parameters<typeof sizer.execute>[0]) => {
        for (let k = 0; ; k++)
          await ctx.emitArtifact({ artifactId: `t-${k}`, parts: [{ text: 'y'.repeat(400) }] });
      },
    };
    const sent = await p.service.send(alice, await p.agent('sizer'), {
      message: userMessage('throw'),
      configuration: { returnImmediately: true },
    });
    if (!('task' in sent)) throw new Error('expected a task');
    const failing = failOnce(TaskState.FAILED);
    await runnerWith(failing.store, thrower).run({ tenantId: 'acme', taskId: sent.task.id });
    expect(failing.failed).toBe(true);
    const record = await p.store.getTaskRecord('acme', sent.task.id);
    expect(record?.state).toBe(TaskState.FAILED);
    expect(record?.attempts).toBe(1);
    expect(record?.statusMessage?.parts).toEqual([
      { text: "The task's artifacts would pass their limit of 2000 bytes." },
    ]);
  });
});

describe('an ending whose write fails', () => {
  it('keeps the chunk it carried for the next write, so the chunk is not lost', async () => {
    // The last chunk rides with the ending (one statement); the agent retries the ending.
    const finisher: Agent = {
      executor: 'sizer',
      card: { name: 'sizer' } as Agent['card'],
      async execute(ctx) {
        await ctx.emitArtifact({ artifactId: 'last', parts: [{ text: 'the result' }], lastChunk: true });
        await ctx.complete().catch(() => ctx.complete());
      },
    };
    const sent = await p.service.send(alice, await p.agent('sizer'), {
      message: userMessage('finish'),
      configuration: { returnImmediately: true },
    });
    if (!('task' in sent)) throw new Error('expected a task');
    const failing = failOnce(TaskState.COMPLETED);
    await runnerWith(failing.store, finisher).run({ tenantId: 'acme', taskId: sent.task.id });
    expect(failing.failed).toBe(true);
    const task = await p.service.getTask(alice, 'sizer', sent.task.id);
    expect(task.status.state).toBe(TaskState.COMPLETED);
    expect(task.artifacts?.map((a) => a.parts)).toEqual([[{ text: 'the result' }]]);
  });
});
