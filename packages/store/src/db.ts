import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './database.ts';
import {
  GENERIC_PLAN_OPTIONS,
  preparedStatementPolicy,
  usePreparedStatements,
} from './prepared-statements.ts';
import { useStatementTimeout } from './statement-timeout.ts';

export type Db = Kysely<Database>;

// int8 (bigint) counts come back as strings by default; every count here fits in a double.
pg.types.setTypeParser(20, (v) => Number(v));

export interface DbOptions {
  connectionString: string;
  /** Pool size per process; default 10. Keep it small and put PgBouncer in front at scale. */
  maxConnections?: number;
  /** Name shown in pg_stat_activity. */
  applicationName?: string;
  /**
   * How long an idle connection stays open, ms; 0 keeps it until the pool ends. Default 5 min.
   * A new connection costs a Postgres backend start and a fresh plan of every prepared statement
   * (the task CTEs over partitioned tables take milliseconds each), so pools should not shrink
   * and regrow with every lull: with pg's default of 10 s they did, and at half of peak load in
   * the bench the submit p99 was 3-4x what it was with connections kept.
   */
  idleTimeoutMs?: number;
  /**
   * Distinct statement texts this process may run as named prepared statements (see
   * prepared-statements.ts); 0 sends every statement unnamed (PgBouncer in transaction mode
   * before 1.21). Default 64.
   */
  preparedStatements?: number;
  /**
   * How long a caller waits for a connection, ms: a new one to be established, or a busy pool's to
   * come free; then the call fails instead of hanging. 0 waits forever. Default 10 s.
   */
  connectTimeoutMs?: number;
  /**
   * How long a statement waits for its answer before its connection is dropped and the call fails
   * (statement-timeout.ts), ms; 0 waits forever. Postgres is told a little less, so a statement it
   * is still running is cancelled there first (serverTimeoutOptions). VACUUM and ANALYZE are
   * exempt. Default 60 s.
   */
  statementTimeoutMs?: number;
}

/**
 * TCP keepalive on every connection, first probe after this long idle (Node then probes every
 * second, ten times): a connection whose server vanished without a reset (a failed-over primary,
 * a partition) is found dead within about 20 s of idling instead of on its next use, where the
 * query would wait for the kernel's retransmission timeout (minutes).
 */
const KEEPALIVE_IDLE_MS = 10_000;

/**
 * JIT compilation off in the platform's sessions. Every statement here is short OLTP work, but a
 * generic plan's cost estimate over a big table (a long push queue, a tenant with many tasks)
 * passes jit_above_cost, and Postgres then compiles the plan with LLVM at every execution: a push
 * claim that found nothing took 700 ms with JIT and 4 ms without. Sent with the generic-plan
 * setting in the startup packet; with PG_PREPARED_STATEMENTS=0 (PgBouncer in transaction mode)
 * no options are sent, and the server's own `jit = off` is the way (README, Deploying).
 */
const NO_JIT_OPTIONS = '-c jit=off';

/**
 * The client's statement timeout alone stops only the waiting: a statement still running on the
 * server (behind a lock, or slow) would go on holding its locks and its backend after its caller
 * gave up, and callers' retries would stack more of them. Postgres is told to cancel a statement
 * itself a little before the client would give up (a tenth sooner, at most a second), so a
 * statement that Postgres is running ends there, rolled back, and the client gets its error
 * (57014) on a connection it keeps; the client's own timeout is then left for a server that does
 * not answer at all. A transaction left open that long between statements (its process frozen
 * mid-transaction, holding the task rows it locked) is ended the same way. Sent in the startup
 * options, with the generic-plan setting; where those do not reach the server (PgBouncer), the
 * same settings belong on the role (README, Deploying).
 */
export function serverTimeoutOptions(statementTimeoutMs: number): string[] {
  if (statementTimeoutMs <= 0) return [];
  // At least 1 ms: 0 would be no limit at all.
  const serverMs = Math.max(1, statementTimeoutMs - Math.min(1000, Math.ceil(statementTimeoutMs / 10)));
  return [`-c statement_timeout=${serverMs}`, `-c idle_in_transaction_session_timeout=${statementTimeoutMs}`];
}

export function createPool({
  connectionString,
  maxConnections = 10,
  applicationName = 'switchyard',
  preparedStatements = 64,
  idleTimeoutMs = 300_000,
  connectTimeoutMs = 10_000,
  statementTimeoutMs = 60_000,
}: DbOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max: maxConnections,
    idleTimeoutMillis: idleTimeoutMs,
    connectionTimeoutMillis: connectTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
    application_name: applicationName,
    // An `options` in the URL wins over this one (pg lets the URL override the config).
    ...(preparedStatements > 0
      ? {
          options: [GENERIC_PLAN_OPTIONS, NO_JIT_OPTIONS, ...serverTimeoutOptions(statementTimeoutMs)].join(
            ' ',
          ),
        }
      : {}),
  });
  if (preparedStatements > 0) usePreparedStatements(pool, preparedStatementPolicy(preparedStatements));
  if (statementTimeoutMs > 0) useStatementTimeout(pool, statementTimeoutMs, preparedStatements > 0);
  // pg-pool listens for errors only on idle clients. A checked-out client between two statements
  // (a transaction awaiting its next step) that loses its connection (Postgres restarting) emits
  // 'error' with no listener, which crashes the process. The error also fails the client's next
  // query, so the caller still sees it and the pool discards the client on release.
  pool.on('connect', (client) => client.on('error', () => undefined));
  // An idle client's error is re-emitted on the pool after pg-pool dropped the client; with no
  // listener that crashes the process too. It also happens after end(): pg-pool's end() resolves
  // while its clients are still closing, and a server that terminates them then (a restart, a
  // forced DROP DATABASE) errors a client of an ended pool. Processes add a logging listener
  // (process-resources.ts); this one only keeps a pool without one from crashing its process.
  pool.on('error', () => undefined);
  return pool;
}

export function createDb(pool: pg.Pool): Db {
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}
