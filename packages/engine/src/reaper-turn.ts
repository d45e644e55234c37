import type { Redis } from 'ioredis';

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
