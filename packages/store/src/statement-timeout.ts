import type pg from 'pg';

/** Maintenance statements run with autovacuum's cost delay and may take minutes on a big table. */
const EXEMPT = /^\s*(VACUUM|ANALYZE)\b/i;

/** A statement got no answer within the pool's statement timeout; its connection was dropped. */
export class StatementTimeoutError extends Error {
  readonly code = 'SY_STATEMENT_TIMEOUT';
  constructor(timeoutMs: number) {
    super(`Postgres did not answer within ${timeoutMs} ms; the connection was dropped`);
    this.name = 'StatementTimeoutError';
  }
}

type QueryFn = (...args: unknown[]) => unknown;

/**
 * Bounds how long a pool's statement waits for its answer, on the client: a connection whose
 * server stopped answering without closing it (a partition, a primary that vanished) otherwise
 * holds its caller until the kernel gives up retransmitting, many minutes later, and keepalives do
 * not help while a statement's bytes are unacknowledged. On timeout the connection is destroyed,
 * so the pool drops it and the next call gets a fresh one; the caller sees StatementTimeoutError.
 * The statement may still have run (its answer is what was lost), as when a connection dies
 * mid-commit. VACUUM and ANALYZE are exempt, from the server's statement_timeout too (db.ts).
 */
export function useStatementTimeout(
  pool: pg.Pool,
  timeoutMs: number,
  /**
   * Whether the sessions carry the server-side timeout in their startup options (db.ts), which
   * VACUUM and ANALYZE then lift for themselves. Not behind PgBouncer (no startup options): in
   * transaction pooling the SET, the statement and the RESET could each run on another server
   * connection, and leave a pooled connection without any timeout.
   */
  serverTimeoutInSession = true,
): void {
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as QueryFn;
    // end() marks the client ending at once (the pool then discards it on release, even before
    // the socket's close event) and, with a statement in flight, destroys the socket.
    const drop = () => void client.end().catch(() => undefined);
    const bounded = (answer: Promise<unknown>) => {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          drop();
          reject(new StatementTimeoutError(timeoutMs));
        }, timeoutMs);
      });
      return Promise.race([answer, timedOut]).finally(() => clearTimeout(timer));
    };
    (client as unknown as { query: QueryFn }).query = (...args: unknown[]) => {
      const first = args[0] as { text?: unknown; submit?: unknown } | string | null;
      const text = typeof first === 'string' ? first : first?.text;
      // A cursor or stream (it has `submit`) paces itself; maintenance may take minutes.
      if (typeof first === 'object' && typeof first?.submit === 'function') return query(...args);
      if (typeof text === 'string' && EXEMPT.test(text))
        return serverTimeoutInSession ? withoutServerTimeout(query, args) : query(...args);
      const callback = args.at(-1);
      if (typeof callback !== 'function') {
        const result = query(...args);
        return result instanceof Promise ? bounded(result) : result;
      }
      // pg-pool's own pool.query answers through a callback: the same bound, answered through it.
      const answer = bounded(query(...args.slice(0, -1)) as Promise<unknown>);
      void answer.then(
        (result) => (callback as (err: undefined, result: unknown) => void)(undefined, result),
        (err: unknown) => (callback as (err: unknown) => void)(err),
      );
      return undefined;
    };
  });
}

/**
 * Runs a maintenance statement with the session's server-side statement_timeout off, then back at
 * the session's default (RESET goes back to what the startup options set).
 */
function withoutServerTimeout(query: QueryFn, args: unknown[]): unknown {
  const callback =
    typeof args.at(-1) === 'function' ? (args.at(-1) as (err: unknown, result?: unknown) => void) : undefined;
  const statement = callback ? args.slice(0, -1) : args;
  const run = (async () => {
    await query('SET statement_timeout = 0');
    try {
      return await (query(...statement) as Promise<unknown>);
    } finally {
      // A failed reset (the connection broken) must not hide the statement's own outcome.
      await (query('RESET statement_timeout') as Promise<unknown>).catch(() => undefined);
    }
  })();
  if (!callback) return run;
  void run.then(
    (result) => callback(undefined, result),
    (err: unknown) => callback(err),
  );
  return undefined;
}
