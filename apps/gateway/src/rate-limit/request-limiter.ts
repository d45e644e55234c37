import type { Redis } from 'ioredis';
import { resourceExhausted } from '@switchyard/protocol';
import type { QueueKeys } from '@switchyard/queue';
import type { Logger } from '@switchyard/telemetry';
import type { Identity } from '../http/request-state.ts';
import { SharedBudget, type BudgetDecision } from './shared-budget.ts';

export interface RequestLimiterOptions {
  redis: Redis;
  keys: QueueKeys;
  /** Requests per second per tenant. */
  tenantPerSec: number;
  /** Requests per second per credential (API key or JWT subject). */
  keyPerSec: number;
  log: Logger;
}

/** How often the limiter says it lets requests through unlimited. */
const WARN_EVERY_MS = 10_000;

/**
 * Per-tenant and per-credential request budgets shared by every replica (Redis; digest §9 rule 7,
 * ARCHITECTURE.md §3 rule 6). Over budget → ResourceExhausted with Retry-After. If Redis cannot be
 * asked, requests pass: the queue needs Redis anyway, and refusing all traffic because the limiter
 * is down would turn a degraded dependency into an outage. Most requests are decided in memory
 * from the replica's allotment (SharedBudget), without a Redis round trip.
 */
export class RequestLimiter {
  readonly #tenant: SharedBudget;
  readonly #key: SharedBudget;
  readonly #log: Logger;
  /** When the last "unavailable" warning went out, and the requests let through since. */
  #warnedAt = -Infinity;
  #passedSince = 0;

  constructor({ redis, keys, tenantPerSec, keyPerSec, log }: RequestLimiterOptions) {
    this.#tenant = new SharedBudget({ redis, prefix: keys.rateLimit('tenant'), perSec: tenantPerSec });
    this.#key = new SharedBudget({ redis, prefix: keys.rateLimit('key'), perSec: keyPerSec });
    this.#log = log;
  }

  async consume(identity: Identity): Promise<void> {
    const tenantId = identity.caller.tenantId;
    const tenant = this.#tenant.take(tenantId);
    const key = this.#key.take(identity.credentialId);
    let decisions: [BudgetDecision | undefined, BudgetDecision | undefined];
    let unavailable = false;
    let reason: unknown;
    if (tenant instanceof Promise || key instanceof Promise) {
      // Settled, not all: a budget known spent refuses even while the other cannot be asked.
      const settled = await Promise.allSettled([tenant, key]);
      decisions = [undefined, undefined];
      settled.forEach((one, i) => {
        if (one.status === 'fulfilled') decisions[i] = one.value;
        else [unavailable, reason] = [true, one.reason];
      });
    } else decisions = [tenant, key];
    const [byTenant, byKey] = decisions;
    if (byTenant?.ok === false || byKey?.ok === false) {
      // The request is refused: the budget that granted it a unit gets it back. Else one key over
      // its own budget would spend its tenant's on requests that never ran, and lock the tenant's
      // other keys out.
      if (byTenant?.ok) this.#tenant.giveBack(tenantId);
      if (byKey?.ok) this.#key.giveBack(identity.credentialId);
      const retryAfterMs = Math.max(...[byTenant, byKey].map((d) => (d?.ok === false ? d.retryAfterMs : 0)));
      throw resourceExhausted(Math.max(1, Math.ceil(retryAfterMs / 1000)));
    }
    if (unavailable) this.#warnUnavailable(reason);
  }

  /**
   * One line every WARN_EVERY_MS at most: while Redis is away or not answering, every request
   * whose allotment ran out gets here, and a line each would flood the log at the request rate.
   */
  #warnUnavailable(reason: unknown): void {
    this.#passedSince += 1;
    const now = performance.now();
    if (now - this.#warnedAt < WARN_EVERY_MS) return;
    this.#log.warn(
      { err: reason, passedWithoutLimit: this.#passedSince },
      'rate limiter unavailable; letting requests through',
    );
    this.#warnedAt = now;
    this.#passedSince = 0;
  }
}
