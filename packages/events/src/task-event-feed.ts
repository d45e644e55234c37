import { TaskEventFollower, type FeedEvent, type FollowOptions } from './task-event-follower.ts';

export interface TaskEventFeedOptions extends FollowOptions {
  signal?: AbortSignal;
}

/**
 * The task's events after `afterSeq` as an async generator, until the signal aborts or the
 * consumer stops: a TaskEventFollower read one event at a time. It is pull-based: the follower is
 * paused after each event and resumed when the consumer asks for the next, so a slow consumer never
 * makes it read or buffer more than one event ahead. It ends when the log does not continue
 * (a finished task's events were pruned, FeedSink.gap), rather than waiting for events that
 * will never come.
 */
export async function* taskEventFeed(options: TaskEventFeedOptions): AsyncGenerator<FeedEvent> {
  const { signal } = options;
  let held: FeedEvent | undefined;
  let failure: { err: unknown } | undefined;
  let wake: (() => void) | undefined;
  let pruned = false;
  const follower = new TaskEventFollower(options, {
    event(event) {
      held = event;
      wake?.();
      return false;
    },
    failed(err) {
      failure = { err };
      wake?.();
    },
    gap() {
      pruned = true;
      wake?.();
    },
  });
  const onAbort = () => wake?.();
  signal?.addEventListener('abort', onAbort);
  follower.start();
  try {
    while (!signal?.aborted) {
      if (held) {
        const event = held;
        held = undefined;
        yield event;
        follower.resume();
        continue;
      }
      if (failure) throw failure.err;
      if (pruned) return;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    follower.close();
  }
}
