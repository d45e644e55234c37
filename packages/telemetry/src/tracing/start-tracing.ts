import { setTimeout as sleep } from 'node:timers/promises';
import { diagToLogger, type WarnLogger } from './diag-to-logger.ts';

/**
 * Process-wide tracing (ARCHITECTURE.md §9): the OpenTelemetry Node SDK configured only by the
 * standard OTEL_* variables, so compose, Kubernetes and a developer's shell point it anywhere
 * without code changes.
 */
export interface TracingOptions {
  /** `service.name` of this process's spans; OTEL_SERVICE_NAME wins when set. */
  serviceName: string;
  /**
   * The process environment (main.ts passes `process.env`). It decides whether tracing is on; the
   * SDK itself then reads the same OTEL_* variables from `process.env`.
   */
  env: NodeJS.ProcessEnv;
  /** Where the SDK's own warnings go (export failures); pass the process logger. Default: nowhere. */
  log?: WarnLogger;
  /**
   * Upper bound of shutdown(), in ms: a collector that does not answer must not eat the pod's
   * termination grace period. Spans not exported by then are dropped. Default 5000.
   */
  shutdownTimeoutMs?: number;
}

export interface Tracing {
  /** False when no exporter is configured: spans are then no-ops and cost next to nothing. */
  readonly enabled: boolean;
  /**
   * Flushes buffered spans and stops exporting. Call last in the drain, after the app stopped.
   * Never rejects and resolves within `shutdownTimeoutMs`: a failed flush is logged, not thrown,
   * so a down collector cannot turn a clean drain into a failed one.
   */
  shutdown(): Promise<void>;
}

/**
 * Tracing is off unless an exporter is asked for: OTEL_EXPORTER_OTLP_ENDPOINT (or its traces
 * variant) or an OTEL_TRACES_EXPORTER other than `none`. OTEL_SDK_DISABLED=true always wins. Off is
 * the default so tests and one-off CLIs never try to reach a collector (issue 6).
 */
export function tracingEnabled(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  if (exporters.length > 0) return exporters.some((e) => e !== 'none');
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/**
 * Starts the SDK when tracing is enabled: W3C trace context + baggage propagation (OTEL_PROPAGATORS),
 * an AsyncLocalStorage context manager, a batch processor and the exporter OTEL_TRACES_EXPORTER
 * names (default OTLP over http/protobuf to OTEL_EXPORTER_OTLP_ENDPOINT). Sampling follows
 * OTEL_TRACES_SAMPLER (default: parent-based, always on).
 *
 * The SDK is imported only when enabled: it is large, and tests and CLIs never load it.
 * Metrics stay with prom-client (createMetrics) and logs with pino on stdout, so the SDK's own
 * metric readers and log exporters are switched off here whatever OTEL_METRICS_EXPORTER says.
 */
export async function startTracing({
  serviceName,
  env,
  log,
  shutdownTimeoutMs = 5000,
}: TracingOptions): Promise<Tracing> {
  if (!tracingEnabled(env)) return { enabled: false, shutdown: async () => {} };
  if (log && !env.OTEL_LOG_LEVEL) diagToLogger(log);
  const { NodeSDK } = await import('@opentelemetry/sdk-node');
  const sdk = new NodeSDK({
    ...(env.OTEL_SERVICE_NAME?.trim() ? {} : { serviceName }),
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  let stopped: Promise<void> | undefined;
  const timeout = new AbortController();
  const flush = async () => {
    const late = sleep(shutdownTimeoutMs, 'timeout' as const, { signal: timeout.signal, ref: false }).catch(
      () => 'done' as const,
    );
    try {
      const outcome = await Promise.race([sdk.shutdown().then(() => 'done' as const), late]);
      if (outcome === 'timeout')
        log?.warn({ shutdownTimeoutMs }, 'tracing shutdown timed out; unexported spans dropped');
    } catch (err) {
      log?.warn({ err }, 'tracing shutdown failed; unexported spans dropped');
    } finally {
      timeout.abort();
    }
  };
  return {
    enabled: true,
    shutdown: () => (stopped ??= flush()),
  };
}
