import type { Rng } from './rng.ts';
import { sleep } from './free-port.ts';
import { RpcError, type Endpoint } from './a2a-http.ts';

/** What every chaos client shares: the gateways (any may be down), its RNG, its patience. */
export interface ClientDeps {
  endpoints: readonly Endpoint[];
  rng: Rng;
  /** How long one request is retried before the client gives up (a liveness violation). */
  requestBudgetMs: number;
  /** Answered requests by operation and binding, for the report. */
  calls: Record<string, number>;
}

export function tally(d: ClientDeps, call: string): void {
  d.calls[call] = (d.calls[call] ?? 0) + 1;
}

export class GaveUpError extends Error {}

/**
 * Retries `call` on a random gateway, with the same request body, until it answers or the
 * budget is spent. Only `definitive` errors (an answer the caller expects) end it early.
 */
export async function retrying<T>(
  d: ClientDeps,
  what: string,
  call: (endpoint: Endpoint) => Promise<T>,
  { definitive = [], onAttempt }: { definitive?: number[]; onAttempt?: () => void } = {},
): Promise<T> {
  const deadline = Date.now() + d.requestBudgetMs;
  for (let attempt = 0; ; attempt++) {
    onAttempt?.();
    try {
      return await call(d.rng.pick(d.endpoints));
    } catch (err) {
      if (err instanceof RpcError && definitive.includes(err.code)) throw err;
      if (Date.now() > deadline)
        throw new GaveUpError(`${what}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      await sleep(d.rng.next() * Math.min(1000, 50 * 2 ** attempt));
    }
  }
}
