import type { GrpcStatusName } from './grpc-status.ts';

/**
 * Which column of the error → HTTP/gRPC table to use (digest §5.2, §12 #2). `v1.0.1` is the
 * current spec (a2a-js 1.0.x); `v1.0.0` is what the TCK `1.0-dev` branch still asserts.
 */
export type ErrorMapping = 'v1.0.1' | 'v1.0.0';

export const ERROR_MAPPINGS: readonly ErrorMapping[] = Object.freeze(['v1.0.1', 'v1.0.0']);

/** One error, defined once; transports read their codes from here (STYLE.md rule 4). */
export interface ErrorDefinition {
  /** `Error.name`, e.g. `TaskNotFoundError`. */
  readonly name: string;
  /** `google.rpc.ErrorInfo.reason`, UPPER_SNAKE. */
  readonly reason: string;
  /** JSON-RPC `error.code`; `null` where the spec defines none (auth, quota, size, availability). */
  readonly jsonRpcCode: number | null;
  /** Safe default message; for the standard errors, the spec's "standard message". */
  readonly defaultMessage: string;
  readonly grpc: Readonly<Record<ErrorMapping, GrpcStatusName>>;
  readonly http: Readonly<Record<ErrorMapping, number>>;
}

function both<T>(value: T): Readonly<Record<ErrorMapping, T>> {
  return { 'v1.0.1': value, 'v1.0.0': value };
}

function split<T>(v101: T, v100: T): Readonly<Record<ErrorMapping, T>> {
  return { 'v1.0.1': v101, 'v1.0.0': v100 };
}

/**
 * The registry. A2A errors: digest §5.2 (v1.0.0 differences from #1627). Standard errors:
 * §5.3. Transport-only errors have no JSON-RPC code in the spec (§4.1 "HTTP status").
 */
