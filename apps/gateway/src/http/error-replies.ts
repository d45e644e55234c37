import type { Request, Response } from 'express';
import {
  toHttpError,
  toJsonRpcError,
  toV03JsonRpcError,
  type A2AError,
  type ErrorMapping,
  type JsonRpcErrorResponse,
  type JsonRpcId,
} from '@switchyard/protocol';
import { forcedGrpcStatus, forcedHttpStatus } from './edge-error.ts';

/** Media type of HTTP+JSON bodies (digest §1, §12 #3: a2a+json is the 1.0.1 preference). */
export const A2A_JSON = 'application/a2a+json';

/** What HTTP+JSON bodies are labelled: 1.0.1's a2a+json, or 1.0.0's plain JSON (HTTP_JSON_MEDIA_TYPE). */
export type RestMediaType = typeof A2A_JSON | 'application/json';

/**
 * The media type of one HTTP+JSON reply (digest §12 #3): the configured one, except that a client
 * whose Accept names plain JSON and not a2a+json (a 1.0.0 client) gets plain JSON. No Accept, or
 * `*\/*`, gets the configured one.
 */
export function restMediaType(req: Request, configured: RestMediaType): RestMediaType {
  if (configured === 'application/json' || req.headers.accept === undefined) return configured;
  return req.accepts([A2A_JSON, 'application/json']) === 'application/json' ? 'application/json' : A2A_JSON;
}

/**
 * JSON-RPC replies are HTTP 200 (digest §4.1) except where the failure belongs to HTTP:
 * authentication (401), rate limits (429), body size (413), a dependency that is temporarily away
 * (503 with Retry-After, which HTTP clients' retry policies act on) and the edge errors of
 * edge-error.ts.
 */
export function jsonRpcHttpStatus(error: A2AError): number {
  const forced = forcedHttpStatus(error);
  if (forced !== undefined) return forced;
  switch (error.kind) {
    case 'Unauthenticated':
      return 401;
    case 'ResourceExhausted':
      return 429;
    case 'PayloadTooLarge':
      return 413;
    case 'Unavailable':
      return 503;
    default:
      return 200;
  }
}

export function jsonRpcErrorBody(error: A2AError, id: JsonRpcId): JsonRpcErrorResponse {
  return { jsonrpc: '2.0', id, error: toJsonRpcError(error) };
}

/** The same error for a 0.3 client: same code, free-form `data` (digest §13.3). */
export function v03JsonRpcErrorBody(error: A2AError, id: JsonRpcId) {
  return { jsonrpc: '2.0' as const, id, error: toV03JsonRpcError(error) };
}

export function sendJsonRpcError(
  res: Response,
  error: A2AError,
  id: JsonRpcId,
  version: '1.0' | '0.3' = '1.0',
): void {
  setRetryAfter(res, error);
  const body = version === '0.3' ? v03JsonRpcErrorBody(error, id) : jsonRpcErrorBody(error, id);
  res.status(jsonRpcHttpStatus(error)).type('application/json').send(JSON.stringify(body));
}

/** google.rpc.Status in AIP-193 form (digest §5.4) with the configured mapping column. */
export function restErrorBody(error: A2AError, mapping: ErrorMapping) {
  const http = toHttpError(error, mapping);
  const status = forcedHttpStatus(error) ?? http.status;
  const grpc = forcedGrpcStatus(error) ?? http.body.error.status;
  return {
    status,
    headers: http.headers,
    body: { error: { ...http.body.error, code: status, status: grpc } },
  };
}

export function sendRestError(
  res: Response,
  error: A2AError,
  mapping: ErrorMapping,
  mediaType: RestMediaType = A2A_JSON,
): void {
  const { status, headers, body } = restErrorBody(error, mapping);
  res.set(headers).status(status).type(mediaType).send(JSON.stringify(body));
}

function setRetryAfter(res: Response, error: A2AError): void {
  if (error.retryAfterSeconds !== undefined)
    res.set('Retry-After', String(Math.max(1, Math.ceil(error.retryAfterSeconds))));
}
