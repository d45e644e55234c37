import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TaskStore } from '@switchyard/store';
import { keepLease } from '../src/runner/lease-keeper.ts';

// The lease keeper's timing, on fake timers: renewals that are slow but succeed must not stop a
// healthy run, and silence must stop it before the lease it last renewed can lapse.
const LEASE_MS = 900;
afterEach(() => {
  vi.useRealTimers();
});

/** A store whose renewals answer ok after the given delays in turn (then `rest`; null: never). */
function renewingStore(delays: Array<number | null>, rest: number | null = 10) {
  const sent: number[] = [];
  const store = {
    renewLease: () => {
      sent.push(performance.now());
      const delay = delays.shift() ?? rest;
      return delay === null
        ? new Promise(() => undefined)
        : new Promise((resolve) => setTimeout(() => resolve({ ok: true }), delay));
    },
  } as unknown as TaskStore;
  return { store, sent };
}

const lease = { tenantId: 'acme', taskId: 't', leaseOwner: 'w/1', leaseMs: LEASE_MS };

describe('keepLease', () => {
  // Found in review: a renewal still in flight at the next tick skipped that tick, while the fence
  // still counted from the slow renewal's send: one slow renewal and one a little slow stopped a
  // run whose lease Postgres held all along.
  it('a slow renewal that succeeds is followed by the next at once, and the run goes on', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const lost = vi.fn();
    const { store, sent } = renewingStore([350, 120]);
    const stop = keepLease(store, lease, lost, () => undefined);
    await vi.advanceTimersByTimeAsync(5 * LEASE_MS);
    stop();
    expect(lost).not.toHaveBeenCalled();
    // Sent at 300, confirmed at 650: the next goes out then, not at the tick it missed.
    expect(sent[0]).toBe(300);
    expect(sent[1]).toBeGreaterThanOrEqual(650);
    expect(sent[1]).toBeLessThan(660);
  });

  it('stops the run 3/4 of a lease after the last renewal confirmed was sent, when none answers since', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const lost = vi.fn();
    const { store } = renewingStore([10], null);
    keepLease(store, lease, lost, () => undefined);
    // The renewal sent at 300 confirmed; the one sent at 600 never answers.
    await vi.advanceTimersByTimeAsync(300 + 0.75 * LEASE_MS - 1);
    expect(lost).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(lost).toHaveBeenCalledExactlyOnceWith('lease-lost');
  });

  it('counts from when the claim was sent, not from when it answered', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const lost = vi.fn();
    const claimSentAt = performance.now();
    await vi.advanceTimersByTimeAsync(500); // the claim waited on a row lock
    keepLease(renewingStore([], null).store, lease, lost, () => undefined, { from: claimSentAt });
    await vi.advanceTimersByTimeAsync(0.75 * LEASE_MS - 500);
    expect(lost).toHaveBeenCalledOnce();
  });
});
