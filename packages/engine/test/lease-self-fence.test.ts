import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '@switchyard/agents';
import { alice, bareRunner, queuedEchoTask, startPlatform, type Platform } from './platform-fixture.ts';

// Found in review: the run stopped itself only when a renewal FAILED. A renewal that hangs (the
// task row locked, Postgres stalled, the route to it gone) fails only at the pool's connect or
// statement timeout, long after the lease lapsed and another worker took the task over, so two
// agents ran the task at once. The run now stops before the last lease it knows of can lapse.
const LEASE_MS = 900;
let p: Platform;
beforeAll(async () => {
  p = await startPlatform({ leaseMs: LEASE_MS });
});
afterAll(() => p.close());

describe('a run whose lease renewals hang', () => {
  it('stops its agent while the lease it last renewed still holds in Postgres', async () => {
    const taskId = await queuedEchoTask(p);
    const locker = await p.db.pool.connect();
    let leaseHeldAtStop: boolean | undefined;
    const started = Promise.withResolvers<void>();
    const waitsForStop: Agent = {
      executor: 'echo',
      card: (await p.agent('echo')).card as unknown as Agent['card'],
      async execute(ctx) {
        started.resolve();
        await new Promise<void>((resolve) => {
          ctx.signal.addEventListener('abort', () => resolve(), { once: true });
        });
        // A plain read is not blocked by the row lock: what does Postgres's own clock say?
        const { rows } = await p.db.pool.query<{ held: boolean }>(
          `SELECT lease_expires_at > now() AS held FROM tasks WHERE tenant_id = $1 AND id = $2`,
          [alice.tenantId, taskId],
        );
        leaseHeldAtStop = rows[0]?.held;
      },
    };
    const run = bareRunner(p, { agent: waitsForStop, workerId: 'w1' }).run({ tenantId: 'acme', taskId });
    await started.promise;
    try {
      // Every renewal from now on waits for this lock: it neither succeeds nor fails.
      await locker.query('BEGIN');
      await locker.query(`SELECT 1 FROM tasks WHERE tenant_id = $1 AND id = $2 FOR UPDATE`, ['acme', taskId]);
      await new Promise((r) => setTimeout(r, 2 * LEASE_MS));
      expect(leaseHeldAtStop).toBe(true);
    } finally {
      await locker.query('ROLLBACK');
      locker.release();
    }
    await run;
  });
});
