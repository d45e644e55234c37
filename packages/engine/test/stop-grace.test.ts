import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBundledAgent, type Agent } from '@switchyard/agents';
import { TaskState } from '@switchyard/protocol';
import { waitFor } from '@switchyard/testing';
import { alice, startPlatform, userMessage, type Platform } from './platform-fixture.ts';

// EngineConfig.stopGraceMs: an agent that ignores its aborted signal (a model or HTTP call made
// without ctx.signal) must not keep its worker slot, or a worker's shutdown, until the run timeout.
let p: Platform;
const deaf: Agent = {
  executor: 'deaf',
  card: {
    name: 'deaf',
    description: 'ignores its signal',
    version: '1.0.0',
    skills: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
  },
  async execute(ctx) {
    await ctx.setStatus('working');
    await new Promise(() => undefined);
  },
};
const findAgent = (executor: string) => (executor === 'deaf' ? deaf : findBundledAgent(executor));

beforeAll(async () => {
  p = await startPlatform({ stopGraceMs: 100 });
  await p.registerAgent(deaf);
});
afterAll(() => p.close());

async function startedDeafTask(): Promise<string> {
  const sent = await p.service.send(alice, await p.agent('deaf'), {
    message: userMessage('never listens'),
    configuration: { returnImmediately: true },
  });
  if (!('task' in sent)) throw new Error('expected a task');
  const taskId = sent.task.id;
  await waitFor(async () => (await p.store.getTaskRecord('acme', taskId))?.statusMessage != null);
  return taskId;
}

describe('a stopped run whose agent ignores its signal (stopGraceMs)', () => {
  it('canceled, it frees its worker slot for the next task', async () => {
    const worker = p.startWorker({ concurrency: 1, findAgent });
    try {
      const taskId = await startedDeafTask();
      const canceled = await p.service.cancelTask(alice, 'deaf', taskId);
      expect(canceled.status.state).toBe(TaskState.CANCELED);
      // The only slot: the echo task completes only once the deaf run was let go.
      const echo = await p.service.send(alice, await p.agent('echo'), { message: userMessage('next') });
      expect('task' in echo && echo.task.status.state).toBe(TaskState.COMPLETED);
      expect(worker.runner.activeCount).toBe(0);
      expect((await p.store.getTaskRecord('acme', taskId))?.state).toBe(TaskState.CANCELED);
    } finally {
      await worker.stop();
    }
  });

  it('at shutdown, the worker stops and hands the task back with its attempt refunded', async () => {
    const worker = p.startWorker({ concurrency: 1, findAgent });
    const taskId = await startedDeafTask();
    const before = (await p.store.getTaskRecord('acme', taskId))!;
    await worker.stop(); // resolves: the test's timeout would catch a worker that never stops
    const after = (await p.store.getTaskRecord('acme', taskId))!;
    expect(after.state).toBe(TaskState.WORKING);
    expect(after.leaseOwner).toBeNull();
    expect(after.attempts).toBe(before.attempts - 1);
  });
});
