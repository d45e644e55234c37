/**
 * SQLSTATEs of a server that cannot serve right now but may in a moment: a connection that could
 * not be made or was lost (08000, 08001, 08003, 08004, 08006), too many connections (53300), an
 * operator or crash shutdown and a server still starting (57P01-57P03), a read-only server
 * (25006: a primary that became a replica during a failover), and a statement Postgres cancelled
 * at its statement_timeout (57014, db.ts: it waited on a lock or a busy server past it, as a
 * statement the client gave up on would have). Not the rest of their classes:
 * 08P01 is a protocol violation (a bug of ours), 53100/53200/53400 are a full disk, an
 * out-of-memory statement and a configuration limit, none of which a retry in two seconds fixes.
 */
const TRANSIENT_SQLSTATES = new Set([
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '53300',
  '57P01',
  '57P02',
  '57P03',
  '25006',
  '57014',
]);

/**
 * PgBouncer reports its own pool's troubles as 08P01 (protocol violation), the code a real
 * protocol error of ours also has, so for that code only these texts count: the server behind it
 * unreachable or refusing logins, a client that waited too long for a server connection, too many
 * clients, a server connection lost.
 */
const POOLER_MESSAGES = [
  'cannot connect to server',
  'server login has been failing',
  'query_wait_timeout',
  'no more connections allowed',
  'server conn crashed',
];

/** Node's socket errors on the way to Postgres. */
const TRANSIENT_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'SY_STATEMENT_TIMEOUT',
]);

/**
 * What node-postgres throws without a code when a connection dies or the pool has none to give
 * (`PG_CONNECT_TIMEOUT_MS`).
 */
const TRANSIENT_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Client was closed and is not queryable',
];

/**
 * Whether an error means Postgres could not be reached or could not serve just now (down,
 * restarting, failing over, out of connections, or not answering), rather than that the request
 * was wrong or the platform has a bug. Clients get Unavailable with Retry-After for these, which
 * their retry policies act on, instead of a permanent-looking Internal error.
 */
export function isStoreUnavailable(error: unknown): boolean {
  return unavailableCause(error, 0) !== undefined;
}

/**
 * Whether Postgres went away (down, restarting, failing over): a connection refused, lost or
 * ended by the server. Not a statement or connect timeout, nor a pool or server out of
 * connections: those say it is overloaded, and what failed there may fail the same way each time
 * it is tried. The runner refunds the attempt of a run only this ended (task-runner.ts).
 */
export function isStoreGone(error: unknown): boolean {
  const cause = unavailableCause(error, 0);
  return cause !== undefined && !isLoad(cause);
}

/** The error (or cause) that makes `error` a store outage; undefined when it is none. */
function unavailableCause(error: unknown, depth: number): object | undefined {
  if (typeof error !== 'object' || error === null || depth > 3) return undefined;
  const { code, message, cause, errors } = error as {
    code?: unknown;
    message?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof code === 'string' && (TRANSIENT_SQLSTATES.has(code) || TRANSIENT_SOCKET_CODES.has(code)))
    return error;
  if (code === '08P01' && typeof message === 'string' && POOLER_MESSAGES.some((m) => message.includes(m)))
    return error;
  if (typeof message === 'string' && TRANSIENT_MESSAGES.some((m) => message.includes(m))) return error;
  // A connection refused on every address of a host is an AggregateError of the attempts.
  if (Array.isArray(errors)) {
    for (const e of errors) {
      const found = unavailableCause(e, depth + 1);
      if (found) return found;
    }
  }
  return unavailableCause(cause, depth + 1);
}

/** Timeouts and exhausted connections: Postgres (or its pooler) is there, but overloaded. */
const LOAD_CODES = new Set(['57014', '53300', 'ETIMEDOUT', 'SY_STATEMENT_TIMEOUT']);
const LOAD_MESSAGES = [
  'timeout exceeded when trying to connect',
  'query_wait_timeout',
  'no more connections allowed',
];

function isLoad(error: object): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && LOAD_CODES.has(code)) return true;
  return typeof message === 'string' && LOAD_MESSAGES.some((m) => message.includes(m));
}
