import type { Redis, RedisOptions } from 'ioredis';

/**
 * Options for a process's `commands` connection (ProcessResources.commands): the platform's own
 * short, advisory commands, which are hint publishes, the fair-order scripts and rate limits.
 *
 * - Auto-pipelined: everything issued in one event-loop turn leaves in one write.
 * - `maxRetriesPerRequest: 0`: a command caught by a dropped connection fails at the first failed
 *   reconnect instead of waiting for Redis to come back. Nothing on this connection is worth
 *   waiting for: a lost hint only makes subscribers read the log, a lost counter only costs
 *   fairness, and the limiter lets requests through. Waiting would stall the caller instead: a
 *   run's writes await their hints, so a long Redis outage would have stalled every run.
 * - `commandTimeout`: the same for a Redis that stops answering while its connection stays up (a
 *   frozen or overloaded server, a network path that drops packets without a reset): a command
 *   unanswered after a second fails. Without it every run's write, every blocking send's answer
 *   and every request whose rate allotment ran out waited for as long as Redis did (seen: a
 *   blocking send past its 30 s ceiling for the whole of a 70 s freeze). A second is far beyond
 *   any answer of a working Redis, so a slow reply is never taken for a stall.
 */
export const COMMANDS_CONNECTION_OPTIONS = {
  enableAutoPipelining: true,
  maxRetriesPerRequest: 0,
  commandTimeout: 1000,
} as const satisfies RedisOptions;

/**
 * True while a connection that was up has lost Redis (reconnecting, or given up). Callers skip
 * their advisory commands then rather than queue them: each would only wait for the next failed
 * reconnect to be refused. A connection still making its first connect is not "away": commands
 * issued at start wait for it, as they should.
 */
export function isRedisAway(redis: Pick<Redis, 'status'>): boolean {
  return redis.status === 'reconnecting' || redis.status === 'close' || redis.status === 'end';
}

/**
 * Whether Redis answers a PING within `timeoutMs`, for readiness probes. A connection that lost
 * Redis queues its commands until it reconnects (the BullMQ connection never gives up), so a bare
 * PING would hang the probe for the whole outage instead of answering "not ready".
 */
export async function redisAnswers(
  redis: Pick<Redis, 'status' | 'ping'>,
  timeoutMs = 1000,
): Promise<boolean> {
  if (redis.status !== 'ready') return false;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([
      redis.ping().then(
        () => true,
        () => false,
      ),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
