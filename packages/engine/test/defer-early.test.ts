import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { findBundledAgent } from '@switchyard/agents';
import { TaskState } from '@switchyard/protocol';
import type { Dispatch } from '@switchyard/queue';
import { alice, bareRunner, startPlatform, userMessage, type Platform } from './platform-fixture.ts';

// Found in review: a retry's dispatch that arrived before its run_after by Postgres's clock was
// dropped when this process's clock ran ahead (it took the task for due), leaving the task to the
// reaper. A refused claim of a live, unleased task is always scheduled again.
let p: Platform;
beforeAll(async () => {
  p = await startPlatform();
});
afterAll(() => p.close());

describe('a dispatch that arrives before its task is due', () => {
  it('is scheduled again even when this process\u2019s clock says the task is due', async () => {
    const sent = await p.service.send(alice, await p.agent('echo'), {
      message: userMessage('later'),
      configuration: { returnImmediately: true },
    });
    if (!('task' in sent)) throw new Error('expected a task');
    const claimed = (await p.store.claimTask({
      tenantId: 'acme',
      taskId: sent.task.id,
      workerId: 'w',
      leaseMs: 60_000,
    }))!;
    // The run failed and scheduled its retry 5 s from now (Postgres's clock).
    await p.db.pool.query(
      "UPDATE tasks SET lease_owner = NULL, lease_expires_at = NULL, run_after = now() + interval '5 seconds' WHERE tenant_id = 'acme' AND id = $1",
      [claimed.task.id],
    );
    const enqueued: Dispatch[] = [];
    const runner = bareRunner(p, {
      agent: findBundledAgent,
      workerId: 'fast-clock',
      dispatcher: { enqueue: async (d: Dispatch) => void enqueued.push(d) },
    });
    // This process's clock runs a minute ahead of Postgres's.
    const skewed = Date.now() + 60_000;
    const now = vi.spyOn(Date, 'now').mockReturnValue(skewed);
    try {
      await runner.run({ tenantId: 'acme', taskId: claimed.task.id });
    } finally {
      now.mockRestore();
    }
    expect(enqueued).toHaveLength(1);
    expect(enqueued[0]!.runAfter!.getTime()).toBeGreaterThanOrEqual(skewed + 1000);
    expect((await p.store.getTaskRecord('acme', claimed.task.id))?.state).toBe(TaskState.WORKING);
  });
});
