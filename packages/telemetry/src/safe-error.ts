import { pino } from 'pino';

/**
 * Key names whose values are credentials, as they are spelled in what the platform logs: a log
 * line is scrubbed of them at any depth (scrubSecrets), and a logged error too (serializeError).
 */
const SECRET_NAMES = [
  'apiKey',
  'authorization',
  'cookie',
  'credentials',
  'password',
  'plaintext',
  'secret',
  'token',
  'webhookSecret',
  'x-api-key',
  'x-a2a-notification-token',
  'SWITCHYARD_ADMIN_TOKEN',
  'SWITCHYARD_SECRET_KEY',
  'SWITCHYARD_SECRET_KEY_PREVIOUS',
  // Connection URLs may carry a password.
  'DATABASE_URL',
  'REDIS_URL',
] as const;

/** The same, compared in lower case: keys are spelled however their library spells them. */
const SECRET_KEYS = new Set<string>(SECRET_NAMES.map((name) => name.toLowerCase()));

/**
 * Keys an error may carry that hold what a request sent: an HTTP client's `config`, `request`,
 * `options`, `headers` or `body` (the Authorization header, the payload). Kept out of every
 * logged error; a `response` keeps only its status.
 */
const REQUEST_KEYS = new Set(['config', 'request', 'options', 'headers', 'body']);

const MAX_DEPTH = 6;
const REDACTED = '[redacted]';

/**
 * Objects are walked, but not values that serialize themselves: a Date, URL, Buffer, Map, Set or
 * typed array is logged as it is (walking a Buffer would log one key per byte).
 */
function isPlain(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  return !(
    value instanceof Date ||
    value instanceof URL ||
    value instanceof Map ||
    value instanceof Set ||
    value instanceof RegExp ||
    ArrayBuffer.isView(value) ||
    typeof (value as { toJSON?: unknown }).toJSON === 'function'
  );
}

/** Own enumerable entries, or none when reading them throws (a getter that fails). */
function entriesOf(value: object): [string, unknown][] {
  try {
    return Object.entries(value);
  } catch {
    return [];
  }
}

/** A log line's values walked for secrets: not errors, which their serializer scrubs as a whole. */
function isLineValue(value: unknown): value is Record<string, unknown> {
  return isPlain(value) && !(value instanceof Error);
}

/** Whether a log line holds a secret-named key anywhere: read only, so a clean line costs no copy. */
function holdsSecret(value: unknown, depth: number): boolean {
  if (depth > MAX_DEPTH || !isLineValue(value)) return false;
  for (const [key, v] of entriesOf(value)) {
    if (SECRET_KEYS.has(key.toLowerCase()) || holdsSecret(v, depth + 1)) return true;
  }
  return false;
}

function redacted(value: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH || !isLineValue(value)) return value;
  if (Array.isArray(value)) return value.map((v) => redacted(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, v] of entriesOf(value))
    out[key] = SECRET_KEYS.has(key.toLowerCase()) ? REDACTED : redacted(v, depth + 1);
  return out;
}

/**
 * A log line with every secret-named value replaced, at any depth (case-insensitive names): one
 * read-only walk of the line, and a copy only when it holds one. (pino's path redaction needs a
 * wildcard path per name and depth, and made every line ten times slower.)
 */
export function scrubSecrets<T extends Record<string, unknown>>(line: T): T {
  return holdsSecret(line, 0) ? (redacted(line, 0) as T) : line;
}

/**
 * pino's error serializer, then scrubbed: an error's own properties are copied into the line
 * whole, and an error from a client library carries the request it failed on. A Redis command
 * keeps its name (what failed) but not its arguments (a failed AUTH's are the Redis password;
 * other commands' are task payloads).
 */
export function serializeError(err: unknown): unknown {
  const serialized = err instanceof Error ? pino.stdSerializers.err(err) : err;
  return scrubError(serialized, 0);
}

function scrubError(value: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH || !isPlain(value)) return value;
  if (Array.isArray(value)) return value.map((v) => scrubError(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, v] of entriesOf(value)) {
    if (REQUEST_KEYS.has(key)) continue;
    if (SECRET_KEYS.has(key.toLowerCase())) out[key] = REDACTED;
    else if (key === 'command' && isPlain(v)) out[key] = { name: v.name };
    else if (key === 'response' && isPlain(v)) out[key] = statusOf(v);
    else out[key] = scrubError(v, depth + 1);
  }
  return out;
}

function statusOf(response: Record<string, unknown>): Record<string, unknown> {
  const { status, statusCode } = response;
  return { ...(status !== undefined ? { status } : {}), ...(statusCode !== undefined ? { statusCode } : {}) };
}
