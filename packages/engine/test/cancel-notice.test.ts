import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentFailure, findBundledAgent, type Agent } from '@switchyard/agents';
import { TaskState } from '@switchyard/protocol';
import { waitFor } from '@switchyard/testing';
import { alice, startPlatform, userMessage, type Platform } from './platform-fixture.ts';

// A canceled task with no run to hear the cancel's hint still reaches its agent's onCanceled, so
// the agent can clean up (an upstream agent forwards the cancel): not only a task waiting for input.
let p: Platform;
const cleanedUp: string[] = [];
const card = {
  version: '1.0.0',
  skills: [],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
};
/** Starts work elsewhere, then fails as an unreachable upstream would: retried after a long backoff. */
const flaky: Agent = {
  executor: 'flaky',
  card: { ...card, name: 'flaky', description: 'fails, to be retried' },
  async execute(ctx) {
    await ctx.setStatus('started work elsewhere');
    throw new AgentFailure('The upstream agent is unavailable.');
  },
  async onCanceled({ taskId }) {
    cleanedUp.push(taskId);
  },
};
const findAgent = (executor: string) => (executor === 'flaky' ? flaky : findBundledAgent(executor));

beforeAll(async () => {
  p = await startPlatform({ retryBaseMs: 60_000, retryMaxMs: 60_000 });
  await p.registerAgent(flaky);
});
afterAll(() => p.close());

const sendFlaky = async () => {
  const sent = await p.service.send(alice, await p.agent('flaky'), {
    message: userMessage('do it'),
    configuration: { returnImmediately: true },
  });
  if (!('task' in sent)) throw new Error('expected a task');
  return sent.task.id;
};

describe('the cancel notice (TaskCanceledJob)', () => {
  it('reaches onCanceled for a task waiting out a retry backoff', async () => {
    const worker = p.startWorker({ findAgent });
    try {
      const taskId = await sendFlaky();
      await waitFor(async () => {
        const r = await p.store.getTaskRecord('acme', taskId);
        return r?.attempts === 1 && r.leaseOwner === null && r.state === TaskState.WORKING;
      });
      expect((await p.service.cancelTask(alice, 'flaky', taskId)).status.state).toBe(TaskState.CANCELED);
      await waitFor(() => cleanedUp.includes(taskId), { what: 'onCanceled' });
    } finally {
      await worker.stop();
    }
  });

  it('reaches onCanceled for a task canceled before any worker took it', async () => {
    const taskId = await sendFlaky();
    expect((await p.service.cancelTask(alice, 'flaky', taskId)).status.state).toBe(TaskState.CANCELED);
    const worker = p.startWorker({ findAgent });
    try {
      await waitFor(() => cleanedUp.includes(taskId), { what: 'onCanceled' });
      expect((await p.store.getTaskRecord('acme', taskId))?.attempts).toBe(0);
    } finally {
      await worker.stop();
    }
  });
});
