import { Counter, Gauge, Histogram } from 'prom-client';
import type { FamilyContext } from './family-context.ts';
import { METRIC_NAMES, PUSH_BUCKETS } from './metric-names.ts';

/** How one delivery attempt ended (apps/pusher deliver.ts `DeliveryResult`). */
export type PushOutcome = 'delivered' | 'retry' | 'dead' | 'abandoned';

export interface OutboxStats {
  /** Deliveries due or scheduled, all tenants. */
  pending: number;
  /** Age of the oldest pending delivery, in seconds; 0 when none. */
  oldestAgeSeconds: number;
}

export interface PushMetrics {
  /** One delivery attempt: `retry` counts the failed attempts that will be tried again, `dead` the dead letters. */
  attempt(outcome: PushOutcome, seconds: number): void;
  /** A delivery a claim dead-lettered without sending it (its event gone, its secrets unreadable): counted as `dead`, no duration. */
  deadUnsent(): void;
  /** Deliveries being sent by this process now (the pusher sets it as sends start and finish). */
  inFlight(count: number): void;
  /**
   * The outbox gauges' source, called once per scrape. The outbox is global: every pusher reports
   * the same value, aggregate with `max`. Attaching again replaces the source.
   */
  collectOutbox(source: () => Promise<OutboxStats> | OutboxStats): void;
  /**
   * Starts every outcome's series at 0 (the pusher, once it runs). A labelled counter is born at
   * its first increment, and a series that first appears at 1 shows no increase(): an alert on
   * dead letters would miss the first, often the only one.
   */
  initOutcomes(): void;
}

const OUTCOMES: readonly PushOutcome[] = ['delivered', 'retry', 'dead', 'abandoned'];

export function pushMetrics({ registry, source }: FamilyContext): PushMetrics {
  const deliveries = new Counter({
    name: METRIC_NAMES.pushDeliveries,
    help: 'Push delivery attempts, by outcome (delivered, retry, dead, abandoned).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: METRIC_NAMES.pushDeliveryDuration,
    help: 'Push delivery attempt duration in seconds, by outcome.',
    labelNames: ['outcome'],
    buckets: PUSH_BUCKETS,
    registers: [registry],
  });
  let inFlight: Gauge | undefined;
  let outbox: (() => Promise<OutboxStats | undefined>) | undefined;
  return {
    attempt(outcome, seconds) {
      deliveries.inc({ outcome });
      duration.observe({ outcome }, seconds);
    },
    deadUnsent() {
      deliveries.inc({ outcome: 'dead' });
    },
    initOutcomes() {
      for (const outcome of OUTCOMES) deliveries.inc({ outcome }, 0);
    },
    inFlight(count) {
      inFlight ??= new Gauge({
        name: METRIC_NAMES.pushInFlight,
        help: 'Push deliveries being sent by this process.',
        registers: [registry],
      });
      inFlight.set(count);
    },
    collectOutbox(fn) {
      const first = outbox === undefined;
      outbox = source('outbox', fn);
      if (!first) return;
      const gauge = (name: string, help: string, pick: (s: OutboxStats) => number) =>
        new Gauge({
          name,
          help,
          registers: [registry],
          async collect() {
            const stats = await outbox?.();
            // The source failed: NaN says "unknown" where a 0 would claim an empty outbox.
            this.set(stats ? pick(stats) : Number.NaN);
          },
        });
      gauge(
        METRIC_NAMES.pushPending,
        'Pending push deliveries in the outbox (all tenants).',
        (s) => s.pending,
      );
      gauge(
        METRIC_NAMES.pushOldestPendingAge,
        'Age of the oldest pending push delivery, in seconds.',
        (s) => s.oldestAgeSeconds,
      );
    },
  };
}
