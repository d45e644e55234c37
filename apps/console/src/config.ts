import {
  adminTokenProblem,
  commonEnvSchema,
  ConfigError,
  drainFitsDeadline,
  intVar,
  MAX_SHUTDOWN_MS,
  msVar,
  parseEnv,
  trustProxyVar,
  urlVar,
  z,
} from '@switchyard/runtime';

/** Used when SWITCHYARD_ADMIN_TOKEN is unset outside production; createConsole logs a warning. */
export const DEV_ADMIN_TOKEN = 'switchyard-dev-admin-token';

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

/** Exported for the tests that walk every setting (the timer bounds). */
export const consoleEnvSchema = commonEnvSchema
  .extend({
    /** Listening port. Default 8090. */
    CONSOLE_PORT: intVar(8090, 0, 65535),
    /**
     * The admin credential, the same one the gateway's admin API takes. Required when
     * NODE_ENV=production; at least 16 characters, printable ASCII without whitespace.
     */
    SWITCHYARD_ADMIN_TOKEN: optionalString,
    /** The tracing backend's UI (Jaeger); a task links to its search by `switchyard.task_id`. */
    TRACE_UI_URL: urlVar('http://localhost:16686', ['http:', 'https:']),
    /** Service whose spans the trace search starts from. Default switchyard-gateway. */
    TRACE_SERVICE_NAME: z.string().min(1).default('switchyard-gateway'),
    /** Where clients reach the gateway; agent card links point under it. Default http://localhost:8080. */
    GATEWAY_PUBLIC_URL: urlVar('http://localhost:8080', ['http:', 'https:']),
    /** Lifetime of a console login, in ms. Default 12 hours; at most 2147483647 (24.8 days). */
    // An age (the cookie's max-age and the session's expiry time), not a timer: up to ten years.
    CONSOLE_SESSION_TTL_MS: intVar(12 * 3_600_000, 60_000, 10 * 365 * 86_400_000),
    /** Mark the session cookie Secure (HTTPS only). Default true when NODE_ENV=production. */
    CONSOLE_SECURE_COOKIE: z
      .enum(['true', 'false', '1', '0', 'yes', 'no'])
      .optional()
      .transform((v) => (v === undefined ? undefined : v === 'true' || v === '1' || v === 'yes')),
    /**
     * express's `trust proxy`, as on the gateway: which proxies' X-Forwarded-For and
     * X-Forwarded-Host to believe. The console logs the client address of every sign-in, and a
     * form it accepts must come from the host the browser sees (X-Forwarded-Host behind a proxy
     * that rewrites Host). Default unset: the socket's peer is the client.
     */
    TRUST_PROXY: trustProxyVar(),
    /** How often live pages re-read push deliveries and a context's task list, in ms. Default 2000. */
    CONSOLE_LIVE_POLL_MS: msVar(2000, 50),
    /** SSE keep-alive comment interval, in ms. Default 15000. */
    CONSOLE_SSE_HEARTBEAT_MS: msVar(15_000, 100),
    /**
     * On SIGTERM, in-flight requests get this long before connections are cut, in ms. Default 5000;
     * at most an hour, and less than SHUTDOWN_DEADLINE_MS when that is set.
     */
    SHUTDOWN_GRACE_MS: msVar(5000, 0, MAX_SHUTDOWN_MS),
  })
  .refine((c) => drainFitsDeadline(c, c.SHUTDOWN_GRACE_MS), {
    path: ['SHUTDOWN_DEADLINE_MS'],
    message: 'must be greater than SHUTDOWN_GRACE_MS',
  });

export type ConsoleConfig = ReturnType<typeof loadConsoleConfig>;

/** Parses the console's environment once (STYLE.md rule 5); throws ConfigError naming bad variables. */
export function loadConsoleConfig(env: NodeJS.ProcessEnv) {
  const parsed = parseEnv(consoleEnvSchema, env);
  const production = parsed.NODE_ENV === 'production';
  // It is the gateway's admin token too: checked alike, so that one the gateway refuses at start
  // does not get as far as the console's login before it is found out.
  const tokenProblem = adminTokenProblem(parsed.SWITCHYARD_ADMIN_TOKEN, production);
  if (tokenProblem !== undefined) throw new ConfigError([tokenProblem]);
  return Object.freeze({
    ...parsed,
    TRACE_UI_URL: parsed.TRACE_UI_URL.replace(/\/+$/, ''),
    GATEWAY_PUBLIC_URL: parsed.GATEWAY_PUBLIC_URL.replace(/\/+$/, ''),
    CONSOLE_SECURE_COOKIE: parsed.CONSOLE_SECURE_COOKIE ?? production,
    SWITCHYARD_ADMIN_TOKEN: parsed.SWITCHYARD_ADMIN_TOKEN ?? DEV_ADMIN_TOKEN,
    adminTokenIsDefault: parsed.SWITCHYARD_ADMIN_TOKEN === undefined,
  });
}
