import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '@switchyard/agents';
import { TaskState } from '@switchyard/protocol';
import { alice, bareRunner, startPlatform, userMessage, type Platform } from './platform-fixture.ts';

// Found by the fault-injection suite (chaos/): during a Redis outage the hint published after a
// claim stalled for longer than the lease, the lease lapsed before the agent even started, and
// the task ran twice. The lease is renewed from the claim on.
const LEASE_MS = 900;
let p: Platform;
beforeAll(async () => {
  p = await startPlatform({ leaseMs: LEASE_MS });
});
afterAll(() => p.close());

describe('a run whose hint publish stalls (Redis down)', () => {
  it('keeps its lease while it waits, so no other worker can claim the task', async () => {
    const sent = await p.service.send(alice, await p.agent('echo'), {
      message: userMessage('hello'),
      configuration: { returnImmediately: true },
    });
    if (!('task' in sent)) throw new Error('expected a task');
    const taskId = sent.task.id;
    let runs = 0;
    const counting: Agent = {
      executor: 'echo',
      card: (await p.agent('echo')).card as unknown as Agent['card'],
      async execute(ctx) {
        runs++;
        await ctx.complete();
      },
    };
    let stalled = true;
    const runner = bareRunner(p, {
      agent: counting,
      workerId: 'stalled-worker',
      // The first publish (the claim's) hangs for three leases, as on a Redis that is restarting.
      hints: {
        publish: () => (stalled ? new Promise((r) => setTimeout(r, 3 * LEASE_MS)) : Promise.resolve()),
        publishPushDue: async () => undefined,
      },
    });
    const run = runner.run({ tenantId: 'acme', taskId });
    await new Promise((r) => setTimeout(r, 2 * LEASE_MS));
    const rival = await p.store.claimTask({ tenantId: 'acme', taskId, workerId: 'rival', leaseMs: LEASE_MS });
    expect(rival).toBeNull();
    stalled = false;
    await run;
    expect(runs).toBe(1);
    expect((await p.store.getTaskRecord('acme', taskId))?.state).toBe(TaskState.COMPLETED);
  });
});
