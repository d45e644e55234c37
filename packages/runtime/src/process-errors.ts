import type { Logger } from '@switchyard/telemetry';

export interface ProcessErrorOptions {
  /**
   * Rejections that are somebody's known mistake rather than the platform's fault, logged at warn
   * instead of error: the worker passes RunEndedError (an agent's context call, not awaited,
   * refused after its run was canceled or lost its lease).
   */
  isExpected?: (reason: unknown) => boolean;
  /**
   * Sends what is buffered (the trace spans) before a fatal exit, given at most
   * FATAL_FLUSH_LIMIT_MS: the spans around a crash are the ones wanted most.
   */
  beforeFatalExit?: () => Promise<void>;
}

/** How long a fatal exit waits for `beforeFatalExit`. */
const FATAL_FLUSH_LIMIT_MS = 2000;

/**
 * Process-level error policy; call once, as soon as the logger exists.
 *
 * An unhandled rejection is logged and the process goes on. Node 24 exits on one by default, so a
 * single agent that fires `void ctx.setStatus()` after a cancel would end every other run of its
 * worker. A rejected promise nobody awaited leaves no half-done work behind: whoever made it has
 * already moved on.
 *
 * An uncaught exception stays fatal: it unwound a stack halfway through who knows what, so the
 * process state is unknown. It is logged and the process exits 1 (the orchestrator restarts it;
 * the Postgres leases hand its tasks to other workers).
 */
export function handleProcessErrors(log: Logger, options: ProcessErrorOptions = {}): void {
  process.on('unhandledRejection', (reason) => {
    if (options.isExpected?.(reason))
      log.warn({ err: reason }, 'unhandled rejection (expected kind); going on');
    else log.error({ err: reason }, 'unhandled rejection; going on');
  });
  process.on('uncaughtException', (err, origin) => {
    log.fatal({ err, origin }, 'uncaught exception: exiting');
    // Whatever ends the process now (the flush, or the loop running dry) ends it failed.
    process.exitCode = 1;
    if (!options.beforeFatalExit) process.exit(1);
    const limit = new Promise((resolve) => setTimeout(resolve, FATAL_FLUSH_LIMIT_MS));
    void Promise.race([options.beforeFatalExit().catch(() => undefined), limit]).finally(() =>
      process.exit(1),
    );
  });
}
