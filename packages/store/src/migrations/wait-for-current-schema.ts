import { setTimeout as sleep } from 'node:timers/promises';
import { migrationsCurrent } from './run-migrations.ts';
import type { Logger } from '@switchyard/telemetry';
import type pg from 'pg';

export interface SchemaWaitOptions {
  pool: pg.Pool;
  log: Logger;
  /** Shutdown: ends the wait at once (a check in flight is not waited for). */
  signal: AbortSignal;
  /** Between checks, in ms. Default 2000. */
  pollMs?: number;
}

/**
 * Resolves true once every migration this release ships is applied, false when `signal` aborts
 * first. In a rolling upgrade new pods can start before the migrations Job has run, and new code
 * on the old schema fails its statements or, worse, writes what the old schema reads differently;
 * /readyz saying `migrations: false` keeps traffic away but not a process's own loops. So a
 * process starts nothing that touches the tables until this resolves. Logs once at warn when it
 * has to wait, and at info when it goes on. The worker runtime and the pusher both wait on it.
 */
export async function waitForCurrentSchema(options: SchemaWaitOptions): Promise<boolean> {
  const { pool, log, signal, pollMs = 2000 } = options;
  const aborted = new Promise<false>((resolve) => {
    if (signal.aborted) resolve(false);
    signal.addEventListener('abort', () => resolve(false), { once: true });
  });
  let waited = false;
  while (!signal.aborted) {
    // A check can wait PG_CONNECT_TIMEOUT_MS for a connection: shutdown does not wait for it.
    const check = migrationsCurrent(pool).catch(() => false);
    if (await Promise.race([check, aborted])) {
      if (waited) log.info('database migrations are current: starting');
      return true;
    }
    if (signal.aborted) break;
    if (!waited)
      log.warn(
        { pollMs },
        'database migrations are not current (or Postgres is unreachable): waiting before taking any work',
      );
    waited = true;
    await sleep(pollMs, undefined, { signal }).catch(() => undefined);
  }
  return false;
}
