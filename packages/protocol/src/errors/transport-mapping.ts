import type { JsonRpcErrorObject } from '../types/json-rpc.ts';
import type { A2AError } from './a2a-error.ts';
import {
  A2A_ERROR_DOMAIN,
  BAD_REQUEST_TYPE,
  ERROR_INFO_TYPE,
  type ErrorDetail,
  type ErrorInfo,
} from './error-details.ts';
import { fromUnknown } from './from-unknown.ts';
import type { GrpcStatusName } from './grpc-status.ts';
import { JSON_RPC_SERVER_ERROR_CODE, type ErrorMapping } from './registry.ts';

/** An HTTP+JSON error reply: a `google.rpc.Status` in AIP-193 form (digest §5.4). */
export interface HttpError {
  status: number;
  /** Extra response headers, e.g. `Retry-After`. The gateway adds `WWW-Authenticate` itself. */
  headers: Record<string, string>;
  body: {
    error: {
      /** The HTTP status again, as AIP-193 requires. */
      code: number;
      /** The gRPC code name, e.g. `NOT_FOUND`. */
      status: GrpcStatusName;
      message: string;
      details: ErrorDetail[];
    };
  };
}

/** `[ErrorInfo, BadRequest?]`: ErrorInfo is always first (a MUST in v1.0.0, SHOULD in 1.0.1). */
export function errorDetails(error: A2AError): ErrorDetail[] {
  const info: ErrorInfo = { '@type': ERROR_INFO_TYPE, reason: error.reason, domain: A2A_ERROR_DOMAIN };
  // ProtoJSON omits an empty map.
  if (Object.keys(error.metadata).length > 0) info.metadata = { ...error.metadata };
  const details: ErrorDetail[] = [info];
  if (error.fieldViolations) {
    details.push({
      '@type': BAD_REQUEST_TYPE,
      fieldViolations: error.fieldViolations.map((v) => ({ ...v })),
    });
  }
  return details;
}

/**
 * The JSON-RPC `error` member for any thrown value (digest §4.1, §5.4). Errors without a
 * spec-defined code (Unauthenticated, …) use -32000; gateways usually answer those at the HTTP
 * layer instead (401/403/429/413/503).
 */
export function toJsonRpcError(error: unknown): JsonRpcErrorObject & { data: ErrorDetail[] } {
  const a2a = fromUnknown(error);
  return {
    code: a2a.definition.jsonRpcCode ?? JSON_RPC_SERVER_ERROR_CODE,
    message: a2a.message,
    data: errorDetails(a2a),
  };
}

/** The HTTP+JSON error reply for any thrown value, using the chosen mapping column (digest §12 #2). */
export function toHttpError(error: unknown, mapping: ErrorMapping = 'v1.0.1'): HttpError {
  const a2a = fromUnknown(error);
  const status = a2a.definition.http[mapping];
  const headers: Record<string, string> = {};
  if (a2a.retryAfterSeconds !== undefined && a2a.retryAfterSeconds >= 0) {
    headers['Retry-After'] = String(Math.ceil(a2a.retryAfterSeconds));
  }
  return {
    status,
    headers,
    body: {
      error: {
        code: status,
        status: a2a.definition.grpc[mapping],
        message: a2a.message,
        details: errorDetails(a2a),
      },
    },
  };
}
