import { Counter, Gauge, Histogram } from 'prom-client';
import type { FamilyContext } from './family-context.ts';
import { METRIC_NAMES, REQUEST_BUCKETS } from './metric-names.ts';

export interface RequestLabels {
  /** The A2A method (`SendMessage`, `GetTask`, …); `card` or `admin` for the other routes. */
  method: string;
  /** `jsonrpc` or `rest` (`http` for non-A2A routes). */
  binding: string;
  /** `ok`, or the A2A error name the request ended with (`TaskNotFound`, …), or `internal`. */
  outcome: string;
}

export interface RequestMetrics {
  /**
   * One finished request: counts it and observes its duration. For an SSE stream, call it when the
   * stream is set up (time to first event), not when it closes: minutes-long streams would swamp
   * the latency histogram.
   */
  observe(labels: RequestLabels, seconds: number): void;
}

export interface StreamMetrics {
  /** An SSE stream opened (gauge up). Pair with closed(). */
  opened(): void;
  /** An SSE stream closed, for whatever reason (gauge down). */
  closed(): void;
  /** Events written to SSE streams. */
  events(count?: number): void;
}

export function requestMetrics({ registry, label }: FamilyContext): RequestMetrics {
  const labelNames = ['method', 'binding', 'outcome'] as const;
  const total = new Counter({
    name: METRIC_NAMES.requests,
    help: 'A2A and HTTP requests by method, binding and outcome.',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: METRIC_NAMES.requestDuration,
    help: 'Request duration in seconds, by method, binding and outcome.',
    labelNames,
    buckets: REQUEST_BUCKETS,
    registers: [registry],
  });
  return {
    observe({ method, binding, outcome }, seconds) {
      const labels = {
        method: label('method', method),
        binding: label('binding', binding),
        outcome: label('outcome', outcome),
      };
      total.inc(labels);
      duration.observe(labels, seconds);
    },
  };
}

export function streamMetrics({ registry }: FamilyContext): StreamMetrics {
  const connections = new Gauge({
    name: METRIC_NAMES.sseConnections,
    help: 'Open SSE streams in this process.',
    registers: [registry],
  });
  const events = new Counter({
    name: METRIC_NAMES.sseEvents,
    help: 'Events written to SSE streams.',
    registers: [registry],
  });
  return {
    opened: () => connections.inc(),
    closed: () => connections.dec(),
    events: (count = 1) => events.inc(count),
  };
}
