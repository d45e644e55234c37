import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBundledAgent, RunEndedError, type Agent } from '@switchyard/agents';
import { TaskState } from '@switchyard/protocol';
import { waitFor } from '@switchyard/testing';
import { alice, startPlatform, userMessage, type Platform } from './platform-fixture.ts';

// ARCHITECTURE.md rule 3 for context memory too: a run that no longer holds its task (canceled,
// its lease lost, abandoned) writes nothing, or a stale run could overwrite what the run that
// took over wrote (an upstream agent's link, and so a second upstream send).
let p: Platform;
let afterCancel: unknown;
const stubborn: Agent = {
  executor: 'stubborn',
  card: {
    name: 'stubborn',
    description: 'writes memory after its cancel',
    version: '1.0.0',
    skills: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
  },
  async execute(ctx) {
    await ctx.memory.set('progress', 'started');
    await ctx.setStatus('working');
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
    afterCancel = await ctx.memory.set('progress', 'after the cancel').then(
      () => 'written',
      (err: unknown) => err,
    );
  },
};

beforeAll(async () => {
  p = await startPlatform();
  await p.registerAgent(stubborn);
  p.startWorker({ findAgent: (e) => (e === 'stubborn' ? stubborn : findBundledAgent(e)) });
});
afterAll(() => p.close());

describe('context memory written by a run', () => {
  it('is refused with RunEndedError once the run was canceled, and keeps what the run wrote before', async () => {
    const sent = await p.service.send(alice, await p.agent('stubborn'), {
      message: userMessage('go'),
      configuration: { returnImmediately: true },
    });
    if (!('task' in sent)) throw new Error('expected a task');
    const task = sent.task;
    await waitFor(async () => (await p.store.getTaskRecord('acme', task.id))?.statusMessage != null);
    expect((await p.service.cancelTask(alice, 'stubborn', task.id)).status.state).toBe(TaskState.CANCELED);
    await waitFor(() => afterCancel !== undefined, { what: 'the write after the cancel' });
    expect(afterCancel).toBeInstanceOf(RunEndedError);
    const scope = {
      tenantId: 'acme',
      agentId: 'stubborn',
      owner: alice.principal,
      contextId: task.contextId!,
    };
    expect(await p.store.getMemory(scope, 'progress')).toBe('started');
  });
});
