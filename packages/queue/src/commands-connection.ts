import { Command, type Redis, type RedisOptions } from 'ioredis';
import { resultWithin } from './result-within.ts';

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
 *   any answer of a working Redis. One timeout makes the connection count as away until Redis
 *   answers again (guardCommands), so a stall costs its callers one wait, not one per command.
 */
export const COMMANDS_CONNECTION_OPTIONS = {
  enableAutoPipelining: true,
  maxRetriesPerRequest: 0,
  commandTimeout: 1000,
} as const satisfies RedisOptions;

/** Connections whose last command timed out and that no PING has answered since (guardCommands). */
const unanswering = new WeakSet<object>();

/** How often an unanswering connection is asked whether Redis answers again. */
const PROBE_EVERY_MS = 500;

/**
 * True while a connection that was up has lost Redis (reconnecting, or given up), or while Redis
 * does not answer it (guardCommands). Callers skip their advisory commands then rather than queue
 * them: each would only wait for the next failed reconnect, or its timeout, to refuse it. A
 * connection still making its first connect is not "away": commands issued at start wait for it,
 * as they should.
 */
export function isRedisAway(redis: Pick<Redis, 'status'>): boolean {
  return (
    redis.status === 'reconnecting' ||
    redis.status === 'close' ||
    redis.status === 'end' ||
    unanswering.has(redis)
  );
}

/**
 * A breaker for a commands connection (COMMANDS_CONNECTION_OPTIONS): once one of its commands
 * timed out on a ready connection, Redis counts as away (isRedisAway) and every command fails at
 * once, unsent, until Redis answers a PING (sent half a second after each one that went
 * unanswered) or the connection is ready again after a reconnect. Without it each write of a run
 * waited out a timeout for its hint and another for its push wake-up for the whole of a stall, and
 * the commands that timed out piled up to run when Redis came back.
 *
 * Only a ready connection's commands are refused: ioredis sends its own handshake (CLIENT
 * SETNAME, the ready check's INFO) through the same sendCommand while it connects, and refusing
 * those would keep it reconnecting for good. `onChange` hears the breaker open and close (for a
 * log line each). Returns `redis`.
 */
export function guardCommands<R extends Redis>(redis: R, onChange?: (open: boolean) => void): R {
  const send = redis.sendCommand.bind(redis);
  const close = () => {
    if (unanswering.delete(redis)) onChange?.(false);
  };
  const probe = () => {
    // Not ready (reconnecting, or closed): the 'ready' of its next connection closes the breaker.
    if (redis.status !== 'ready' || !unanswering.has(redis)) return;
    const ping = new Command('ping');
    send(ping);
    ping.promise.then(close, () => setTimeout(probe, PROBE_EVERY_MS).unref());
  };
  redis.on('ready', close);
  redis.sendCommand = (command: Command, stream?: Parameters<R['sendCommand']>[1]) => {
    if (redis.status === 'ready' && unanswering.has(redis)) {
      command.reject(new Error('Redis is not answering (a command timed out); skipped'));
      return command.promise;
    }
    const sent = send(command, stream);
    command.promise.catch((err: unknown) => {
      const timedOut = err instanceof Error && err.message === 'Command timed out';
      if (!timedOut || redis.status !== 'ready' || unanswering.has(redis)) return;
      unanswering.add(redis);
      onChange?.(true);
      probe();
    });
    return sent;
  };
  return redis;
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
  return resultWithin(
    redis.ping().then(() => true),
    timeoutMs,
    false,
  );
}
