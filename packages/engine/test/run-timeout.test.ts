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

beforeAll(async () => {
  p = await startPlatform({ runTimeoutMs: 400, maxAttempts: 2, retryBaseMs: 20 });
  await p.registerAgent(hangs);
  p.startWorker({ concurrency: 1, findAgent: (e) => (e === 'hangs' ? hangs : findBundledAgent(e)) });
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
});
