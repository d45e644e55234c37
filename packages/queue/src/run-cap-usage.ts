import type { Redis } from 'ioredis';
import type { QueueKeys } from './queue-keys.ts';

/** What a tenant's run cap holds right now (tenant-run-cap.ts). */
export interface RunCapUsage {
  /** Run slots held and not lapsed: runs going on under a cap. Runs of an uncapped tenant take none. */
  running: number;
  /** Jobs parked until one of the tenant's runs ends. */
  parked: number;
}

/**
 * Reads the run cap's sets of each tenant in one pipeline, for the console and operators. Slots
 * past their lapse time are not counted: their worker stopped renewing them (it died), and the
 * next take or release clears them away.
 */
export async function readRunCapUsage(
  redis: Redis,
  keys: QueueKeys,
  tenantIds: readonly string[],
): Promise<Map<string, RunCapUsage>> {
  const usage = new Map<string, RunCapUsage>();
  if (tenantIds.length === 0) return usage;
  // Redis's clock, which scores the slots (tenant-run-cap.ts), not this process's.
  const [seconds, micros] = await redis.time();
  const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  const pipeline = redis.pipeline();
  for (const tenantId of tenantIds) {
    pipeline.zcount(keys.tenantRunSlots(tenantId), `(${now}`, '+inf');
    pipeline.zcard(keys.tenantParkedRuns(tenantId));
  }
  const replies = (await pipeline.exec()) ?? [];
  tenantIds.forEach((tenantId, i) => {
    const count = (reply: [Error | null, unknown] | undefined) => {
      if (!reply || reply[0]) throw reply?.[0] ?? new Error('no reply from Redis');
      return Number(reply[1]);
    };
    usage.set(tenantId, { running: count(replies[i * 2]), parked: count(replies[i * 2 + 1]) });
  });
  return usage;
}
