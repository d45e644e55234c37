import { resourceExhausted } from '@switchyard/protocol';

/**
 * Failed authentications per client address, in one-second windows. A key nobody has seen is a
 * Postgres lookup, so a client trying random keys would make every request a query: once an
 * address has failed `perSecond` times in the current second, its requests that would need a
 * lookup are answered 429 (Retry-After 1) without one. Keys already known (cached) still work from
 * that address, so clients sharing it behind a proxy keep working; with a proxy in front, set
 * TRUST_PROXY so the address is the client's, not the proxy's.
 */
export class AuthFailureThrottle {
  readonly #perSecond: number;
  readonly #maxAddresses: number;
  readonly #windows = new Map<string, { second: number; failures: number }>();
  readonly #now: () => number;

  constructor({
    perSecond,
    maxAddresses = 10_000,
    now = Date.now,
  }: {
    perSecond: number;
    maxAddresses?: number;
    /** The clock, in ms (tests). */
    now?: () => number;
  }) {
    this.#perSecond = perSecond;
    this.#maxAddresses = maxAddresses;
    this.#now = now;
  }

  /** Throws ResourceExhausted when `address` used up its failures for this second. */
  assertMayLookUp(address: string | undefined): void {
    const window = this.#windows.get(address ?? '');
    if (window && window.second === this.#second() && window.failures >= this.#perSecond)
      throw resourceExhausted(1, 'Too many failed authentications from this address; retry shortly');
  }

  #second(): number {
    return Math.floor(this.#now() / 1000);
  }

  recordFailure(address: string | undefined): void {
    const key = address ?? '';
    const second = this.#second();
    const window = this.#windows.get(key);
    if (window && window.second === second) {
      window.failures += 1;
      return;
    }
    // Re-inserted, so the map's order is by last failure and the stalest address goes first.
    this.#windows.delete(key);
    if (this.#windows.size >= this.#maxAddresses) this.#windows.delete(this.#windows.keys().next().value!);
    this.#windows.set(key, { second, failures: 1 });
  }
}
