import type { Logger } from '@switchyard/telemetry';
import { MAX_TIMER_MS, type CommonConfig } from './env-config.ts';

export interface Lifecycle {
  /** Stops taking work and drains; resolves when the process may exit. */
  stop(): Promise<void>;
}

export interface ShutdownOptions {
  /**
   * From the first signal, how long the drain may take before the process exits anyway, with
   * code 1. A close that waits for an unreachable Redis (BullMQ's Worker.close(), BullMQ issue
   * #4656; a command queued for the reconnect) would otherwise hold the process until the
   * orchestrator's SIGKILL, which flushes nothing and says nothing. See shutdownDeadlineMs.
   */
  deadlineMs: number;
  /** Runs before that forced exit: the trace exporter's flush, which bounds itself. */
  beforeForcedExit?: () => Promise<void>;
}

/**
 * What the drain may take past its own grace period before the deadline ends it: the agents'
 * abort window (EngineConfig.stopGraceMs, 2 s) and the closes, each of which bounds itself.
 * Kept small so that grace + margin + the tracing flush (5 s at most) fit the manifests'
 * terminationGracePeriodSeconds (gateway: 5 s preStop + 15 s + 5 s + 5 s = 30 s of its 35 s;
 * deploy-kubernetes.test.ts checks).
 */
export const SHUTDOWN_MARGIN_MS = 5_000;

/** The deadline of a caller that names none: the longest drain the manifests allow (the worker's). */
const FALLBACK_DEADLINE_MS = 60_000;

/**
 * SHUTDOWN_DEADLINE_MS when set, else the process's drain grace plus SHUTDOWN_MARGIN_MS, never
 * past MAX_TIMER_MS: Node fires a longer timer after 1 ms, which would end every drain at once.
 * (The schemas keep the graces far below it; this holds for any grace a caller adds up.)
 */
export function shutdownDeadlineMs(
  config: Pick<CommonConfig, 'SHUTDOWN_DEADLINE_MS'>,
  graceMs: number,
): number {
  return Math.min(MAX_TIMER_MS, config.SHUTDOWN_DEADLINE_MS ?? graceMs + SHUTDOWN_MARGIN_MS);
}

/**
 * SIGTERM/SIGINT drain the process (stop taking work, finish or hand back what runs, close
 * pools); a second signal forces an immediate exit (STYLE.md rule 10), and so does the deadline,
 * after logging and flushing traces.
 */
export function handleSignals(
  app: Lifecycle,
  log: Logger,
  options: ShutdownOptions = { deadlineMs: FALLBACK_DEADLINE_MS },
): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn({ signal }, 'second signal: forcing exit');
      process.exit(1);
    }
    stopping = true;
    log.info({ signal, deadlineMs: options.deadlineMs }, 'draining');
    setTimeout(() => {
      log.error(
        { deadlineMs: options.deadlineMs },
        'shutdown deadline passed: exiting with the drain unfinished',
      );
      const flushed = options.beforeForcedExit?.() ?? Promise.resolve();
      void flushed.catch(() => undefined).finally(() => process.exit(1));
    }, options.deadlineMs);
    app.stop().then(
      () => {
        log.info('stopped');
        process.exit(0);
      },
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        // The drain failed before its own flush: the spans of what it did go out first.
        const flushed = options.beforeForcedExit?.() ?? Promise.resolve();
        void flushed.catch(() => undefined).finally(() => process.exit(1));
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
