import { isInterrupted, isTerminal } from '@switchyard/protocol';
import type { TaskRecord, TaskStore } from '@switchyard/store';
import { WakeSignal, type TaskHint } from '@switchyard/events';
import type { HintSource } from '../ports.ts';

/** Settled: the answer is a Message, or the task is terminal or interrupted (digest §7.2 rule 12). */
export function isSettled(record: TaskRecord): boolean {
  return record.visibility === 'message' || isTerminal(record.state) || isInterrupted(record.state);
}

/**
 * Whether the change a hint announces can have settled the task: a Message reply is written with
 * COMPLETED (run-context.ts), so a hint of any other live state (a chunk, a status while WORKING)
 * cannot, and a blocking send need not read the record for it.
 */
export function mayHaveSettled(hint: TaskHint): boolean {
  return isTerminal(hint.state) || isInterrupted(hint.state);
}

/**
 * Waits until `until(record)` holds or the deadline passes, woken by hints with a fallback read of
 * the store every `pollIntervalMs`, so a lost hint only delays the answer. Returns the last record
 * read. `wakeOn` skips the read for hints that cannot make `until` hold (a resync always wakes):
 * an agent streaming a hundred chunks to a blocking caller cost a hundred reads without it.
 */
export async function waitForRecord(
  deps: { store: TaskStore; hub: HintSource; pollIntervalMs: number },
  tenantId: string,
  taskId: string,
  until: (record: TaskRecord) => boolean,
  {
    timeoutMs,
    signal,
    wakeOn,
  }: { timeoutMs: number; signal?: AbortSignal | undefined; wakeOn?: (hint: TaskHint) => boolean },
): Promise<TaskRecord | null> {
  const deadline = Date.now() + timeoutMs;
  // A hint that lands while the record is being read is kept by the signal: the read may predate
  // the change it announces, and the next wait then returns at once instead of sleeping a poll.
  const wake = new WakeSignal();
  const unwatch = deps.hub.watch(tenantId, taskId, (hint) => {
    if (hint === 'resync' || !wakeOn || wakeOn(hint)) wake.notify();
  });
  const onAbort = () => wake.notify();
  signal?.addEventListener('abort', onAbort);
  try {
    for (;;) {
      const record = await deps.store.getTaskRecord(tenantId, taskId);
      if (!record || until(record) || Date.now() >= deadline || signal?.aborted) return record;
      await wake.wait(Math.min(deps.pollIntervalMs, Math.max(0, deadline - Date.now())));
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    unwatch();
    wake.close();
  }
}
