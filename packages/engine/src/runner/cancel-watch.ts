import { TaskState } from '@switchyard/protocol';
import type { TaskRecord } from '@switchyard/store';
import type { RunnerDeps } from './runner-deps.ts';

/**
 * Most runs end within milliseconds, and a subscription per run (SUBSCRIBE, UNSUBSCRIBE, and this
 * worker receiving its own hints) was a good part of a short task's Redis traffic. So a run starts
 * listening for a cancel only once it has lasted CANCEL_WATCH_AFTER_MS, and then reads the task
 * once to catch a cancel that came before. A cancel in the first moments is not lost either way:
 * the run's next write is refused by the CAS and ends it, and so is the lease renewal.
 *
 * Time spent in one of the run's own writes does not count (`writing`): that write's CAS already
 * catches a cancel. Under load a no-op run's final write could outlast the delay on its own: in a
 * saturation run on a slow VM, 7% of no-op runs subscribed, read their task and unsubscribed for
 * nothing.
 */
export const CANCEL_WATCH_AFTER_MS = 50;

export function watchForCancel(
  deps: RunnerDeps,
  task: TaskRecord,
  cancel: () => void,
  writing: () => boolean,
): () => void {
  let unwatch: (() => void) | undefined;
  let stopped = false;
  const ended = (state: TaskState) => state === TaskState.CANCELED || state === TaskState.FAILED;
  let timer: NodeJS.Timeout;
  const start = () => {
    if (writing()) {
      timer = setTimeout(start, CANCEL_WATCH_AFTER_MS);
      return;
    }
    unwatch = deps.hub.watch(task.tenantId, task.id, (hint) => {
      if (hint !== 'resync' && ended(hint.state)) cancel();
    });
    deps.store.getTaskRecord(task.tenantId, task.id).then(
      (current) => {
        if (!stopped && current && ended(current.state)) cancel();
      },
      () => undefined, // the subscription and the lease renewal still catch it
    );
  };
  timer = setTimeout(start, CANCEL_WATCH_AFTER_MS);
  return () => {
    stopped = true;
    clearTimeout(timer);
    unwatch?.();
  };
}
