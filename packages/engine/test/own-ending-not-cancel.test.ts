import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '@switchyard/agents';
import { TaskState } from '@switchyard/protocol';
import { createLogger } from '@switchyard/telemetry';
import { TaskRunner } from '../src/index.ts';
import { queuedEchoTask, quietWriter, startPlatform, storeWith, type Platform } from './platform-fixture.ts';

// Found in review: a lease renewal that came after the run's own COMPLETED write saw a terminal
// task and stopped the run as 'canceled': the worker logged "agent run stopped (canceled)" for a
// task it had just completed, and released a lease that was no longer there.
let p: Platform;
beforeAll(async () => {
  p = await startPlatform({ leaseMs: 600 });
});
afterAll(() => p.close());

describe("a run's own ending", () => {
  it('is not taken for a cancel by a renewal that follows it', async () => {
    const taskId = await queuedEchoTask(p);
    const lines: Array<{ msg: string; reason?: string }> = [];
    const log = createLogger({
      name: 'worker',
      level: 'info',
      destination: { write: (line: string) => lines.push(JSON.parse(line) as { msg: string }) },
    });
    let releases = 0;
    const store = storeWith(p.store, 'releaseLease', (release) => (input) => {
      releases += 1;
      return release(input);
    });
    let renewedAfterEnding = false;
    const lingers: Agent = {
      executor: 'echo',
      card: (await p.agent('echo')).card as unknown as Agent['card'],
      async execute(ctx) {
        await ctx.complete({ parts: [{ text: 'done' }] });
        // Still returning when the next renewal (every lease/3) finds the task COMPLETED.
        await new Promise((resolve) => setTimeout(resolve, 500));
        renewedAfterEnding = ctx.signal.aborted;
      },
    };
    await new TaskRunner({
      store,
      writer: quietWriter(store),
      dispatcher: { enqueue: async () => undefined },
      hub: { watch: () => () => undefined },
      agents: { getAgent: (tenantId, agentId) => p.admin.getAgent(tenantId, agentId) },
      findAgent: () => lingers,
      config: p.config,
      workerId: 'w',
      log,
    }).run({ tenantId: 'acme', taskId });
    expect((await p.store.getTaskRecord('acme', taskId))?.state).toBe(TaskState.COMPLETED);
    // The race did happen: the renewal saw the ending (and stopped the agent's signal).
    expect(renewedAfterEnding).toBe(true);
    expect(lines.filter((l) => l.msg === 'agent run stopped')).toEqual([]);
    expect(releases).toBe(0);
  });
});
