import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import {
  boolVar,
  cidrListVar,
  commonEnvSchema,
  drainFitsDeadline,
  intVar,
  msVar,
  parseEnv,
  REDIS_CLOSE_TIMEOUT_MS,
  z,
} from '@switchyard/runtime';
import { PUSH_DRAIN_EXTRA_MS, type PusherSettings } from './create-pusher.ts';

/**
 * What PUSH_LOCK_MS must leave beyond PUSH_TIMEOUT_MS: sends start at most half of it (at most a
 * second) before the lock's last timeout-long stretch, so a claim has at least a second to begin.
 */
export const MIN_LOCK_SLACK_MS = 2000;

/** Exported for the tests that walk every setting (the timer bounds). */
export const pusherEnvSchema = commonEnvSchema
  .extend({
    /**
     * Deliveries sent at once by this process. Default 64: a POST in flight is a socket and a few
     * KB, and with the default caps below one tenant or receiver still gets 16 of them.
     */
    PUSHER_CONCURRENCY: intVar(64, 1, 1000),
    /**
     * Most deliveries of one tenant this process sends at once, so a tenant with slow webhooks
     * cannot hold every slot. Default a quarter of PUSHER_CONCURRENCY, at least 1.
     */
    PUSHER_MAX_IN_FLIGHT_PER_TENANT: optionalCap(),
    /**
     * Most deliveries to one receiver host:port this process sends at once. Default half the
     * tenant cap, at least 1: one tenant's hanging receiver leaves its other receivers slots.
     */
    PUSHER_MAX_IN_FLIGHT_PER_HOST: optionalCap(),
    /** Whole-attempt timeout per POST (connect, headers, body), in ms. Default 10000 (spec: 10–30 s). */
    PUSH_TIMEOUT_MS: msVar(10_000, 100, 120_000),
    /**
     * Attempts per delivery (the first send included) before it is dead-lettered. Default 16: with
     * the backoff below, a receiver may be away for about 20 minutes (at most 38) before its
     * deliveries are dead-lettered, enough to ride out a deploy or a short outage.
     */
    PUSH_MAX_ATTEMPTS: intVar(16, 1, 100),
    /** Backoff ceiling of the first retry, in ms; doubles per attempt, full jitter. Default 1000. */
    PUSH_RETRY_BASE_MS: msVar(1000, 1),
    /** Largest backoff ceiling, in ms. Default 300000 (5 min). */
    PUSH_RETRY_MAX_MS: msVar(300_000, 1),
    /** How long a claim holds before another pusher may retry it, in ms. At least PUSH_TIMEOUT_MS + 2000. Default 60000. */
    PUSH_LOCK_MS: msVar(60_000, 100),
    /** Fallback poll when no wake-up arrives on the Redis push channel, in ms. Default 1000. */
    PUSH_POLL_MS: msVar(1000, 10, 60_000),
    /** Non-public ranges webhooks may still reach (comma list of CIDRs). Default none. */
    WEBHOOK_ALLOW_CIDRS: cidrListVar(),
    /** Allow plain http:// webhook URLs. Default true. */
    WEBHOOK_ALLOW_HTTP: boolVar(true),
    /** Port of /healthz, /readyz and /metrics (0 picks a free one). Default 9092. */
    PUSHER_OPS_PORT: intVar(9092, 0, 65535),
    /** Claim owner id; unique per process. Default host:pid:random. */
    PUSHER_ID: z
      .string()
      .min(1)
      .default(() => `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`),
  })
  // A claim that lapses while its POST is still running lets a second pusher send the same
  // delivery in parallel, which breaks per-task order; the lock must outlive the timeout. A send
  // may start only while a whole timeout still fits in the lock, and the claim's own round trips
  // come first (create-pusher.ts): with less slack than this, every claim would expire unsent.
  .refine((c) => c.PUSH_LOCK_MS >= c.PUSH_TIMEOUT_MS + MIN_LOCK_SLACK_MS, {
    path: ['PUSH_LOCK_MS'],
    message: `must be at least PUSH_TIMEOUT_MS + ${MIN_LOCK_SLACK_MS}`,
  })
  .refine((c) => c.PUSH_RETRY_MAX_MS >= c.PUSH_RETRY_BASE_MS, {
    path: ['PUSH_RETRY_MAX_MS'],
    message: 'must be at least PUSH_RETRY_BASE_MS',
  })
  // A cap above the concurrency caps nothing: most likely one of the two was mistyped.
  .refine((c) => (c.PUSHER_MAX_IN_FLIGHT_PER_TENANT ?? 0) <= c.PUSHER_CONCURRENCY, {
    path: ['PUSHER_MAX_IN_FLIGHT_PER_TENANT'],
    message: 'must be at most PUSHER_CONCURRENCY',
  })
  .refine((c) => (c.PUSHER_MAX_IN_FLIGHT_PER_HOST ?? 0) <= c.PUSHER_CONCURRENCY, {
    path: ['PUSHER_MAX_IN_FLIGHT_PER_HOST'],
    message: 'must be at most PUSHER_CONCURRENCY',
  })
  // The pusher's drain gives its wake-up channel up to 2 s, then sends in flight up to
  // PUSH_TIMEOUT_MS + 5 s (create-pusher.ts): a deadline inside it would end every drain with a
  // send in flight in the forced exit.
  .refine((c) => drainFitsDeadline(c, c.PUSH_TIMEOUT_MS + PUSH_DRAIN_EXTRA_MS + REDIS_CLOSE_TIMEOUT_MS), {
    path: ['SHUTDOWN_DEADLINE_MS'],
    message: `must be greater than PUSH_TIMEOUT_MS + ${PUSH_DRAIN_EXTRA_MS + REDIS_CLOSE_TIMEOUT_MS} (the drain)`,
  });

