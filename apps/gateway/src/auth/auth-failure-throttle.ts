import { isIPv6 } from 'node:net';
import { resourceExhausted } from '@switchyard/protocol';

/** A key lookup the throttle let through; `end` says how it went. */
export interface LookupTicket {
  end(failed: boolean): void;
}

/**
 * Store lookups of API keys per client address. A key nobody has seen is a Postgres lookup, so a
 * client trying random keys would make every request a query. Per address, at most `perSecond`
 * lookups may be in flight at once, and once `perSecond` of them failed in the current second,
 * its requests that need a lookup are answered 429 (Retry-After 1) without one. Keys already
 * known (cached) still work from that address. With a proxy in front, set TRUST_PROXY so the
 * address is the client's: otherwise every client shares the proxy's, and one flooding client
 * makes everyone's uncached keys wait. IPv6 clients are counted by /64, the block one host gets.
 */
export class AuthFailureThrottle {
  readonly #perSecond: number;
  readonly #maxAddresses: number;
  readonly #windows = new Map<string, { second: number; failures: number; inFlight: number }>();
  readonly #now: () => number;
  readonly #refusal: string;

  constructor({
    perSecond,
    maxAddresses = 10_000,
    now = Date.now,
    refusal = 'Too many failed authentications from this address; retry shortly',
  }: {
    perSecond: number;
    maxAddresses?: number;
    /** The 429's message: what this address did too often. */
    refusal?: string;
    /** The clock, in ms (tests). */
    now?: () => number;
  }) {
    this.#perSecond = perSecond;
    this.#maxAddresses = maxAddresses;
    this.#refusal = refusal;
    this.#now = now;
  }

  /** Lets a lookup from `address` go ahead, or throws ResourceExhausted (429). */
  beginLookup(address: string | undefined): LookupTicket {
    const key = addressKey(address);
    const window = this.#window(key);
    if (window.failures >= this.#perSecond || window.inFlight >= this.#perSecond)
      throw resourceExhausted(1, this.#refusal);
    window.inFlight += 1;
    let ended = false;
    return {
      end: (failed) => {
        if (ended) return;
        ended = true;
        // The current entry: a new second's carries the lookups still in flight (and an evicted
        // address starts again from none).
        const current = this.#window(key);
        current.inFlight = Math.max(0, current.inFlight - 1);
        if (failed) current.failures += 1;
      },
    };
  }

  #window(key: string) {
    const second = Math.floor(this.#now() / 1000);
    let window = this.#windows.get(key);
    if (window && window.second === second) return window;
    // A new second: failures start again, lookups in flight carry over.
    const inFlight = window?.inFlight ?? 0;
    // Re-inserted, so the map's order is by last use and the stalest address goes first.
    this.#windows.delete(key);
    if (this.#windows.size >= this.#maxAddresses) this.#windows.delete(this.#windows.keys().next().value!);
    window = { second, failures: 0, inFlight };
    this.#windows.set(key, window);
    return window;
  }
}

/** The address as counted: IPv4 as is (also when IPv4-mapped), IPv6 by its /64 prefix. */
export function addressKey(address: string | undefined): string {
  if (address === undefined) return '';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!isIPv6(address)) return address;
  const [head = '', tail] = address.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
