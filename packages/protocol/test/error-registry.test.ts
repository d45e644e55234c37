import { describe, expect, it } from 'vitest';
import {
  A2A_ERROR_DOMAIN,
  ERROR_KINDS,
  ERROR_REGISTRY,
  GRPC_STATUS_CODES,
  JSON_RPC_SERVER_ERROR_CODE,
  errorKindByJsonRpcCode,
  errorKindByReason,
  type ErrorKind,
  type GrpcStatusName,
} from '../src/index.ts';

type Row = [
  kind: ErrorKind,
  name: string,
  reason: string,
  code: number | null,
  grpc101: GrpcStatusName,
  http101: number,
  grpc100: GrpcStatusName,
  http100: number,
];

// Digest §5.2 (A2A errors, v1.0.1 column then the v1.0.0/TCK column) and §5.3 (standard errors),
// plus the transport-only errors with no JSON-RPC code.
const TABLE: Row[] = [
  ['TaskNotFound', 'TaskNotFoundError', 'TASK_NOT_FOUND', -32001, 'NOT_FOUND', 404, 'NOT_FOUND', 404],
  [
    'TaskNotCancelable',
    'TaskNotCancelableError',
    'TASK_NOT_CANCELABLE',
    -32002,
    'FAILED_PRECONDITION',
    400,
    'FAILED_PRECONDITION',
    409,
  ],
  [
    'PushNotificationNotSupported',
    'PushNotificationNotSupportedError',
    'PUSH_NOTIFICATION_NOT_SUPPORTED',
    -32003,
    'FAILED_PRECONDITION',
    400,
    'UNIMPLEMENTED',
    400,
  ],
  [
    'UnsupportedOperation',
    'UnsupportedOperationError',
    'UNSUPPORTED_OPERATION',
    -32004,
    'FAILED_PRECONDITION',
    400,
    'UNIMPLEMENTED',
    400,
  ],
  [
    'ContentTypeNotSupported',
    'ContentTypeNotSupportedError',
    'CONTENT_TYPE_NOT_SUPPORTED',
    -32005,
    'INVALID_ARGUMENT',
    400,
    'INVALID_ARGUMENT',
    415,
  ],
  [
    'InvalidAgentResponse',
    'InvalidAgentResponseError',
    'INVALID_AGENT_RESPONSE',
    -32006,
    'INTERNAL',
    500,
    'INTERNAL',
    502,
  ],
  [
    'ExtendedAgentCardNotConfigured',
    'ExtendedAgentCardNotConfiguredError',
    'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
    -32007,
    'FAILED_PRECONDITION',
    400,
    'FAILED_PRECONDITION',
    400,
  ],
  [
    'ExtensionSupportRequired',
    'ExtensionSupportRequiredError',
    'EXTENSION_SUPPORT_REQUIRED',
    -32008,
    'FAILED_PRECONDITION',
    400,
    'FAILED_PRECONDITION',
    400,
  ],
  [
    'VersionNotSupported',
    'VersionNotSupportedError',
    'VERSION_NOT_SUPPORTED',
    -32009,
    'FAILED_PRECONDITION',
    400,
    'UNIMPLEMENTED',
    400,
  ],
  ['JSONParse', 'JSONParseError', 'PARSE_ERROR', -32700, 'INVALID_ARGUMENT', 400, 'INVALID_ARGUMENT', 400],
  [
    'InvalidRequest',
    'InvalidRequestError',
    'INVALID_REQUEST',
    -32600,
    'INVALID_ARGUMENT',
    400,
    'INVALID_ARGUMENT',
    400,
  ],
  [
    'MethodNotFound',
    'MethodNotFoundError',
    'METHOD_NOT_FOUND',
    -32601,
    'UNIMPLEMENTED',
    404,
    'UNIMPLEMENTED',
    404,
  ],
  [
    'InvalidParams',
    'InvalidParamsError',
    'INVALID_PARAMS',
    -32602,
    'INVALID_ARGUMENT',
    400,
    'INVALID_ARGUMENT',
    400,
  ],
  ['Internal', 'InternalError', 'INTERNAL_ERROR', -32603, 'INTERNAL', 500, 'INTERNAL', 500],
  [
    'Unauthenticated',
    'UnauthenticatedError',
    'UNAUTHENTICATED',
    null,
    'UNAUTHENTICATED',
    401,
    'UNAUTHENTICATED',
    401,
  ],
  [
    'PermissionDenied',
    'PermissionDeniedError',
    'PERMISSION_DENIED',
    null,
    'PERMISSION_DENIED',
    403,
    'PERMISSION_DENIED',
    403,
  ],
  [
    'ResourceExhausted',
    'ResourceExhaustedError',
    'RESOURCE_EXHAUSTED',
    null,
    'RESOURCE_EXHAUSTED',
    429,
    'RESOURCE_EXHAUSTED',
    429,
  ],
  [
    'PayloadTooLarge',
    'PayloadTooLargeError',
    'PAYLOAD_TOO_LARGE',
    null,
    'INVALID_ARGUMENT',
    413,
    'INVALID_ARGUMENT',
    413,
  ],
  ['Unavailable', 'UnavailableError', 'UNAVAILABLE', -32603, 'UNAVAILABLE', 503, 'UNAVAILABLE', 503],
];

