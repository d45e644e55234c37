import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBundledAgent, type Agent } from '@switchyard/agents';
import { TaskState } from '@switchyard/protocol';
import { FAILED_MESSAGE } from '../src/index.ts';
import { alice, startPlatform, userMessage, type Platform } from './platform-fixture.ts';

let p: Platform;
const hangs: Agent = {
  executor: 'hangs',
  card: {
    name: 'hangs',
    description: 'never returns and ignores its signal',
    version: '1.0.0',
    skills: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
  },
  async execute(ctx) {
    await ctx.setStatus('started');
    await new Promise(() => undefined);
  },
};

// Stops 300 ms after its signal aborts: slow to stop, but within the stop grace.
const events: string[] = [];
const slowToStop: Agent = {
  ...hangs,
  executor: 'slow-to-stop',
  async execute(ctx) {
    events.push(`run ${ctx.task.id}`);
    await new Promise<void>((resolve) =>
      ctx.signal.addEventListener('abort', () => resolve(), { once: true }),
    );
    await new Promise((r) => setTimeout(r, 300));
    events.push(`returned ${ctx.task.id}`);
  },
};

beforeAll(async () => {
  p = await startPlatform({ runTimeoutMs: 400, maxAttempts: 2, retryBaseMs: 20, stopGraceMs: 2000 });
  await p.registerAgent(hangs);
  await p.registerAgent(slowToStop);
  const own: Record<string, Agent> = { hangs, 'slow-to-stop': slowToStop };
  p.startWorker({ concurrency: 1, findAgent: (e) => own[e] ?? findBundledAgent(e) });
});
afterAll(() => p.close());

describe('run timeout (EngineConfig.runTimeoutMs)', () => {
  it('a run that never returns is abandoned, retried, then failed with a safe message, and frees its slot', async () => {
    const agent = (await p.admin.getAgent('acme', 'hangs'))!;
    const r = await p.service.send(alice, agent, { message: userMessage('wait forever') });
    if (!('task' in r)) throw new Error('expected a task');
    expect(r.task.status.state).toBe(TaskState.FAILED);
    expect(r.task.status.message?.parts[0]?.text).toBe(FAILED_MESSAGE);
    const record = await p.store.getTaskRecord('acme', r.task.id);
    expect(record?.attempts).toBe(2);
    expect(record?.lastError).toContain('timed out');
    // The only worker slot is free again.
    const echo = await p.service.send(alice, await p.agent('echo'), { message: userMessage('next') });
    expect('task' in echo && echo.task.status.state).toBe(TaskState.COMPLETED);
  });

  // Found in review: the retry was dispatched the moment the run timed out, while the agent was
  // still at work, so two workers could run the task at once with no lease lost.
  it('a timed-out run is retried only once its agent has returned (within the stop grace)', async () => {
    const agent = (await p.admin.getAgent('acme', 'slow-to-stop'))!;
    const r = await p.service.send(alice, agent, { message: userMessage('slow to stop') });
    if (!('task' in r)) throw new Error('expected a task');
    expect(r.task.status.state).toBe(TaskState.FAILED);
    const id = r.task.id;
    expect(events).toEqual([`run ${id}`, `returned ${id}`, `run ${id}`, `returned ${id}`]);
  });
});
