import { isIP } from 'node:net';
import proxyaddr from 'proxy-addr';
import { z } from 'zod';

/**
 * Config in, resolved config out (STYLE.md rule 5): parse the environment once with a schema,
 * fill defaults (a blank variable is an unset one), freeze, and fail at start with a message
 * naming every bad variable.
 */
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export function parseEnv<S extends z.ZodObject>(schema: S, given: NodeJS.ProcessEnv): Readonly<z.infer<S>> {
  const env = withoutBlanks(given);
  const result = schema.safeParse(env);
  if (result.success && env['NODE_ENV'] === 'production') {
    const values = result.data as Record<string, unknown>;
    const public_ = [...DEVELOPMENT_SECRETS].filter(([name, known]) => {
      const value = values[name] ?? env[name];
      return typeof value === 'string' && (value === known || /change-?me/i.test(value));
    });
    if (public_.length > 0)
      throw new ConfigError(
        public_.map(
          ([name]) =>
            `${name}: a development value everyone knows; set one of your own when NODE_ENV=production`,
        ),
      );
  }
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => {
        const name = issue.path.join('.') || '(environment)';
        const got = typeof issue.path[0] === 'string' ? env[issue.path[0]] : undefined;
        return `${name}: ${issue.message}${got === undefined ? '' : ` (got ${JSON.stringify(printable(String(issue.path[0]), got))})`}`;
      }),
    );
  }
  return Object.freeze(result.data);
}

/**
 * A blank variable (empty, or spaces only) is an unset one, so its default applies. `FOO=` in an
 * .env file, `${FOO:-}` in compose or `FOO: ''` in a ConfigMap would otherwise reach the schema as
 * a value: `Number('')` is 0, which several settings read as "no limit" or "off".
 */
function withoutBlanks(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value?.trim() !== ''));
}

/**
 * Development defaults of secrets, public because they are in this repository (docker-compose.yml,
 * script/server, the schemas' defaults), and the manifests' CHANGE-ME placeholders: a process
 * started with NODE_ENV=production refuses them, whichever of them its schema reads.
 */
const DEVELOPMENT_SECRETS = new Map([
  ['SWITCHYARD_SECRET_KEY', 'switchyard-dev-secret-key-change-me'],
  ['SWITCHYARD_ADMIN_TOKEN', 'switchyard-dev-admin-token'],
  ['SWITCHYARD_DEMO_API_KEY', 'switchyard-demo-api-key'],
]);

/** A setting's development value everyone knows (see DEVELOPMENT_SECRETS), if it has one. */
export function developmentValueOf(name: string): string | undefined {
  return DEVELOPMENT_SECRETS.get(name);
}

/**
 * What a config error may echo of a bad value: nothing of a secret, and no credentials of a URL
 * (DATABASE_URL and REDIS_URL carry passwords). The setting is still named, so the message stays
 * useful without the value.
 */
function printable(name: string, value: string): string {
  if (/SECRET|KEY|TOKEN|PASSWORD/i.test(name)) return '[redacted]';
  return isUrlSetting(name, value) ? withoutUserInfo(value) : value;
}

function isUrlSetting(name: string, value: string): boolean {
  return /_URLS?$|_URI$|ENDPOINT/i.test(name) || value.includes('://');
}

/**
 * Cuts everything between the scheme and the last `@`. Done on the text, not with `new URL`: the
 * values that get here are the ones that failed to parse (a password with a bare `/` or `@`).
 */
function withoutUserInfo(value: string): string {
  const at = value.lastIndexOf('@');
  if (at === -1) return value;
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(value)?.[0] ?? '';
  return `${scheme}[redacted]${value.slice(at)}`;
}

