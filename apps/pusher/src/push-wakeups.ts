import type { Logger } from '@switchyard/telemetry';
import type { Redis } from 'ioredis';

export interface PushWakeups {
  /** Resolves once subscribed, or when `signal` aborts first; never rejects. */
  subscribed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Listens on the push channel, where writers publish '1' after committing events of visible tasks
 * (engine TaskWriter). A message is only a hint that the outbox grew: it carries nothing, and a
 * missed one costs at most a poll interval.
 */
export function listenForPushWakeups(
  subscriber: Redis,
  channel: string,
  onWake: () => void,
  signal: AbortSignal,
  log: Logger,
): PushWakeups {
  const onMessage = (ch: string) => {
    if (ch === channel) onWake();
  };
  subscriber.on('message', onMessage);
  // ioredis queues the command while Redis is away and may never settle it, so the caller's
  // signal must be able to end the wait.
  const aborted = new Promise<void>((resolve) =>
    signal.addEventListener('abort', () => resolve(), { once: true }),
  );
  const subscribed = Promise.race([subscriber.subscribe(channel).then(() => undefined), aborted]).catch(
    (err: unknown) => {
      if (!signal.aborted) log.warn({ err }, 'no push wake-ups from Redis: delivering by polling only');
    },
  );
  return {
    subscribed,
    async close() {
      subscriber.off('message', onMessage);
      // Only on a live connection: with Redis down the command would queue until it returns.
      if (subscriber.status !== 'ready') return;
      await subscriber.unsubscribe(channel).catch((err: unknown) => log.warn({ err }, 'unsubscribe failed'));
    },
  };
}
