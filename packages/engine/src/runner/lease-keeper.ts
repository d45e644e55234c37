import { isTerminal } from '@switchyard/protocol';
import type { LeaseInput, TaskStore } from '@switchyard/store';

/**
 * Renews a run's lease every third of its length. When renewal says the lease is gone (another
 * worker took over, or the task was canceled), or when no renewal has succeeded for a whole lease
 * period (Postgres unreachable: we can no longer know we hold it), the run is stopped.
 */
export function keepLease(
  store: TaskStore,
  lease: LeaseInput,
  onLost: (reason: 'canceled' | 'lease-lost') => void,
  onError: (err: unknown) => void,
): () => void {
  let lastRenewed = Date.now();
  let stopped = false;
  const timer = setInterval(
    () => {
      store
        .renewLease(lease)
        .then(({ ok, state }) => {
          if (stopped) return;
          if (ok) lastRenewed = Date.now();
          else onLost(state && isTerminal(state) ? 'canceled' : 'lease-lost');
        })
        .catch((err: unknown) => {
          onError(err);
          if (!stopped && Date.now() - lastRenewed > lease.leaseMs) onLost('lease-lost');
        });
    },
    Math.max(50, Math.floor(lease.leaseMs / 3)),
  );
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

/** The lease a claimed task's run writes under: the claim's own token (claim-task.ts). */
export function leaseOwnerOf(record: { id: string; leaseOwner: string | null }): string {
  if (!record.leaseOwner) throw new Error(`task ${record.id} has no lease owner`);
  return record.leaseOwner;
}
