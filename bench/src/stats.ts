import type { Measured } from './measure/measured.ts';

export interface LatencySummary {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/** Throughput and latency percentiles, as every section of the report shows them. */
export interface Throughput {
  ops: number;
  seconds: number;
  perSecond: number;
  latencyMs: LatencySummary;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export const round = (v: number, digits = 2): number => Math.round(v * 10 ** digits) / 10 ** digits;

export function latencies(values: number[]): LatencySummary {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: round(percentile(sorted, 50)),
    p95: round(percentile(sorted, 95)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.at(-1) ?? Number.NaN),
  };
}

export function throughput(m: Measured): Throughput {
  return {
    ops: m.ops,
    seconds: round(m.seconds, 3),
    perSecond: round(m.seconds > 0 ? m.ops / m.seconds : 0, 1),
    latencyMs: latencies(m.latencyMs),
  };
}
