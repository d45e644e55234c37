/**
 * The SSE streams this gateway holds, so shutdown can end each with a final comment instead of
 * cutting the connection (clients then resume with Last-Event-ID on another replica).
 */
export class StreamRegistry {
  readonly #open = new Set<(reason: string) => void>();

  add(close: (reason: string) => void): () => void {
    this.#open.add(close);
    return () => this.#open.delete(close);
  }

  closeAll(reason: string): void {
    for (const close of [...this.#open]) close(reason);
    this.#open.clear();
  }

  get size(): number {
    return this.#open.size;
  }
}