/** Integer env var with bounds; `unit` goes into the variable's documentation, not the parse. */
export const intVar = (fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number().int().min(min).max(max).default(fallback);

/**
 * The longest delay Node's timers take, 2^31 - 1 ms (about 24.8 days). A longer one is not an
 * error there: Node warns once and fires after 1 ms, so `SSE_HEARTBEAT_MS=99999999999` wrote a
 * keep-alive every millisecond and a huge drain grace ended the drain at once.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A duration in ms that some timer waits (an interval, a timeout, a grace period): refused above
 * MAX_TIMER_MS, or above a smaller `max` where the code adds to it or multiplies it before it
 * becomes a timer. Every `*_MS` setting is one of these unless it is an age compared with
 * timestamps (a retention TTL), which takes intVar with its own ceiling instead.
 */
export const msVar = (fallback: number, min = 0, max = MAX_TIMER_MS) =>
  z.coerce
    .number()
    .int()
    .min(min)
    .max(
      Math.min(max, MAX_TIMER_MS),
      `must be at most ${Math.min(max, MAX_TIMER_MS)}${max < MAX_TIMER_MS ? '' : " (Node's timer limit, about 24.8 days)"}`,
    )
    .default(fallback);

export const boolVar = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** A comma-separated list (spaces around entries ignored) whose every entry passes `valid`; empty by default. */
export const listVar = (valid: (entry: string) => boolean, message: string) =>
  z
    .string()
    .default('')
    .transform((raw) =>
      raw
        .split(',')
        .map((c) => c.trim())
        .filter((c) => c !== ''),
    )
    .refine((list) => list.every(valid), message);

/** A comma-separated list of CIDRs or bare addresses (e.g. the SSRF allow-list); empty by default. */
export const cidrListVar = () =>
  listVar(isCidr, 'must be a comma-separated list of CIDRs (e.g. 127.0.0.0/8,::1/128)');

function isCidr(value: string): boolean {
  const [address = '', bits, ...rest] = value.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

/**
 * express's `trust proxy`: which proxies' X-Forwarded-* headers to believe for the client address
 * (and host and scheme), as a hop count, `true`/`false`, or a comma list of addresses, CIDRs and
 * the names `loopback`, `linklocal`, `uniquelocal`. Unset by default: the socket's peer is the
 * client. A list is checked by proxy-addr's own compile, the one express runs when the setting is
 * made: an entry it cannot read used to pass the start and then fail every request's `req.ip`.
 */
export const trustProxyVar = () =>
  z
    .string()
    .optional()
    .transform(parseTrustProxy)
    .refine(
      (value) => !Array.isArray(value) || compilesAsTrustList(value),
      'must be a hop count, true, false, or a comma-separated list of addresses, CIDRs, loopback, linklocal or uniquelocal',
    );

function parseTrustProxy(value: string | undefined): boolean | number | string[] | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const v = value.trim();
  if (v === 'true' || v === 'false') return v === 'true';
  if (/^\d+$/.test(v)) return Number(v);
  return v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function compilesAsTrustList(list: string[]): boolean {
  try {
    proxyaddr.compile(list);
    return true;
  } catch {
    return false;
  }
}

export const urlVar = (fallback: string, protocols: string[]) =>
  z
    .string()
    .default(fallback)
    .refine(
      (v) => {
        try {
          return protocols.includes(new URL(v).protocol);
        } catch {
          return false;
        }
      },
      `must be a ${protocols.join(' or ')} URL`,
    );

/**
 * The modes the code knows. Anything else is refused rather than read as development: a
 * `NODE_ENV=Production` or `prod` deployment would otherwise run without the production checks
 * (the development secrets refused, the admin token required).
 */
export const NODE_ENVS = ['development', 'test', 'production'] as const;

/**
 * Ceiling of SHUTDOWN_DEADLINE_MS and of every drain grace (SHUTDOWN_GRACE_MS): an hour. The
 * deadline derived from a grace adds a few seconds to it, which must stay a valid timer.
 */
export const MAX_SHUTDOWN_MS = 3_600_000;

/**
 * Whether a drain of `graceMs` fits SHUTDOWN_DEADLINE_MS (unset, the deadline follows the grace).
 * A deadline at or under the grace ends every drain that uses its grace with the forced exit
 * (code 1) instead of a clean stop: the schemas refuse it at start.
 */
export function drainFitsDeadline(
  config: Pick<CommonConfig, 'SHUTDOWN_DEADLINE_MS'>,
  graceMs: number,
): boolean {
  return config.SHUTDOWN_DEADLINE_MS === undefined || config.SHUTDOWN_DEADLINE_MS > graceMs;
}

/**
 * What is wrong with SWITCHYARD_ADMIN_TOKEN (trimmed, undefined when unset), if anything; the
 * gateway and the console check it alike. It is presented as `Authorization: Bearer <token>` (or
 * a Basic password, the dashboard's and the console login's), a header whose token ends at the
 * first space and whose bytes Node reads as Latin-1: a token with whitespace, a control character
 * or a non-ASCII one could never be presented, and every admin call would be refused.
 */
export function adminTokenProblem(token: string | undefined, production: boolean): string | undefined {
  if (token === undefined)
    return production ? 'SWITCHYARD_ADMIN_TOKEN: required when NODE_ENV=production' : undefined;
  if (token.length < 16) return 'SWITCHYARD_ADMIN_TOKEN: must be at least 16 characters';
  if (!/^[\x21-\x7e]+$/.test(token))
    return 'SWITCHYARD_ADMIN_TOKEN: must be printable ASCII without whitespace (it is sent as a Bearer token)';
  return undefined;
}

/** Settings every process shares. */
export const commonEnvSchema = z.object({
  /** development (default), test or production, exactly so (NODE_ENVS). */
  NODE_ENV: z.enum(NODE_ENVS, `must be one of ${NODE_ENVS.join(', ')} (lower case)`).default('development'),
  DATABASE_URL: urlVar('postgres://postgres@127.0.0.1:5432/switchyard', ['postgres:', 'postgresql:']),
  REDIS_URL: urlVar('redis://127.0.0.1:6379', ['redis:', 'rediss:']),
  /** Prefix (hash tag) of every Redis key; lets several deployments share one Redis. */
  SWITCHYARD_REDIS_PREFIX: z
    .string()
    .regex(/^[a-zA-Z0-9_-]+$/, 'letters, digits, - and _ only')
    .default('sy'),
  /** Encrypts secrets at rest (push credentials, webhook signing secrets). ≥ 16 characters. */
  SWITCHYARD_SECRET_KEY: z
    .string()
    .min(16, 'must be at least 16 characters')
    .default('switchyard-dev-secret-key-change-me'),
  /**
   * Keys secrets were sealed with before SWITCHYARD_SECRET_KEY (comma-separated, each ≥ 16
   * characters): they still open what they sealed; everything is sealed with the current key.
   */
  SWITCHYARD_SECRET_KEY_PREVIOUS: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((k) => k.trim())
        .filter((k) => k !== ''),
    )
    .refine((keys) => keys.every((k) => k.length >= 16), 'each key must be at least 16 characters'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * Whether metrics carry a `tenant` label (switchyard_tasks_created_total and the run-cap
   * counters). Turn it off when tenants number in the thousands: past 200 values a label reads
   * `other`, differently on each replica.
   */
  METRICS_TENANT_LABEL: boolVar(true),
  /** Postgres connections per process. */
  PG_POOL_MAX: intVar(10, 1, 500),
  /** How long an idle Postgres connection stays open, ms; 0 keeps it (see createPool). */
  PG_IDLE_TIMEOUT_MS: msVar(300_000, 0, 86_400_000),
  /** How long a call waits for a Postgres connection (new, or a busy pool's), ms; 0 forever. */
  PG_CONNECT_TIMEOUT_MS: msVar(10_000, 0, 600_000),
  /** How long a statement waits for Postgres's answer before its connection is dropped, ms; 0 forever. */
  PG_STATEMENT_TIMEOUT_MS: msVar(60_000, 0, 3_600_000),
  /** Distinct hot statements run as named prepared statements; 0 turns them off (old PgBouncer). */
  PG_PREPARED_STATEMENTS: intVar(64, 0, 10_000),
  /**
   * How far V8 lets the old generation grow past the live heap before the next full GC, in percent;
   * 0 leaves V8's own (up to 4x under allocation pressure). See process-resources.ts.
   */
  HEAP_GROWING_PERCENT: intVar(40, 0, 1000),
  /**
   * From SIGTERM, how long the drain may take before the process exits anyway (code 1, traces
   * flushed), in ms. Unset: the process's drain grace + 5 s (process-lifecycle.ts). Keep it, plus
   * 5 s for the trace flush, under the orchestrator's kill (terminationGracePeriodSeconds).
   */
  SHUTDOWN_DEADLINE_MS: z.coerce.number().int().min(1000).max(MAX_SHUTDOWN_MS).optional(),
});

export type CommonConfig = z.infer<typeof commonEnvSchema>;
