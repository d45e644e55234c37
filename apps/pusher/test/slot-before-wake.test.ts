import { waitFor } from '@switchyard/testing';
import { describe, expect, it } from 'vitest';
import { appendEvents, createTask, deliveriesOf, newTenant, usePusherSuite } from './pusher-fixtures.ts';

// A finished send wakes the claim loop for the next event of its config. The wake must come after
// the send's slot is free: a claim that still counts it finds no room, claims nothing and sleeps a
// whole poll interval, so with one slot every delivery waited for the poll.
const suite = usePusherSuite();
const { scope } = suite;

/** Longer than the test may take: a claim that misses the wake stalls it, and the wait times out. */
const POLL_MS = 60_000;

describe('a finished send frees its slot before it wakes the claim loop', () => {
  it.each([
    ['one slot (PUSHER_CONCURRENCY=1)', { concurrency: 1, maxInFlightPerTenant: 1, maxInFlightPerHost: 1 }],
    [
      'one slot of the tenant (PUSHER_MAX_IN_FLIGHT_PER_TENANT=1)',
      { concurrency: 4, maxInFlightPerTenant: 1, maxInFlightPerHost: 4 },
    ],
  ])('%s: the events of one config go out back to back, without a poll', async (_, caps) => {
    const { tenantId } = await newTenant(suite.env);
    const task = await createTask(suite.env, tenantId, { id: 'hook', url: `${suite.receiver.origin}/a` });
    await appendEvents(suite.env, tenantId, task, 5); // seq 1..6, each claimable after the one before
    // Started after the events: nothing on the Redis channel wakes it, only its own finished sends.
    await scope.pusher({ ...caps, pollMs: POLL_MS }).start();
    await waitFor(
      async () =>
        (await deliveriesOf(suite.env, tenantId, task.taskId)).every((r) => r.status === 'delivered'),
      { what: 'all six delivered, each claimed on the wake of the one before' },
    );
    expect(suite.receiver.requests.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6]);
  });
});
