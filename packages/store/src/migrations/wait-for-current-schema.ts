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
  const failures = checkFailures(log, pollMs);
  while (!signal.aborted) {
    // A check can wait PG_CONNECT_TIMEOUT_MS for a connection: shutdown does not wait for it.
    const check = migrationsCurrent(pool).then(
      (current) => {
        failures.answered(current);
        return current;
      },
      (err: unknown) => {
        failures.failed(err);
        return false;
      },
    );
    if (await Promise.race([check, aborted])) {
      if (waited) log.info('database migrations are current: starting');
      return true;
    }
    if (signal.aborted) break;
    waited = true;
    await sleep(pollMs, undefined, { signal }).catch(() => undefined);
  }
  return false;
}

/**
 * The wait's warnings: the schema is behind (once), or the check failed, with Postgres's own
 * message and SQLSTATE (a database that does not exist, a refused password, a refused connection)
 * once per distinct failure, so a wait that never ends says why and a changed cause is seen.
 */
function checkFailures(log: Logger, pollMs: number) {
  let last: string | undefined;
  const once = (what: string, warn: () => void) => {
    if (what !== last) warn();
    last = what;
  };
  return {
    answered(current: boolean) {
      if (!current)
        once('behind', () =>
          log.warn({ pollMs }, 'database migrations are not current: waiting before taking any work'),
        );
      else last = undefined;
    },
    failed(err: unknown) {
      const error = describePgError(err);
      once(`${error.code}:${error.message}`, () =>
        log.warn(
          { pollMs, error },
          'cannot check the database schema (Postgres unreachable or refusing): waiting before taking any work',
        ),
      );
    },
  };
}

/**
 * A Postgres or connection error's message and code, without the rest of it: the error object
 * may hold the client and its configuration, the password included. A connection string is cut
 * out of the message too, should one ever be quoted there.
 */
export function describePgError(err: unknown): { message: string; code?: string } {
  const { code } = (err ?? {}) as { code?: unknown };
  const message = messageOf(err).replace(/([a-z][a-z0-9+.-]*:\/\/)\S*@/gi, '$1[redacted]@');
  return typeof code === 'string' ? { message, code } : { message };
}

/** An AggregateError (`localhost` refused on ::1 and on 127.0.0.1) has an empty message of its own. */
function messageOf(err: unknown): string {
  if (err instanceof AggregateError && err.message === '')
    return err.errors.map((inner: unknown) => messageOf(inner)).join('; ');
  return err instanceof Error ? err.message : String(err);
}
