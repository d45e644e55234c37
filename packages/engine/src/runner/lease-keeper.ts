import { isTerminal } from '@switchyard/protocol';
import type { LeaseInput, TaskStore } from '@switchyard/store';

/**
 * The share of a lease after the last renewal known to hold at which a run that has heard nothing
 * since stops itself. With the default lease (8 s) that leaves the 2 s stop grace for its agent to
 * stop before the lease can lapse in Postgres and another worker claim the task.
 */
export const SELF_FENCE_AT = 0.75;

export interface KeepLeaseOptions {
  /**
   * When the lease began, on performance.now()'s clock: taken before the claim was sent, since
   * Postgres started the lease no earlier. Default: now.
   */
  from?: number;
}

/**
 * Renews a run's lease a third of a lease after the previous renewal was sent (or at once when
 * that renewal took longer), one at a time, and tells `onLost` when renewal says the lease is gone
 * (another worker took over, or the task was canceled: renewing then stops) or when no renewal has
 * been confirmed for SELF_FENCE_AT of a lease (Postgres unreachable or stalled: we can no longer
 * know we hold it; renewing goes on, so a run still stopping keeps a lease Postgres comes back to).
 *
 * The fence is a timer of its own, measured from when the last confirmed renewal was SENT: Postgres
 * ran it no earlier, so the lease it set lasts at least `leaseMs` from then. Waiting for a renewal
 * to fail instead would wait for the pool's connect or statement timeout, tens of seconds (or never,
 * with both off) after another worker took the task over. Monotonic time, so a wall-clock step
 * cannot move it. Returns the function that stops renewing.
 */
export function keepLease(
  store: TaskStore,
  lease: LeaseInput,
  onLost: (reason: 'canceled' | 'lease-lost') => void,
  onError: (err: unknown) => void,
  { from = performance.now() }: KeepLeaseOptions = {},
): () => void {
  const periodMs = Math.max(50, Math.floor(lease.leaseMs / 3));
  let stopped = false;
  let told = false;
  const tell = (reason: 'canceled' | 'lease-lost') => {
    if (told) return;
    told = true;
    onLost(reason);
  };
  let fence = armFence(from);
  let next = later(renew, from + periodMs);

  function armFence(sentAt: number): NodeJS.Timeout {
    return later(() => tell('lease-lost'), sentAt + lease.leaseMs * SELF_FENCE_AT);
  }
  function renew() {
    const sentAt = performance.now();
    store
      .renewLease(lease)
      .then(({ ok, state }) => {
        if (stopped) return;
        if (!ok) {
          stop();
          return tell(state && isTerminal(state) ? 'canceled' : 'lease-lost');
        }
        clearTimeout(fence);
        fence = armFence(sentAt);
      })
      .catch(onError)
      .finally(() => {
        if (!stopped) next = later(renew, sentAt + periodMs);
      });
  }
  function stop() {
    stopped = true;
    clearTimeout(next);
    clearTimeout(fence);
  }
  return stop;
}

/** A timer that fires at `at` (performance.now()'s clock), at once if that has passed. */
function later(fn: () => void, at: number): NodeJS.Timeout {
  const timer = setTimeout(fn, Math.max(0, at - performance.now()));
  timer.unref();
  return timer;
}

/** The lease a claimed task's run writes under: the claim's own token (claim-task.ts). */
export function leaseOwnerOf(record: { id: string; leaseOwner: string | null }): string {
  if (!record.leaseOwner) throw new Error(`task ${record.id} has no lease owner`);
  return record.leaseOwner;
}
