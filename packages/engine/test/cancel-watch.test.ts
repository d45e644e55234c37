import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBundledAgent, type Agent } from '@switchyard/agents';
import { TaskState } from '@switchyard/protocol';
import { waitFor } from '@switchyard/testing';
import { alice, startPlatform, userMessage, type Platform } from './platform-fixture.ts';

// A run listens for cancels only after its first moments (task-runner's watchForCancel): these
// prove a cancel is heard both before and after that point by an agent that never writes.
let p: Platform;
const started = new Map<string, () => void>();
const aborted = new Set<string>();
const quiet: Agent = {
  executor: 'quiet',
  card: {
    name: 'quiet',
    description: 'waits for its signal without writing anything',
    version: '1.0.0',
    skills: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
  },
  async execute(ctx) {
    started.get(ctx.task.id)?.();
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
    aborted.add(ctx.task.id);
  },
};

beforeAll(async () => {
  p = await startPlatform();
  await p.registerAgent(quiet);
  p.startWorker({ findAgent: (e) => (e === 'quiet' ? quiet : findBundledAgent(e)) });
});
afterAll(() => p.close());

async function runAndCancel(delayBeforeCancelMs: number) {
  const agent = (await p.admin.getAgent('acme', 'quiet'))!;
  const r = await p.service.send(alice, agent, {
    message: userMessage('wait'),
    configuration: { returnImmediately: true },
  });
  if (!('task' in r)) throw new Error('expected a task');
  const id = r.task.id;
  await new Promise<void>((resolve) => started.set(id, resolve));
  if (delayBeforeCancelMs) await new Promise((resolve) => setTimeout(resolve, delayBeforeCancelMs));
  const canceled = await p.service.cancelTask(alice, 'quiet', id);
  expect(canceled.status.state).toBe(TaskState.CANCELED);
  await waitFor(() => aborted.has(id), { what: 'the agent to see its abort signal' });
}

describe('a running agent hears a cancel', () => {
  it('sent at once, before the run listens for cancels (it reads the task when it starts listening)', async () => {
    await runAndCancel(0);
  });

  it('sent after the run listens (the cancel hint)', async () => {
    await runAndCancel(300);
  });
});
