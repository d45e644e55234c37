import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentFailure, findBundledAgent, type Agent } from '@switchyard/agents';
import { TaskState } from '@switchyard/protocol';
import { waitFor } from '@switchyard/testing';
import { alice, startPlatform, userMessage, type Platform } from './platform-fixture.ts';

// Found in review: a task the platform failed (its last attempt's error or timeout, or its lease
// lapsing on the last attempt) never told its agent, so an upstream agent's task ran on for
// nobody. The agent's onFailed hook now hears it, once, after the FAILED write.
let p: Platform;
const failed: string[] = [];
const card = {
  version: '1.0.0',
  skills: [],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
};
/** Starts work elsewhere, then fails as an unreachable upstream would, on every attempt. */
const doomed: Agent = {
  executor: 'doomed',
  card: { ...card, name: 'doomed', description: 'always fails' },
  async execute(ctx) {
    await ctx.setStatus('started work elsewhere');
    throw new AgentFailure('The upstream agent is unavailable.');
  },
  async onFailed({ taskId }) {
    failed.push(taskId);
  },
};
/** Fails the task itself: its own decision, no hook needed. */
const quitter: Agent = {
  executor: 'quitter',
  card: { ...card, name: 'quitter', description: 'fails by itself' },
  async execute(ctx) {
    await ctx.fail('no');
  },
  async onFailed({ taskId }) {
    failed.push(taskId);
  },
};
const findAgent = (executor: string) =>
  executor === 'doomed' ? doomed : executor === 'quitter' ? quitter : findBundledAgent(executor);

beforeAll(async () => {
  p = await startPlatform({ maxAttempts: 2, retryBaseMs: 10, retryMaxMs: 20 });
  await p.registerAgent(doomed);
  await p.registerAgent(quitter);
});
afterAll(() => p.close());

async function send(agentId: string): Promise<string> {
  const sent = await p.service.send(alice, await p.agent(agentId), {
    message: userMessage('do it'),
    configuration: { returnImmediately: true },
  });
  if (!('task' in sent)) throw new Error('expected a task');
  return sent.task.id;
}

const stateOf = async (taskId: string) => (await p.store.getTaskRecord('acme', taskId))?.state;

describe("the agent's onFailed hook", () => {
  it('is called once, after the last attempt failed the task, and not after an earlier one', async () => {
    const worker = p.startWorker({ findAgent });
    try {
      const taskId = await send('doomed');
      await waitFor(async () => (await stateOf(taskId)) === TaskState.FAILED, { what: 'the task to fail' });
      await waitFor(() => failed.includes(taskId), { what: 'onFailed' });
      expect((await p.store.getTaskRecord('acme', taskId))?.attempts).toBe(2);
      expect(failed.filter((id) => id === taskId)).toHaveLength(1);
    } finally {
      await worker.stop();
    }
  });

  it('is not called for a task the agent failed itself', async () => {
    const worker = p.startWorker({ findAgent });
    try {
      const taskId = await send('quitter');
      await waitFor(async () => (await stateOf(taskId)) === TaskState.FAILED, { what: 'the task to fail' });
      // The failure was the agent's own write: the hook has nothing to learn.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(failed).not.toContain(taskId);
    } finally {
      await worker.stop();
    }
  });

  async function lapsedOnLastAttempt(): Promise<string> {
    const taskId = await send('doomed');
    // A worker took its last attempt and died holding the lease.
    await p.store.claimTask({ tenantId: 'acme', taskId, workerId: 'gone', leaseMs: 60_000 });
    await p.db.pool.query(
      `UPDATE tasks SET attempts = $2, lease_expires_at = now() - interval '1 second'
        WHERE tenant_id = 'acme' AND id = $1`,
      [taskId, p.config.maxAttempts],
    );
    return taskId;
  }

  it('is called by the reaper for a task whose lease lapsed on its last attempt', async () => {
    const taskId = await lapsedOnLastAttempt();
    // No dispatch left in Redis (lost with it, say): only the reaper's sweep finds the task.
    const redis = p.redis.connect();
    const queued = await redis.keys(`*${p.redis.prefix}*`);
    if (queued.length > 0) await redis.del(...queued);
    await redis.quit();
    const worker = p.startWorker({ findAgent });
    try {
      await waitFor(async () => (await stateOf(taskId)) === TaskState.FAILED, {
        what: 'the reaper to fail it',
      });
      await waitFor(() => failed.includes(taskId), { what: 'onFailed from the reaper' });
      expect(failed.filter((id) => id === taskId)).toHaveLength(1);
    } finally {
      await worker.stop();
    }
  });
});
