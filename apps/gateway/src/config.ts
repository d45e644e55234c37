import {
  adminTokenProblem,
  boolVar,
  cidrListVar,
  commonEnvSchema,
  ConfigError,
  drainFitsDeadline,
  intVar,
  listVar,
  MAX_SHUTDOWN_MS,
  msVar,
  parseEnv,
  trustProxyVar,
  z,
} from '@switchyard/runtime';

/** Used when SWITCHYARD_ADMIN_TOKEN is unset outside production; createGateway logs a warning. */
export const DEV_ADMIN_TOKEN = 'switchyard-dev-admin-token';

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

/** Exported for the tests that walk every setting (the timer bounds). */
export const gatewayEnvSchema = commonEnvSchema
  .extend({
    /** Listening port. Default 8080. */
    PORT: intVar(8080, 0, 65535),
    /**
     * Port of a second listener for /metrics, /healthz and /readyz. Set, /metrics is served there
     * only, so a PORT open to clients does not publish the platform's metrics; the probes stay on
     * PORT too, for load balancers. Unset (the default), /metrics is served on PORT.
     */
    GATEWAY_OPS_PORT: optionalString
      .transform((v) => (v === undefined ? undefined : Number(v)))
      .refine(
        (v) => v === undefined || (Number.isInteger(v) && v >= 0 && v <= 65535),
        'must be a port number (0-65535)',
      ),
    /** Origin clients reach the gateway at; cards advertise interface URLs under it. Default http://localhost:${PORT}. */
    PUBLIC_URL: optionalString,
    /**
     * Bearer token of the admin API (/admin/v1): at least 16 characters, printable ASCII without
     * whitespace. Required when NODE_ENV=production.
     */
    SWITCHYARD_ADMIN_TOKEN: optionalString,
    /** `tenant/agent` whose card `GET /.well-known/agent-card.json` serves. Default demo/echo. */
    SWITCHYARD_DEFAULT_AGENT: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]*\/[a-z0-9][a-z0-9-]*$/, 'must be tenant/agent')
      .default('demo/echo'),
    /** Largest request body, in bytes. Default 4 MiB. */
    BODY_LIMIT_BYTES: intVar(4 * 1024 * 1024, 1024),
    /**
     * Bytes of request bodies one gateway process holds at once, counted as they arrive; a body that
     * does not fit is refused (Unavailable, 503 with Retry-After). A body costs the gateway several
     * times its size while its request runs. Default 32 MiB; at least BODY_LIMIT_BYTES.
     */
    BODY_BYTES_IN_FLIGHT_MAX: intVar(32 * 1024 * 1024, 1024),
    /**
     * Most bytes of task JSON in one ListTasks page: the page ends before the task that would pass
     * it (with a nextPageToken), and a task alone over it comes with only the newest history that
     * fits. Default 4 MiB, as BODY_LIMIT_BYTES: the gateway holds a page several times over while it
     * answers. From 64 KiB (a task's metadata alone may take that) to 256 MiB.
     */
    LIST_TASKS_MAX_PAGE_BYTES: intVar(4 * 1024 * 1024, 64 * 1024, 256 * 1024 * 1024),
    /**
     * Most bytes of history JSON one task may hold: a send whose message would pass it (a first one too) is refused
     * with InvalidParams and changes nothing. Default 16 MiB; from 64 KiB to 1 GiB.
     */
    TASK_MAX_HISTORY_BYTES: intVar(16 * 1024 * 1024, 64 * 1024, 1024 ** 3),
    /** Ceiling of a blocking SendMessage, in ms; then the task is returned as it stands. Default 30000. */
    BLOCKING_TIMEOUT_MS: msVar(30_000, 0),
    /**
     * SSE keep-alive comment interval, in ms. Default 4000: a2a-python's default HTTP client
     * (httpx) gives up on a read after 5 s of silence, so a quiet task's stream must speak sooner.
     */
    SSE_HEARTBEAT_MS: msVar(4_000, 100),
    /** Bytes a slow SSE client may leave unread before its stream is cut. Default 1 MiB. */
    SSE_MAX_BUFFER_BYTES: intVar(1024 * 1024, 1024),
    /** Open SSE streams one gateway process holds; more get 429 with Retry-After. Default 10000. */
    SSE_MAX_STREAMS: intVar(10_000, 1),
    /** Open SSE streams one tenant holds on one gateway process; more get 429. Default 2000. */
    SSE_MAX_STREAMS_PER_TENANT: intVar(2_000, 1),
    /** Open SSE streams one API key or JWT subject may hold on this gateway process. Default 500. */
    SSE_MAX_STREAMS_PER_CREDENTIAL: intVar(500, 1),
    /**
     * Blocking SendMessage calls waiting at once on this gateway process, all tenants together;
     * more get 429 with Retry-After. Each reads the store on its poll: past this many they would
     * starve the Postgres pool for every other request. Default 4000.
     */
    BLOCKING_MAX_WAITS: intVar(4_000, 1),
    /**
     * Blocking SendMessage calls one tenant may have waiting at once on this gateway process; more
     * get 429 with Retry-After (returnImmediately sends are not counted). Default 2000.
     */
    BLOCKING_MAX_WAITS_PER_TENANT: intVar(2_000, 1),
    /** The same for one principal (an API key's or a JWT subject's). Default 500. */
    BLOCKING_MAX_WAITS_PER_PRINCIPAL: intVar(500, 1),
    /** TCP connections one gateway process accepts at once; more are refused at accept. Default 20000. */
    HTTP_MAX_CONNECTIONS: intVar(20_000, 1),
    /**
     * Time a client has to send a whole request, headers and body; past it the connection is
     * closed (408 if nothing was answered yet) and the body it held given back, so a client that
     * trickles bodies cannot hold the gateway's body budget. Streams are unaffected: their
     * request is whole before they start. Default 60000 (1 s to 1 h).
     */
    HTTP_REQUEST_TIMEOUT_MS: intVar(60_000, 1_000, 3_600_000),
    /** Error → HTTP status column (digest §12 #2): v1.0.1 (spec) or v1.0.0 (TCK 1.0-dev). */
    HTTP_ERROR_MAPPING: z.enum(['v1.0.1', 'v1.0.0']).default('v1.0.1'),
    /**
     * The card a request without `A2A-Version` gets. Default `1.0`: the official 1.0 SDKs (a2a-python,
     * a2a-dotnet) fetch the card without the header and parse it strictly, so a 0.3 card fails their
     * discovery. `0.3` serves the 0.3 card (1.0 interfaces embedded) there instead, as a2a-js's
     * compat layer does, for deployments whose clients are 0.3 SDKs. `A2A-Version: 0.3` always gets it.
     */
    CARD_VERSION_WITHOUT_HEADER: z.enum(['1.0', '0.3']).default('1.0'),
    /**
     * Media type of HTTP+JSON bodies (digest §12 #3): `application/a2a+json` (1.0.1, default) or
     * `application/json` (1.0.0, the TCK). Either way a client whose Accept names only
     * application/json gets application/json.
     */
    HTTP_JSON_MEDIA_TYPE: z
      .enum(['application/a2a+json', 'application/json'])
      .default('application/a2a+json'),
    /**
     * Requests per second per tenant. Default 1000: above what one small deployment serves (about
     * 500 tasks/s on two cores), so the budget stops a tenant flooding a shared cluster without
     * throttling one client below the platform's own capacity. Lower it per deployment for SaaS plans.
     */
    RATE_LIMIT_TENANT_PER_SEC: intVar(1000, 1),
    /** Requests per second per API key (or JWT subject). Default 500, so a tenant's keys share its budget. */
    RATE_LIMIT_KEY_PER_SEC: intVar(500, 1),
    /**
     * API key lookups from one client address (IPv6: its /64): failed ones per second, and ones in
     * flight, before its requests that need a lookup get 429 (keys already cached still work).
     * Default 20.
     */
    AUTH_FAILURES_PER_ADDRESS_PER_SEC: intVar(20, 1),
    /**
     * express's `trust proxy`: which proxies' X-Forwarded-For gives the client address, as a hop
     * count, `true`, or a comma list of addresses/CIDRs/`loopback`/`uniquelocal`. Default unset: the
     * socket's peer is the client.
     */
    TRUST_PROXY: trustProxyVar(),
    /** JWKS of the JWT issuer; JWT bearer auth is on when set. */
    JWT_JWKS_URL: optionalString.refine((v) => v === undefined || URL.canParse(v), 'must be a URL'),
    JWT_ISSUER: optionalString,
    JWT_AUDIENCE: optionalString,
    /** Claim naming the tenant. Default `tenant`. */
    JWT_TENANT_CLAIM: z.string().min(1).default('tenant'),
    /** Claim whose value `tenant_admin` makes the caller a tenant admin. Default `switchyard_role`. */
    JWT_ROLE_CLAIM: z.string().min(1).default('switchyard_role'),
    /**
     * Tokens minted to live longer than this many seconds (`exp - iat`, an `iat` in the future
     * counting as now, or without `iat` what is left of their life; a minute's slack for clocks) are
     * refused: a JWT cannot be revoked here, so it must not be a credential for longer. Default
     * 86400 (a day).
     */
    JWT_MAX_LIFETIME_SEC: intVar(86_400, 60),
    /** CIDRs webhooks may target although not public (tests: 127.0.0.0/8). Default none. */
    WEBHOOK_ALLOW_CIDRS: cidrListVar(),
    /** Allow plain http:// webhook URLs (set it as the pusher's, which refuses them otherwise). Default true. */
    WEBHOOK_ALLOW_HTTP: boolVar(true),
    /** Close SSE streams at INPUT_REQUIRED (digest §7.7). Default true. */
    STREAM_CLOSE_ON_INPUT_REQUIRED: boolVar(true),
    /** Close SSE streams at AUTH_REQUIRED (digest §7.7). Default false. */
    STREAM_CLOSE_ON_AUTH_REQUIRED: boolVar(false),
    /**
     * messageId is the idempotency key (a retry gets the first answer). Default true; false only for
     * conformance suites that reuse messageIds for new requests (the A2A TCK).
     */
    MESSAGE_ID_IDEMPOTENCY: boolVar(true),
    /**
     * Origins whose browser pages may call the A2A endpoints and read the agent cards (CORS), comma
     * separated (`https://app.example.com`), or `*` for any. Default none: no CORS headers.
     */
    CORS_ALLOW_ORIGINS: listVar(
      (o) => o === '*' || (URL.canParse(o) && new URL(o).origin === o),
      'must be * or a comma-separated list of origins (scheme://host[:port], no path or trailing slash)',
    ),
    /**
     * On SIGTERM, in-flight requests get this long before connections are cut, in ms. Default 10000;
     * at most an hour, and less than SHUTDOWN_DEADLINE_MS when that is set.
     */
    SHUTDOWN_GRACE_MS: msVar(10_000, 0, MAX_SHUTDOWN_MS),
  })
  .refine((c) => drainFitsDeadline(c, c.SHUTDOWN_GRACE_MS), {
    path: ['SHUTDOWN_DEADLINE_MS'],
    message: 'must be greater than SHUTDOWN_GRACE_MS',
  });