/** A per-tenant or per-host cap; unset, it defaults to a share of the concurrency (loadPusherConfig). */
function optionalCap() {
  return z.coerce.number().int().min(1).max(1000).optional();
}

/**
 * A quarter of the slots, at least one: a tenant (or receiver) whose every POST runs into the
 * timeout holds at most that many, and the other three quarters keep serving everyone else.
 */
function defaultShare(concurrency: number): number {
  return Math.max(1, Math.floor(concurrency / 4));
}

export type PusherConfig = ReturnType<typeof loadPusherConfig>;

/** Parses and freezes the pusher's environment; throws ConfigError naming every bad variable. */
export function loadPusherConfig(env: NodeJS.ProcessEnv) {
  const config = parseEnv(pusherEnvSchema, env);
  const perTenant = config.PUSHER_MAX_IN_FLIGHT_PER_TENANT ?? defaultShare(config.PUSHER_CONCURRENCY);
  return Object.freeze({
    ...config,
    PUSHER_MAX_IN_FLIGHT_PER_TENANT: perTenant,
    // Below the tenant's cap: at the same cap one hanging host could hold all of a tenant's slots.
    PUSHER_MAX_IN_FLIGHT_PER_HOST:
      config.PUSHER_MAX_IN_FLIGHT_PER_HOST ?? Math.max(1, Math.floor(perTenant / 2)),
  });
}

/** The createPusher settings a parsed environment stands for. */
export function pusherSettings(config: PusherConfig): PusherSettings {
  return {
    workerId: config.PUSHER_ID,
    concurrency: config.PUSHER_CONCURRENCY,
    maxInFlightPerTenant: config.PUSHER_MAX_IN_FLIGHT_PER_TENANT,
    maxInFlightPerHost: config.PUSHER_MAX_IN_FLIGHT_PER_HOST,
    timeoutMs: config.PUSH_TIMEOUT_MS,
    lockMs: config.PUSH_LOCK_MS,
    pollMs: config.PUSH_POLL_MS,
    retry: {
      maxAttempts: config.PUSH_MAX_ATTEMPTS,
      baseMs: config.PUSH_RETRY_BASE_MS,
      maxMs: config.PUSH_RETRY_MAX_MS,
    },
    policy: { allowCidrs: config.WEBHOOK_ALLOW_CIDRS, allowHttp: config.WEBHOOK_ALLOW_HTTP },
  };
}