export const ERROR_REGISTRY = {
  TaskNotFound: {
    name: 'TaskNotFoundError',
    reason: 'TASK_NOT_FOUND',
    jsonRpcCode: -32001,
    defaultMessage: 'Task not found',
    grpc: both('NOT_FOUND'),
    http: both(404),
  },
  TaskNotCancelable: {
    name: 'TaskNotCancelableError',
    reason: 'TASK_NOT_CANCELABLE',
    jsonRpcCode: -32002,
    defaultMessage: 'Task cannot be canceled',
    grpc: both('FAILED_PRECONDITION'),
    http: split(400, 409),
  },
  PushNotificationNotSupported: {
    name: 'PushNotificationNotSupportedError',
    reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED',
    jsonRpcCode: -32003,
    defaultMessage: 'Push notifications are not supported',
    grpc: split('FAILED_PRECONDITION', 'UNIMPLEMENTED'),
    http: both(400),
  },
  UnsupportedOperation: {
    name: 'UnsupportedOperationError',
    reason: 'UNSUPPORTED_OPERATION',
    jsonRpcCode: -32004,
    defaultMessage: 'This operation is not supported',
    grpc: split('FAILED_PRECONDITION', 'UNIMPLEMENTED'),
    http: both(400),
  },
  ContentTypeNotSupported: {
    name: 'ContentTypeNotSupportedError',
    reason: 'CONTENT_TYPE_NOT_SUPPORTED',
    jsonRpcCode: -32005,
    defaultMessage: 'Incompatible content types',
    grpc: both('INVALID_ARGUMENT'),
    http: split(400, 415),
  },
  InvalidAgentResponse: {
    name: 'InvalidAgentResponseError',
    reason: 'INVALID_AGENT_RESPONSE',
    jsonRpcCode: -32006,
    defaultMessage: 'Invalid agent response',
    grpc: both('INTERNAL'),
    http: split(500, 502),
  },
  ExtendedAgentCardNotConfigured: {
    name: 'ExtendedAgentCardNotConfiguredError',
    reason: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
    jsonRpcCode: -32007,
    defaultMessage: 'Extended agent card is not configured',
    grpc: both('FAILED_PRECONDITION'),
    http: both(400),
  },
  ExtensionSupportRequired: {
    name: 'ExtensionSupportRequiredError',
    reason: 'EXTENSION_SUPPORT_REQUIRED',
    jsonRpcCode: -32008,
    defaultMessage: 'Extension support required',
    grpc: both('FAILED_PRECONDITION'),
    http: both(400),
  },
  VersionNotSupported: {
    name: 'VersionNotSupportedError',
    reason: 'VERSION_NOT_SUPPORTED',
    jsonRpcCode: -32009,
    defaultMessage: 'Version not supported',
    grpc: split('FAILED_PRECONDITION', 'UNIMPLEMENTED'),
    http: both(400),
  },
  JSONParse: {
    name: 'JSONParseError',
    reason: 'PARSE_ERROR',
    jsonRpcCode: -32700,
    defaultMessage: 'Invalid JSON payload',
    grpc: both('INVALID_ARGUMENT'),
    http: both(400),
  },
  InvalidRequest: {
    name: 'InvalidRequestError',
    reason: 'INVALID_REQUEST',
    jsonRpcCode: -32600,
    defaultMessage: 'Request payload validation error',
    grpc: both('INVALID_ARGUMENT'),
    http: both(400),
  },
  MethodNotFound: {
    name: 'MethodNotFoundError',
    reason: 'METHOD_NOT_FOUND',
    jsonRpcCode: -32601,
    defaultMessage: 'Method not found',
    grpc: both('UNIMPLEMENTED'),
    http: both(404),
  },
  InvalidParams: {
    name: 'InvalidParamsError',
    reason: 'INVALID_PARAMS',
    jsonRpcCode: -32602,
    defaultMessage: 'Invalid parameters',
    grpc: both('INVALID_ARGUMENT'),
    http: both(400),
  },
  Internal: {
    name: 'InternalError',
    reason: 'INTERNAL_ERROR',
    jsonRpcCode: -32603,
    defaultMessage: 'Internal error',
    grpc: both('INTERNAL'),
    http: both(500),
  },
  Unauthenticated: {
    name: 'UnauthenticatedError',
    reason: 'UNAUTHENTICATED',
    jsonRpcCode: null,
    defaultMessage: 'Authentication required',
    grpc: both('UNAUTHENTICATED'),
    http: both(401),
  },
  PermissionDenied: {
    name: 'PermissionDeniedError',
    reason: 'PERMISSION_DENIED',
    jsonRpcCode: null,
    defaultMessage: 'Permission denied',
    grpc: both('PERMISSION_DENIED'),
    http: both(403),
  },
  ResourceExhausted: {
    name: 'ResourceExhaustedError',
    reason: 'RESOURCE_EXHAUSTED',
    jsonRpcCode: null,
    defaultMessage: 'Too many requests',
    grpc: both('RESOURCE_EXHAUSTED'),
    http: both(429),
  },
  // INVALID_ARGUMENT, not RESOURCE_EXHAUSTED: retrying the same oversized payload cannot succeed,
  // and RESOURCE_EXHAUSTED tells clients to back off and retry.
  PayloadTooLarge: {
    name: 'PayloadTooLargeError',
    reason: 'PAYLOAD_TOO_LARGE',
    jsonRpcCode: null,
    defaultMessage: 'Payload too large',
    grpc: both('INVALID_ARGUMENT'),
    http: both(413),
  },
  // Digest §5.3: a temporary failure is the Internal row's "503 + Retry-After" case, so JSON-RPC
  // gives it InternalError's code; data.reason UNAVAILABLE tells it apart.
  Unavailable: {
    name: 'UnavailableError',
    reason: 'UNAVAILABLE',
    jsonRpcCode: -32603,
    defaultMessage: 'Service unavailable',
    grpc: both('UNAVAILABLE'),
    http: both(503),
  },
} as const satisfies Record<string, ErrorDefinition>;

/** Registry key of an error, e.g. `'TaskNotFound'`. */
export type ErrorKind = keyof typeof ERROR_REGISTRY;

export const ERROR_KINDS: readonly ErrorKind[] = Object.freeze(Object.keys(ERROR_REGISTRY) as ErrorKind[]);

/**
 * JSON-RPC code for errors the spec gives none: -32000 is the generic "server error" code that
 * JSON-RPC 2.0 leaves to implementations and A2A does not reserve (A2A uses -32001…-32099).
 * Clients tell these errors apart by ErrorInfo `reason`.
 */
export const JSON_RPC_SERVER_ERROR_CODE = -32000;

export function errorDefinition(kind: ErrorKind): ErrorDefinition {
  return ERROR_REGISTRY[kind];
}

const byReason = new Map<string, ErrorKind>(ERROR_KINDS.map((k) => [ERROR_REGISTRY[k].reason, k]));
const byJsonRpcCode = new Map<number, ErrorKind>();
for (const k of ERROR_KINDS) {
  const code = ERROR_REGISTRY[k].jsonRpcCode;
  // Internal comes before Unavailable, which shares its code: a bare -32603 is Internal.
  if (code !== null && !byJsonRpcCode.has(code)) byJsonRpcCode.set(code, k);
}

/** Reverse lookup by ErrorInfo `reason`. */
export function errorKindByReason(reason: string): ErrorKind | undefined {
  return byReason.get(reason);
}

/** Reverse lookup by JSON-RPC code. */
export function errorKindByJsonRpcCode(code: number): ErrorKind | undefined {
  return byJsonRpcCode.get(code);
}
