import type { Redis } from 'ioredis';
import { resultWithin } from './result-within.ts';

/** How long the check waits for INFO: a Redis that does not answer is the readiness checks' business. */
const INFO_WAIT_MS = 2000;

/** The `maxmemory_policy` an INFO reply names, or undefined when it names none. */
export function maxmemoryPolicyOf(info: string): string | undefined {
  return /^maxmemory_policy:(\S+)/m.exec(info)?.[1];
}

/**
 * Calls `onEvicting` with the policy each time `redis` connects to a Redis that may evict keys
 * (any `maxmemory-policy` but `noeviction`; BullMQ's requirement). Under memory pressure such a
 * Redis drops queued jobs, their locks and run-cap slots. Postgres still holds every task, and
 * the reaper re-dispatches the lost ones, but only after their grace, and a lock dropped mid-run
 * hands the job to a second worker, whose claim the lease then refuses: work delayed and wasted,
 * so operators should hear of it, in the platform's log rather than BullMQ's bare console line.
 * Checked at every connect, since a restarted or failed-over Redis may have another setting. A
 * Redis that refuses INFO (some managed services) or does not answer is not reported.
 */
export function watchEvictionPolicy(redis: Redis, onEvicting: (policy: string) => void): void {
  redis.on('ready', () => {
    void resultWithin(redis.info('memory'), INFO_WAIT_MS, undefined).then((info) => {
      const policy = info === undefined ? undefined : maxmemoryPolicyOf(info);
      if (policy !== undefined && policy !== 'noeviction') onEvicting(policy);
    });
  });
}
