import { pino } from 'pino';

/**
 * Keys an error may carry that hold what a request sent: ioredis's `command` (a failed AUTH's
 * args are the Redis password; other commands' args are task payloads), an HTTP client's `config`,
 * `request`, `options` or `headers` (the Authorization header). Kept out of every logged error.
 */
const REQUEST_KEYS = new Set(['config', 'request', 'response', 'options', 'headers', 'body']);

/**
 * Key names whose values are credentials, as they are spelled in what the platform logs: the
 * logger redacts them by path (logger.ts), and a logged error is scrubbed of them at any depth.
 */
export const SECRET_NAMES = [
  'apiKey',
  'authorization',
  'Authorization',
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

/** The same, compared in lower case: an error's keys are spelled however its library spells them. */
const SECRET_KEYS = new Set(SECRET_NAMES.map((name) => name.toLowerCase()));

const MAX_DEPTH = 6;

/**
 * pino's error serializer, then scrubbed: an error's own properties are copied into the line
 * whole, and an error from a client library carries the request it failed on. A Redis command
 * keeps its name (what failed) but not its arguments.
 */
export function serializeError(err: unknown): unknown {
  const serialized = err instanceof Error ? pino.stdSerializers.err(err) : err;
  return scrub(serialized, 0);
}

function scrub(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (REQUEST_KEYS.has(key)) continue;
    if (SECRET_KEYS.has(key.toLowerCase())) out[key] = '[redacted]';
    else if (key === 'command' && typeof v === 'object' && v !== null)
      out[key] = { name: (v as { name?: unknown }).name };
    else out[key] = scrub(v, depth + 1);
  }
  return out;
}
