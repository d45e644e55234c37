import { isInterrupted, isTerminal } from '@switchyard/protocol';
import type { TaskRecord, TaskStore } from '@switchyard/store';
import type { HintSource } from '../ports.ts';

/** Settled: the answer is a Message, or the task is terminal or interrupted (digest §7.2 rule 12). */
export function isSettled(record: TaskRecord): boolean {
  return record.visibility === 'message' || isTerminal(record.state) || isInterrupted(record.state);
}

/**
 * Waits until `until(record)` holds or the deadline passes, woken by hints with a fallback read of
 * the store every `pollIntervalMs`, so a lost hint only delays the answer. Returns the last record read.
 */
export async function waitForRecord(
  deps: { store: TaskStore; hub: HintSource; pollIntervalMs: number },
  tenantId: string,
  taskId: string,
  until: (record: TaskRecord) => boolean,
  { timeoutMs, signal }: { timeoutMs: number; signal?: AbortSignal | undefined },
): Promise<TaskRecord | null> {
  const deadline = Date.now() + timeoutMs;
  let wake: (() => void) | null = null;
  // A hint that arrives while the record is being read must not be lost: the read may predate
  // the change it announces, and without this flag the wait would sleep until the next poll.
  let hinted = false;
  const unwatch = deps.hub.watch(tenantId, taskId, () => {
    hinted = true;
    wake?.();
  });
  const onAbort = () => wake?.();
  signal?.addEventListener('abort', onAbort);
  try {
    for (;;) {
      hinted = false;
      const record = await deps.store.getTaskRecord(tenantId, taskId);
      if (!record || until(record) || Date.now() >= deadline || signal?.aborted) return record;
      if (hinted) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(deps.pollIntervalMs, Math.max(0, deadline - Date.now())));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    unwatch();
  }
}
