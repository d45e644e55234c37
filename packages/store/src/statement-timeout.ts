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
 * mid-commit. VACUUM and ANALYZE are exempt.
 */
export function useStatementTimeout(pool: pg.Pool, timeoutMs: number): void {
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
      if (
        (typeof first === 'object' && typeof first?.submit === 'function') ||
        (typeof text === 'string' && EXEMPT.test(text))
      )
        return query(...args);
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
