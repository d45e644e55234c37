import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { resourceExhausted } from '@switchyard/protocol';
import type { QueueKeys } from '@switchyard/queue';
import type { Logger } from '@switchyard/telemetry';
import type { Identity } from '../http/request-state.ts';

export interface RequestLimiterOptions {
  redis: Redis;
  keys: QueueKeys;
  /** Requests per second per tenant. */
  tenantPerSec: number;
  /** Requests per second per credential (API key or JWT subject). */
  keyPerSec: number;
  log: Logger;
}

/**
 * Per-tenant and per-credential request budgets shared by every replica (Redis; digest §9 rule 7,
 * ARCHITECTURE.md §3 rule 6). Over budget → ResourceExhausted with Retry-After. If Redis cannot be
 * asked, requests pass: the queue needs Redis anyway, and refusing all traffic because the limiter
 * is down would turn a degraded dependency into an outage.
 */
export class RequestLimiter {
  readonly #tenant: RateLimiterRedis;
  readonly #key: RateLimiterRedis;
  readonly #log: Logger;

  constructor({ redis, keys, tenantPerSec, keyPerSec, log }: RequestLimiterOptions) {
    // Not ready (reconnecting) → refuse to ask at once: the connection queues commands until
    // Redis is back, and every request would wait for it.
    this.#tenant = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: keys.rateLimit('tenant'),
      points: tenantPerSec,
      duration: 1,
      rejectIfRedisNotReady: true,
    });
    this.#key = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: keys.rateLimit('key'),
      points: keyPerSec,
      duration: 1,
      rejectIfRedisNotReady: true,
    });
    this.#log = log;
  }

  async consume(identity: Identity): Promise<void> {
    try {
      await Promise.all([
        this.#tenant.consume(identity.caller.tenantId),
        this.#key.consume(identity.credentialId),
      ]);
    } catch (err) {
      if (err instanceof RateLimiterRes)
        throw resourceExhausted(Math.max(1, Math.ceil(err.msBeforeNext / 1000)));
      this.#log.warn({ err }, 'rate limiter unavailable; letting the request through');
    }
  }
}
