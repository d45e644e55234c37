import type { StreamMetrics } from '@switchyard/telemetry';

/**
 * The SSE streams this gateway holds, so shutdown can end each with a final comment instead of
 * cutting the connection (clients then resume with Last-Event-ID on another replica). It also
 * keeps the SSE connection gauge and event counter.
 */
export class StreamRegistry {
  readonly #open = new Set<(reason: string) => void>();
  readonly #metrics: StreamMetrics | undefined;

  constructor(metrics?: StreamMetrics) {
    this.#metrics = metrics;
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
