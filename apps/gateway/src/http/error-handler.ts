import type { ErrorRequestHandler } from 'express';
import { invalidRequest, isA2AError, type A2AError, type ErrorMapping } from '@switchyard/protocol';
import { recordActiveError } from '@switchyard/telemetry';
import { AdminError } from '../admin/admin-error.ts';
import { toClientError } from './client-error.ts';
import { allowedMethods } from './edge-error.ts';
import { restMediaType, sendJsonRpcError, sendRestError, type RestMediaType } from './error-replies.ts';
import { stateOf } from './request-state.ts';

export interface ErrorHandlerOptions {
  mapping: ErrorMapping;
  /** HTTP+JSON bodies' media type (HTTP_JSON_MEDIA_TYPE), negotiated per request. */
  mediaType: RestMediaType;
  /** `WWW-Authenticate` challenges sent with every 401 (digest §9 rule 2). */
  challenges: readonly string[];
}

/**
 * The one place a thrown value becomes a reply (STYLE.md rule 4): in the binding's format, never a
 * stack trace (ARCHITECTURE.md §3 rule 7). Internal errors are logged with their cause.
 */
export function createErrorHandler({
  mapping,
  mediaType,
  challenges,
}: ErrorHandlerOptions): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const state = stateOf(req);
    if (res.headersSent) {
      // Streams report their own errors; anything else here can only cut the connection.
      state.log.error({ err }, 'error after the response started');
      res.destroy();
      return;
    }
    if (err instanceof AdminError) {
      res.status(err.status).type('application/json').send(JSON.stringify(err.toBody()));
      return;
    }
    const error = fromHttpLayer(err);
    state.outcome = error.kind;
    // A JSON-RPC reply to these is HTTP 200 (Unavailable is 503): the server span, which marks
    // only a 5xx failed, is told here.
    if (error.kind === 'Internal' || error.kind === 'Unavailable') recordActiveError(err);
    if (error.kind === 'Internal') state.log.error({ err }, 'internal error');
    else if (error.kind === 'Unavailable')
      state.log.warn({ err }, 'request refused: a dependency is unavailable');
    else state.log.debug({ reason: error.reason, message: error.message }, 'request refused');
    if (error.kind === 'Unauthenticated')
      for (const challenge of challenges) res.append('WWW-Authenticate', challenge);
    const allow = allowedMethods(error);
    if (allow) res.set('Allow', allow.join(', '));
    if (state.binding === 'jsonrpc') sendJsonRpcError(res, error, state.jsonRpcId, state.protocolVersion);
    else sendRestError(res, error, mapping, restMediaType(req, mediaType));
  };
}

/** Express/router errors carry an HTTP status (e.g. a malformed percent-encoding in the path). */
function fromHttpLayer(err: unknown): A2AError {
  if (!isA2AError(err) && typeof err === 'object' && err !== null) {
    const status = (err as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500)
      return invalidRequest('Malformed request');
  }
  return toClientError(err);
}