describe('§5.2/§5.3 error registry', () => {
  it('has exactly the errors of the table', () => {
    expect([...ERROR_KINDS].sort()).toEqual(TABLE.map(([kind]) => kind).sort());
  });

  it.each(TABLE)(
    '%s: name, reason, JSON-RPC code, gRPC and HTTP in both mappings',
    (kind, name, reason, code, g101, h101, g100, h100) => {
      const def = ERROR_REGISTRY[kind];
      expect(def.name).toBe(name);
      expect(def.reason).toBe(reason);
      expect(def.jsonRpcCode).toBe(code);
      expect(def.grpc['v1.0.1']).toBe(g101);
      expect(def.http['v1.0.1']).toBe(h101);
      expect(def.grpc['v1.0.0']).toBe(g100);
      expect(def.http['v1.0.0']).toBe(h100);
      expect(GRPC_STATUS_CODES[def.grpc['v1.0.1']]).toBeTypeOf('number');
      expect(def.defaultMessage.length).toBeGreaterThan(0);
    },
  );

  it("§5.3 standard messages are the spec's", () => {
    expect(ERROR_REGISTRY.JSONParse.defaultMessage).toBe('Invalid JSON payload');
    expect(ERROR_REGISTRY.InvalidRequest.defaultMessage).toBe('Request payload validation error');
    expect(ERROR_REGISTRY.MethodNotFound.defaultMessage).toBe('Method not found');
    expect(ERROR_REGISTRY.InvalidParams.defaultMessage).toBe('Invalid parameters');
    expect(ERROR_REGISTRY.Internal.defaultMessage).toBe('Internal error');
  });

  it('§4.3 A2A reasons are the UPPER_SNAKE name without the Error suffix', () => {
    for (const [kind, name, reason, code] of TABLE) {
      if (code === null || code < -32099 || code > -32001) continue;
      expect(reason, kind).toBe(
        name
          .replace(/Error$/, '')
          .replace(/([a-z])([A-Z])/g, '$1_$2')
          .toUpperCase(),
      );
    }
  });

  it('reasons and JSON-RPC codes are unique (but for Unavailable) and reverse-lookups work', () => {
    for (const [kind, , reason, code] of TABLE) {
      expect(errorKindByReason(reason)).toBe(kind);
      // Unavailable is the Internal row's temporary case (§5.3): it shares -32603 and is told
      // apart by its reason, so a bare -32603 reads as Internal.
      if (code !== null && kind !== 'Unavailable') expect(errorKindByJsonRpcCode(code)).toBe(kind);
    }
    expect(errorKindByJsonRpcCode(-32603)).toBe('Internal');
    expect(errorKindByReason('NOPE')).toBeUndefined();
    expect(errorKindByJsonRpcCode(JSON_RPC_SERVER_ERROR_CODE)).toBeUndefined();
  });

  it('§5.2 A2A codes stay in the reserved range -32001…-32099; the fallback -32000 is outside it', () => {
    for (const [, , , code] of TABLE.slice(0, 9)) expect(code).toBeLessThanOrEqual(-32001);
    expect(JSON_RPC_SERVER_ERROR_CODE).toBe(-32000);
    expect(A2A_ERROR_DOMAIN).toBe('a2a-protocol.org');
  });
});
