/** One scenario's figures: throughput and latency percentiles, printed side by side. */
export interface BenchResult {
  scenario: string;
  /** What one operation is, e.g. "CAS update", "task submit→completed". */
  unit: string;
  ops: number;
  seconds: number;
  latenciesMs: number[];
  notes?: string;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export function summarize(r: BenchResult) {
  const sorted = [...r.latenciesMs].sort((a, b) => a - b);
  return {
    scenario: r.scenario,
    unit: r.unit,
    ops: r.ops,
    'ops/s': Math.round((r.ops / r.seconds) * 10) / 10,
    'p50 ms': round(percentile(sorted, 50)),
    'p95 ms': round(percentile(sorted, 95)),
    'p99 ms': round(percentile(sorted, 99)),
    'max ms': round(sorted.at(-1) ?? Number.NaN),
    ...(r.notes ? { notes: r.notes } : {}),
  };
}

function round(v: number): number {
  return Math.round(v * 100) / 100;
}

/** Runs `fn` for each item with at most `concurrency` in flight, recording each one's latency. */
export async function timedPool<T>(
  items: T[],
  concurrency: number,
  fn: (item: T) => Promise<void>,
): Promise<{ seconds: number; latenciesMs: number[] }> {
  const latenciesMs: number[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const item = items[next++]!;
        const t0 = performance.now();
        await fn(item);
        latenciesMs.push(performance.now() - t0);
      }
    }),
  );
  return { seconds: (performance.now() - start) / 1000, latenciesMs };
}
