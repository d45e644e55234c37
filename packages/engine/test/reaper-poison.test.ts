import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dispatch } from '@switchyard/queue';
import { silentLogger } from '@switchyard/telemetry';
import { Reaper } from '../src/index.ts';
import { queuedEchoTask, quietWriter, startPlatform, storeWith, type Platform } from './platform-fixture.ts';

// Found in review: one task the reaper could not handle (a statement failing for it alone, its
// enqueue refused) ended the whole sweep, and being first again next time, stalled recovery for
// every task after it, and the dispatch pass with it.
let p: Platform;
beforeAll(async () => {
  p = await startPlatform({ dispatchGraceMs: 0 });
});
afterAll(() => p.close());

async function leasedThenLapsed(): Promise<string> {
  const taskId = await queuedEchoTask(p, 'x');
  await p.store.claimTask({ tenantId: 'acme', taskId, workerId: 'gone', leaseMs: 60_000 });
  await p.db.pool.query(
    "UPDATE tasks SET lease_expires_at = now() - interval '1 second' WHERE tenant_id = 'acme' AND id = $1",
    [taskId],
  );
  return taskId;
}

describe('a reaper sweep', () => {
  it('goes past a task it cannot recover now, to the others and to the dispatch pass', async () => {
    const poisoned = await leasedThenLapsed();
    const others = [await leasedThenLapsed(), await leasedThenLapsed()];
    const unclaimed = await queuedEchoTask(p, 'nobody took me');
    const store = storeWith(
      p.store,
      'recoverLapsedLease',
      (recover) => (input) =>
        input.taskId === poisoned ? Promise.reject(new Error('poison')) : recover(input),
    );
    const dispatched: Dispatch[] = [];
    const reaper = new Reaper({
      store,
      writer: quietWriter(store),
      dispatcher: { enqueue: async (d) => void dispatched.push(d) },
      config: p.config,
      log: silentLogger(),
    });
    const stats = await reaper.sweep();
    expect(stats).toMatchObject({ requeued: 2, errors: 1 });
    const ids = new Set(dispatched.map((d) => d.taskId));
    for (const id of others) expect(ids.has(id)).toBe(true);
    expect(ids.has(unclaimed)).toBe(true);
    expect(ids.has(poisoned)).toBe(false);
    // Still lapsed: the next sweep tries it again.
    expect((await p.store.getTaskRecord('acme', poisoned))!.leaseOwner).not.toBeNull();
  });
});
