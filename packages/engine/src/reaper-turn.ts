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
      const parsed = JSON.parse(raw) as Partial<DispatchPosition>;
      const { runAfter, tenantId, taskId } = parsed;
      return typeof runAfter === 'string' && typeof tenantId === 'string' && typeof taskId === 'string'
        ? { runAfter, tenantId, taskId }
        : undefined;
    },
    async save(position) {
      if (position) await redis.set(key, JSON.stringify(position), 'PX', SCAN_POSITION_TTL_MS);
      else await redis.del(key);
    },
  };
}
