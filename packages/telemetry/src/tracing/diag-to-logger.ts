import { diag, DiagLogLevel, type DiagLogger } from '@opentelemetry/api';

/** The subset of the logger tracing reports to (pino's `warn`). */
export interface WarnLogger {
  warn(obj: object, msg: string): void;
}

/**
 * Routes the SDK's own warnings and errors (an unreachable collector, a rejected export) to the
 * process logger, so they appear as JSON lines instead of vanishing: without a diag logger the
 * SDK reports nothing. OTEL_LOG_LEVEL, when set, keeps the SDK's console logger instead.
 */
export function diagToLogger(log: WarnLogger): void {
  const forward = (message: string, ...args: unknown[]) =>
    log.warn({ otel: args.map(String) }, `opentelemetry: ${message}`);
  const ignore = () => {};
  const logger: DiagLogger = { error: forward, warn: forward, info: ignore, debug: ignore, verbose: ignore };
  diag.setLogger(logger, { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
}
