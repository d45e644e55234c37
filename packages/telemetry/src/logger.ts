import { pino, type DestinationStream, type Logger as PinoLogger, type LoggerOptions } from 'pino';
import { scrubSecrets, serializeError } from './safe-error.ts';
import { activeTraceIds } from './tracing/trace-ids.ts';

/**
 * The logger every package takes as a dependency: structured JSON (pino), child loggers carry
 * tenant/task/agent/trace ids. Secrets are redacted by key name, at the top of a line and a few
 * levels in, and a logged error is scrubbed of the request it carries (safe-error.ts), so a
 * careless `log.info({config})` or `log.error({err})` does not leak them.
 */
export type Logger = PinoLogger;

export interface LoggerConfig {
  /** Process name put on every line (`gateway`, `worker`, …). */
  name: string;
  /** pino level; default `info`. `silent` in tests. */
  level?: string;
  /**
   * Put `traceId` and `spanId` of the active span on every line, so a log line leads to its trace
   * (issue 6: logs carry trace ids). Lines written outside a span get neither. Default false.
   */
  withTraceIds?: boolean;
  /** Where lines go; default stdout. Tests pass a stream to read them back. */
  destination?: DestinationStream;
}

export function createLogger({
  name,
  level = 'info',
  withTraceIds = false,
  destination,
}: LoggerConfig): Logger {
  const options: LoggerOptions = {
    name,
    level,
    // One read-only walk of each line for secret-named keys, at any depth (safe-error.ts).
    formatters: { log: scrubSecrets, bindings: scrubSecrets },
    // Errors carry what their request sent (serializeError): scrubbed, whatever their shape.
    serializers: { err: serializeError, reason: serializeError },
    base: { service: name },
    timestamp: pino.stdTimeFunctions.isoTime,
    ...(withTraceIds ? { mixin: () => activeTraceIds() ?? {} } : {}),
  };
  return destination ? pino(options, destination) : pino(options);
}

/** A logger that writes nothing (tests, and libraries used without one). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

const LEVEL_METHODS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace']);
const noop = () => undefined;

/**
 * `parent.child(bindings)`, made on first use. pino serializes a child's bindings when it makes
 * it, each value through the redaction's wildcard paths: about 9 KB of garbage per child, for a
 * worker a fifth of all it allocated per task, and most runs never write a line. A write at a
 * disabled level costs nothing and makes no child.
 */
export function lazyChild(parent: Logger, bindings: Record<string, unknown>): Logger {
  let child: Logger | undefined;
  return new Proxy(parent, {
    get(_target, prop) {
      if (
        child === undefined &&
        typeof prop === 'string' &&
        LEVEL_METHODS.has(prop) &&
        !parent.isLevelEnabled(prop)
      )
        return noop;
      child ??= parent.child(bindings);
      const value: unknown = Reflect.get(child, prop, child);
      return typeof value === 'function' ? value.bind(child) : value;
    },
  });
}
