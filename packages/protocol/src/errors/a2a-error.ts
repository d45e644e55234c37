import type { FieldViolation } from './error-details.ts';
import { ERROR_REGISTRY, type ErrorDefinition, type ErrorKind } from './registry.ts';

export interface A2AErrorOptions {
  /** Client-facing message; defaults to the registry's safe default. Never put stack traces or internals here. */
  message?: string;
  /** `ErrorInfo.metadata`: string values only, sent to the client (digest §5.1). */
  metadata?: Record<string, string>;
  /** `google.rpc.BadRequest` field violations, for InvalidParams and friends. */
  fieldViolations?: readonly FieldViolation[];
  /** The underlying error; kept for logs and traces, never serialized (STYLE.md rule 4). */
  cause?: unknown;
  /** Seconds a client should wait before retrying; sent as `Retry-After` by `toHttpError`. */
  retryAfterSeconds?: number;
}

/**
 * The one error type every layer throws for protocol-visible failures. `kind` is the registry key;
 * transport codes are looked up from the registry at the edge (`toJsonRpcError`, `toHttpError`).
 */
export class A2AError extends Error {
  readonly kind: ErrorKind;
  readonly metadata: Readonly<Record<string, string>>;
  readonly fieldViolations: readonly FieldViolation[] | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(kind: ErrorKind, options: A2AErrorOptions = {}) {
    const definition = ERROR_REGISTRY[kind];
    super(
      options.message ?? definition.defaultMessage,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = definition.name;
    this.kind = kind;
    this.metadata = Object.freeze(stringValues(options.metadata));
    this.fieldViolations =
      options.fieldViolations && options.fieldViolations.length > 0
        ? Object.freeze([...options.fieldViolations])
        : undefined;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  get definition(): ErrorDefinition {
    return ERROR_REGISTRY[this.kind];
  }

  /** `ErrorInfo.reason`, e.g. `TASK_NOT_FOUND`. */
  get reason(): string {
    return this.definition.reason;
  }
}

export function isA2AError(value: unknown): value is A2AError {
  return value instanceof A2AError;
}

/** Type guard for one kind: `if (isA2AErrorOfKind(e, 'TaskNotFound'))`. */
export function isA2AErrorOfKind(value: unknown, kind: ErrorKind): value is A2AError {
  return value instanceof A2AError && value.kind === kind;
}

// ErrorInfo metadata is map<string,string>; coerce defensively so a stray number never breaks ProtoJSON.
function stringValues(input: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!input) return out;
  for (const [key, value] of Object.entries(input)) {
    if (value !== undefined && value !== null) out[key] = String(value);
  }
  return out;
}