export type GatewayConfig = ReturnType<typeof loadGatewayConfig>;

/** Parses the gateway's environment once (STYLE.md rule 5); throws ConfigError naming bad variables. */
export function loadGatewayConfig(env: NodeJS.ProcessEnv) {
  const parsed = parseEnv(gatewayEnvSchema, env);
  const production = parsed.NODE_ENV === 'production';
  const tokenProblem = adminTokenProblem(parsed.SWITCHYARD_ADMIN_TOKEN, production);
  if (tokenProblem !== undefined) throw new ConfigError([tokenProblem]);
  // An identity provider issues tokens for many applications: without an audience (and an issuer)
  // to check, any token it issued for another one that carries a tenant claim would be accepted.
  if (production && parsed.JWT_JWKS_URL !== undefined) {
    const missing = (['JWT_AUDIENCE', 'JWT_ISSUER'] as const).filter((name) => parsed[name] === undefined);
    if (missing.length > 0)
      throw new ConfigError(
        missing.map((name) => `${name}: required with JWT_JWKS_URL when NODE_ENV=production`),
      );
  }
  if (parsed.BODY_BYTES_IN_FLIGHT_MAX < parsed.BODY_LIMIT_BYTES) {
    throw new ConfigError(['BODY_BYTES_IN_FLIGHT_MAX: must be at least BODY_LIMIT_BYTES']);
  }
  const publicUrl = (parsed.PUBLIC_URL ?? `http://localhost:${parsed.PORT}`).replace(/\/+$/, '');
  // Cards advertise interface URLs under it: a client can call an http(s) URL only.
  if (!isHttpUrl(publicUrl)) throw new ConfigError(['PUBLIC_URL: must be an http or https URL']);
  return Object.freeze({
    ...parsed,
    PUBLIC_URL: publicUrl,
    SWITCHYARD_ADMIN_TOKEN: parsed.SWITCHYARD_ADMIN_TOKEN ?? DEV_ADMIN_TOKEN,
    adminTokenIsDefault: parsed.SWITCHYARD_ADMIN_TOKEN === undefined,
    jwtEnabled: parsed.JWT_JWKS_URL !== undefined,
  });
}

function isHttpUrl(value: string): boolean {
  return URL.canParse(value) && ['http:', 'https:'].includes(new URL(value).protocol);
}
