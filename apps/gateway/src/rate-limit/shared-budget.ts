import type { Redis } from 'ioredis';
import { isRedisAway } from '@switchyard/queue';

/** What a budget says about one request. */
export type BudgetDecision = { ok: true } | { ok: false; retryAfterMs: number };

const PASS: BudgetDecision = { ok: true };

/** A window's count is dropped this long after its first allotment: budgets are per second. */
const WINDOW_MS = 1000;

/** Local allotments kept before expired ones are first swept (each lives one window at most). */
const SWEEP_AT = 10_000;

/** A monotonic clock: a stepped wall clock must not stretch a window held in memory. */
const now = () => performance.now();

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
  /** The shared count is at the budget: once `left` is used up, refuse until the window ends. */
  spent: boolean;
  /** When the window ends (`now()`), at the latest: the allotment expires with it. */
  until: number;
}

interface Ask {
  /** Requests waiting for this allotment: it asks for at least that many. */
  demand: number;
  done: Promise<Allotment>;
}

/**
 * A per-second request budget shared by every replica through one Redis counter per key, handed
 * out in allotments: a replica takes a share of the window's budget (a twentieth, at least one,
 * or as many as requests wait for it) and decides that many requests in memory, so most requests
 * cost no Redis round trip. The counter only ever counts what was handed out, so all the replicas
 * together never pass the budget; a replica's unspent allotment can refuse another's requests a
 * little early in a window, at most a twentieth of the budget each (none under 40 a second).
 */
export class SharedBudget {
  readonly #redis: Redis & AllotmentCommands;
  readonly #prefix: string;
  readonly #perSec: number;
  readonly #allotment: number;
  readonly #local = new Map<string, Allotment>();
  /** One Redis ask per key at a time; the requests that need it wait for it together. */
  readonly #asking = new Map<string, Ask>();
  #sweepAt = SWEEP_AT;

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
    const held = this.#local.get(id);
    if (held && held.until > now()) return this.#takeFrom(held, id);
    return this.#refill(id).then((allotment) => this.#takeFrom(allotment, id));
  }

  /**
   * Gives back a unit `take` granted to a request that was refused all the same (by another
   * budget): a refused request must not spend this one. A unit of a window that has ended is not
   * given back; that window is gone.
   */
  giveBack(id: string): void {
    const held = this.#local.get(id);
    if (held && held.until > now()) held.left += 1;
  }

  /**
   * One unit from `held`. The waiters of an ask take from the allotment it brought whatever the
   * clock says since: a reply slower than the window would otherwise expire every allotment on
   * arrival, and its waiters would ask again and again.
   */
  #takeFrom(held: Allotment, id: string): BudgetDecision | Promise<BudgetDecision> {
    if (held.left > 0) {
      held.left -= 1;
      return PASS;
    }
    // The window's whole budget is handed out: refused until it ends.
    if (held.spent) return { ok: false, retryAfterMs: Math.max(1, held.until - now()) };
    return this.#refill(id).then((allotment) => this.#takeFrom(allotment, id));
  }

  #refill(id: string): Promise<Allotment> {
    // A connection that lost Redis queues commands until it is back: do not wait for that, nor
    // for an ask already caught in it.
    if (this.#redis.status !== 'ready' || isRedisAway(this.#redis)) {
      return Promise.reject(
        new Error(`Redis connection is ${this.#redis.status}, or Redis is not answering`),
      );
    }
    let ask = this.#asking.get(id);
    if (!ask) {
      const pending = { demand: 0 } as Ask;
      // Sent a microtask later, sized by every request that needs it by then: when an allotment
      // runs out under a burst, its leftover waiters re-enter together and share one ask.
      pending.done = Promise.resolve()
        .then(() => this.#ask(id, Math.max(this.#allotment, pending.demand)))
        .finally(() => this.#asking.delete(id));
      this.#asking.set(id, pending);
      ask = pending;
    }
    ask.demand += 1;
    return ask.done;
  }

  async #ask(id: string, want: number): Promise<Allotment> {
    // The window's end is counted from before the ask: never later than Redis's own.
    const asked = now();
    const [granted, ttl] = await this.#redis.syTakeAllotment(
      `${this.#prefix}:${id}`,
      want,
      this.#perSec,
      WINDOW_MS,
    );
    if (this.#local.size >= this.#sweepAt) this.#sweep();
    // Less than asked for: the count reached the budget, so this window has no more to give.
    const allotment = { left: granted, spent: granted < want, until: asked + ttl };
    this.#local.set(id, allotment);
    return allotment;
  }

  #sweep(): void {
    const at = now();
    for (const [id, held] of this.#local) if (held.until <= at) this.#local.delete(id);
    // Many live ids: the next sweep waits for the map to double, so sweeps stay amortized.
    this.#sweepAt = Math.max(SWEEP_AT, this.#local.size * 2);
  }
}
