import { collectDefaultMetrics, Counter, Registry } from 'prom-client';
import type { FamilyContext } from './family-context.ts';
import { createLabelGuard, sharedSource } from './label-guard.ts';
import { METRIC_NAMES } from './metric-names.ts';
import { pushMetrics, type PushMetrics } from './push-metrics.ts';
import { requestMetrics, streamMetrics, type RequestMetrics, type StreamMetrics } from './request-metrics.ts';
import { resourceMetrics, type ResourceMetrics } from './resource-metrics.ts';
import { taskMetrics, type TaskMetrics } from './task-metrics.ts';

/**
 * How often the event-loop lag histogram samples (prom-client's `eventLoopMonitoringPrecision`).
 * Its default of 10 ms is a timer that wakes every process 100 times a second even when idle: on
 * two shared cores that was most of an idle worker's 1.7% of a core, and a wake-up between tasks
 * costs a loaded process more than the sample is worth. 100 ms still catches every stall that
 * long and samples the loop ten times a second (150 samples between two 15 s scrapes).
 */
export const EVENT_LOOP_SAMPLE_MS = 100;

export interface MetricsOptions {
  /** Process kind (`gateway`, `worker`, `pusher`, `console`); put on every series as `service`. */
  service: string;
  /**
   * Label `switchyard_tasks_created_total` by tenant (the only family that carries one). Default
   * true; turn it off when tenants number in the thousands: every tenant × agent is a series.
   */
  tenantLabel?: boolean;
  /**
   * Distinct values each free-form label (method, outcome, agent, tenant, state, action, queue)
   * may take in this process; later ones are counted as `other`. Default 200.
   */
  maxLabelValues?: number;
  /** Node's default metrics (`process_*`, `nodejs_*`: CPU, memory, event-loop lag, GC). Default true. */
  defaultMetrics?: boolean;
  /** Told when a metrics source throws; the scrape still succeeds. Pass the logger's warn. */
  onCollectError?: (err: unknown, collector: string) => void;
}

/** The Prometheus text exposition, shaped as the ops servers' `metrics()` handler returns it. */
export interface MetricsText {
  contentType: string;
  body: string;
}

export interface Metrics {
  /** This process's registry (a fresh one per createMetrics: tests can build several). */
  readonly registry: Registry;
  readonly requests: RequestMetrics;
  readonly sse: StreamMetrics;
  readonly tasks: TaskMetrics;
  readonly push: PushMetrics;
  readonly resources: ResourceMetrics;
  /** Collects every family (running the attached sources) and renders the exposition. */
  text(): Promise<MetricsText>;
}

/**
 * The process's Prometheus metrics (issue 6). Event families (counters, histograms) exist from the
 * start; gauges fed by a source (queues, outbox, Postgres pool, Redis) appear once the app attaches
 * the source, so a process never reports on something it does not watch.
 */
export function createMetrics(options: MetricsOptions): Metrics {
  const {
    service,
    tenantLabel = true,
    maxLabelValues = 200,
    defaultMetrics = true,
    onCollectError,
  } = options;
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  if (defaultMetrics)
    collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  const collectErrors = new Counter({
    name: METRIC_NAMES.collectErrors,
    help: 'Metrics sources that failed during a scrape, by source.',
    labelNames: ['collector'],
    registers: [registry],
  });
  const context: FamilyContext = {
    registry,
    label: createLabelGuard(maxLabelValues),
    source: (collector, fn) => {
      // At 0 from the start, so that an alert on increase() sees the source's first failure.
      collectErrors.inc({ collector }, 0);
      return sharedSource(fn, (err) => {
        collectErrors.inc({ collector });
        onCollectError?.(err, collector);
      });
    },
  };
  return {
    registry,
    requests: requestMetrics(context),
    sse: streamMetrics(context),
    tasks: taskMetrics(context, { tenantLabel }),
    push: pushMetrics(context),
    resources: resourceMetrics(context),
    async text() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
