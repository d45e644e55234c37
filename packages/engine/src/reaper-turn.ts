import type { Redis } from 'ioredis';
import type { DispatchPosition } from '@switchyard/store';
import type { ScanPositionStore } from './reaper.ts';

/**
 * Claims the cluster-wide reaper turn for `ttlMs`: true for exactly one caller until it lapses.
 * Reaper sweeps are safe in any number (every action is a guarded write), so this only keeps idle
 * workers from polling Postgres: N workers make one sweep per interval, not N.
 */
export async function claimReaperTurn(
  redis: Redis,
  key: string,
  workerId: string,
  ttlMs: number,
): Promise<boolean> {
  return (await redis.set(key, workerId, 'PX', Math.max(1, Math.round(ttlMs)), 'NX')) === 'OK';
}

/** How long a saved scan position lasts unused: a stopped deployment's restarts at the oldest. */
const SCAN_POSITION_TTL_MS = 10 * 60_000;

/**
 * The reaper's dispatch scan position in Redis, beside the turn: the turn moves between workers,
 * and a position each worker kept for itself would move on only every Nth interval with N
 * workers. Lost with Redis (a flush), the scan begins at the oldest again, which is harmless.
 */
export function redisScanPosition(redis: Redis, key: string): ScanPositionStore {
  return {
    async load() {
      const raw = await redis.get(key);
      if (!raw) return undefined;
      return parsePosition(raw);
    },
    async save(position) {
      if (position) await redis.set(key, JSON.stringify(position), 'PX', SCAN_POSITION_TTL_MS);
      else await redis.del(key);
    },
  };
}

// What findDispatchable writes: run_after in UTC to the microsecond, and the task's uuid.
const RUN_AFTER = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A saved position, or undefined (the scan begins at the oldest) for anything that is not one: a
 * value Postgres would refuse would otherwise fail every sweep until the key expired.
 */
export function parsePosition(raw: string): DispatchPosition | undefined {
  let parsed: Partial<Record<keyof DispatchPosition, unknown>>;
  try {
    parsed = JSON.parse(raw) as typeof parsed;
  } catch {
    return undefined;
  }
  const { runAfter, tenantId, taskId } = parsed ?? {};
  return typeof runAfter === 'string' &&
    RUN_AFTER.test(runAfter) &&
    typeof tenantId === 'string' &&
    tenantId !== '' &&
    typeof taskId === 'string' &&
    UUID.test(taskId)
    ? { runAfter, tenantId, taskId }
    : undefined;
}
