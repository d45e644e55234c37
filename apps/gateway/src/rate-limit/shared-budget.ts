import type { Redis } from 'ioredis';

/** What a budget says about one request. */
export type BudgetDecision = { ok: true } | { ok: false; retryAfterMs: number };

const PASS: BudgetDecision = { ok: true };

/** A window's count is dropped this long after its first allotment: budgets are per second. */
const WINDOW_MS = 1000;

/** Local allotments kept before expired ones are swept (each lives one window at most). */
const SWEEP_AT = 10_000;

/**
 * Takes up to ARGV[1] units for one window of KEYS[1], capped at ARGV[2] in all; the count keeps
 * only what was granted, so it never passes the cap. Returns {granted, ms left in the window}.
 * The counter is the same INCRBY-with-expiry shape rate-limiter-flexible kept under these keys.
 */
const TAKE_ALLOTMENT = `
local want = tonumber(ARGV[1])
local n = redis.call('INCRBY', KEYS[1], want)
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  ttl = tonumber(ARGV[3])
end
local over = n - tonumber(ARGV[2])
if over <= 0 then return {want, ttl} end
local granted = math.max(0, want - over)
redis.call('DECRBY', KEYS[1], want - granted)
return {granted, ttl}`;

interface AllotmentCommands {
  syTakeAllotment(key: string, want: number, cap: number, windowMs: number): Promise<[number, number]>;
}

interface Allotment {
  /** Units of this window still to hand out here. */
  left: number;
  /** When the window ends (this process's clock): the allotment expires with it. */
  until: number;
}

/**
 * A per-second request budget shared by every replica through one Redis counter per key, handed
 * out in allotments: a replica takes a share of the window's budget (a twentieth, at least one)
 * and decides that many requests in memory, so most requests cost no Redis round trip. The
 * counter only ever counts what was handed out, so all the replicas together never pass the
 * budget; a replica's unspent allotment can refuse another's requests a little early in a window,
 * at most a twentieth of the budget each. A budget under 40 is asked per request, exactly.
 */
export class SharedBudget {
  readonly #redis: Redis & AllotmentCommands;
  readonly #prefix: string;
  readonly #perSec: number;
  readonly #allotment: number;
  readonly #local = new Map<string, Allotment>();
  /** One Redis ask per key at a time; the requests that need it wait for it together. */
  readonly #asking = new Map<string, Promise<void>>();

  constructor({ redis, prefix, perSec }: { redis: Redis; prefix: string; perSec: number }) {
    if (!('syTakeAllotment' in redis)) {
      redis.defineCommand('syTakeAllotment', { numberOfKeys: 1, lua: TAKE_ALLOTMENT });
    }
    this.#redis = redis as Redis & AllotmentCommands;
    this.#prefix = prefix;
    this.#perSec = perSec;
    this.#allotment = Math.max(1, Math.floor(perSec / 20));
  }

  /**
   * Takes one unit of `id`'s budget: at once (no promise) from this replica's allotment, else
   * after asking Redis for another. Rejects when Redis cannot be asked; the caller decides.
   */
  take(id: string): BudgetDecision | Promise<BudgetDecision> {
    const now = Date.now();
    const held = this.#local.get(id);
    if (held && held.until > now) {
      if (held.left > 0) {
        held.left -= 1;
        return PASS;
      }
      // The window's whole budget is handed out (a refill found none left): refused until it ends.
      if (held.left < 0) return { ok: false, retryAfterMs: held.until - now };
    }
    return this.#refill(id).then(() => this.take(id));
  }

  #refill(id: string): Promise<void> {
    const asking = this.#asking.get(id);
    if (asking) return asking;
    if (this.#redis.status !== 'ready') {
      // A connection that lost Redis queues commands until it is back: do not wait for that.
      return Promise.reject(new Error(`Redis connection is ${this.#redis.status}`));
    }
    const ask = this.#redis
      .syTakeAllotment(`${this.#prefix}:${id}`, this.#allotment, this.#perSec, WINDOW_MS)
      .then(([granted, ttl]) => {
        if (this.#local.size >= SWEEP_AT) this.#sweep();
        // None left: a negative count marks the window spent, so later requests are refused here.
        this.#local.set(id, { left: granted > 0 ? granted : -1, until: Date.now() + ttl });
      })
      .finally(() => this.#asking.delete(id));
    this.#asking.set(id, ask);
    return ask;
  }

  #sweep(): void {
    const now = Date.now();
    for (const [id, held] of this.#local) if (held.until <= now) this.#local.delete(id);
  }
}
