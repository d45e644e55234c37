import { migrationsCurrent } from '@switchyard/store';
import type pg from 'pg';

/**
 * How long a readiness check waits for Postgres. A query on a busy pool first waits for a
 * connection (PG_CONNECT_TIMEOUT_MS, 10 s by default), past the orchestrator's probe timeout
 * (3 s in deploy/kubernetes): the probe would fail on the timeout instead of answering.
 */
export const PROBE_TIMEOUT_MS = 1_000;

/**
 * Whether Postgres answers `SELECT 1` within `timeoutMs`. Probes that come while one is in flight
 * share it, so a slow Postgres never has more than one probe query waiting per process.
 */
export function postgresProbe(pool: pg.Pool, timeoutMs = PROBE_TIMEOUT_MS): () => Promise<boolean> {
  let inFlight: Promise<boolean> | undefined;
  return () => {
    inFlight ??= pool
      .query('SELECT 1')
      .then(
        () => true,
        () => false,
      )
      .finally(() => (inFlight = undefined));
    return within(inFlight, timeoutMs);
  };
}

/**
 * Whether every migration this release ships is applied, remembered once it is: a process's
 * migration files do not change, and a schema only moves forward, so after the first `true` a
 * probe queries nothing. Until then each probe checks, time-boxed and shared as postgresProbe's.
 */
export function migrationsProbe(pool: pg.Pool, timeoutMs = PROBE_TIMEOUT_MS): () => Promise<boolean> {
  let current = false;
  let inFlight: Promise<boolean> | undefined;
  return async () => {
    if (current) return true;
    inFlight ??= migrationsCurrent(pool)
      .catch(() => false)
      .then((ok) => {
        inFlight = undefined;
        current ||= ok;
        return ok;
      });
    return within(inFlight, timeoutMs);
  };
}

/** `check`'s answer, or false when it takes longer than `timeoutMs`. */
async function within(check: Promise<boolean>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
  try {
    return await Promise.race([check, late]);
  } finally {
    clearTimeout(timer);
  }
}
