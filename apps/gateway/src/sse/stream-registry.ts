import { resourceExhausted } from '@switchyard/protocol';
import type { StreamMetrics } from '@switchyard/telemetry';

/**
 * The SSE streams this gateway holds, so shutdown can end each with a final comment instead of
 * cutting the connection (clients then resume with Last-Event-ID on another replica). It also
 * keeps the SSE connection gauge and event counter.
 */
export interface StreamLimits {
  /** Open streams this gateway process holds at most. */
  perGateway: number;
  /** Open streams one tenant holds at most on this gateway process. */
  perTenant: number;
}

const UNLIMITED: StreamLimits = { perGateway: Infinity, perTenant: Infinity };

export class StreamRegistry {
  readonly #open = new Set<(reason: string) => void>();
  readonly #metrics: StreamMetrics | undefined;
  readonly #limits: StreamLimits;
  /** Streams reserved per tenant (a reservation is taken before any work is accepted). */
  readonly #perTenant = new Map<string, number>();
  #reserved = 0;

  constructor(metrics?: StreamMetrics, limits: StreamLimits = UNLIMITED) {
    this.#metrics = metrics;
    this.#limits = limits;
  }

  /**
   * Takes a stream slot for `tenantId`, before the request creates a task or subscribes, so a
   * refused stream changes nothing. Over a limit: ResourceExhausted (HTTP 429, Retry-After), as for
   * rate limits. Call the returned function once the stream has ended.
   */
  reserve(tenantId: string): () => void {
    const held = this.#perTenant.get(tenantId) ?? 0;
    if (this.#reserved >= this.#limits.perGateway)
      throw resourceExhausted(1, 'This gateway holds its maximum of open streams; retry shortly');
    if (held >= this.#limits.perTenant)
      throw resourceExhausted(1, 'Too many open streams for this tenant; close one or retry shortly');
    this.#reserved++;
    this.#perTenant.set(tenantId, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#reserved--;
      const now = (this.#perTenant.get(tenantId) ?? 1) - 1;
      if (now === 0) this.#perTenant.delete(tenantId);
      else this.#perTenant.set(tenantId, now);
    };
  }

  add(close: (reason: string) => void): () => void {
    this.#open.add(close);
    this.#metrics?.opened();
    return () => {
      if (this.#open.delete(close)) this.#metrics?.closed();
    };
  }

  /** One event written to a stream. */
  sent(): void {
    this.#metrics?.events(1);
  }

  closeAll(reason: string): void {
    for (const close of [...this.#open]) close(reason);
  }

  get size(): number {
    return this.#open.size;
  }
}
