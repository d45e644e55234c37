import { performance } from 'node:perf_hooks';
import { isTerminal } from '@switchyard/protocol';
import type { LeaseInput, TaskStore } from '@switchyard/store';

/**
 * The share of a lease after the last renewal known to hold at which a run that has heard nothing
 * since stops itself: early enough that its agent has stopped before the lease can lapse in
 * Postgres and another worker claim the task.
 */
export const SELF_FENCE_AT = 0.75;

/**
 * Renews a run's lease every third of its length, and stops the run (`onLost`) when renewal says
 * the lease is gone (another worker took over, or the task was canceled) or when no renewal has
 * been confirmed for SELF_FENCE_AT of a lease (Postgres unreachable or stalled: we can no longer
 * know we hold it).
 *
 * The fence is a timer of its own, measured from when the last confirmed renewal was SENT: Postgres
 * ran it no earlier, so the lease it set lasts at least `leaseMs` from then. Waiting for a renewal
 * to fail instead would wait for the pool's connect or statement timeout, tens of seconds (or never,
 * with both off) after another worker took the task over. A renewal still in flight is not sent
 * again: hung ones would only fill the pool. Monotonic time, so a wall-clock step cannot move it.
 */
export function keepLease(
  store: TaskStore,
  lease: LeaseInput,
  onLost: (reason: 'canceled' | 'lease-lost') => void,
  onError: (err: unknown) => void,
): () => void {
  let stopped = false;
  let renewing = false;
  const lose = (reason: 'canceled' | 'lease-lost') => {
    if (stopped) return;
    stop();
    onLost(reason);
  };
  // From the claim on: the caller keeps the lease from its claim, which ran before this call.
  let fence = armFence(performance.now());
  function armFence(sentAt: number): NodeJS.Timeout {
    const fenceAt = sentAt + lease.leaseMs * SELF_FENCE_AT;
    const timer = setTimeout(() => lose('lease-lost'), Math.max(0, fenceAt - performance.now()));
    timer.unref();
    return timer;
  }
  const renewals = setInterval(
    () => {
      if (renewing) return;
      renewing = true;
      const sentAt = performance.now();
      store
        .renewLease(lease)
        .then(({ ok, state }) => {
          if (stopped) return;
          if (!ok) return lose(state && isTerminal(state) ? 'canceled' : 'lease-lost');
          clearTimeout(fence);
          fence = armFence(sentAt);
        })
        .catch(onError)
        .finally(() => {
          renewing = false;
        });
    },
    Math.max(50, Math.floor(lease.leaseMs / 3)),
  );
  renewals.unref();
  function stop() {
    stopped = true;
    clearInterval(renewals);
    clearTimeout(fence);
  }
  return stop;
}

/** The lease a claimed task's run writes under: the claim's own token (claim-task.ts). */
export function leaseOwnerOf(record: { id: string; leaseOwner: string | null }): string {
  if (!record.leaseOwner) throw new Error(`task ${record.id} has no lease owner`);
  return record.leaseOwner;
}
