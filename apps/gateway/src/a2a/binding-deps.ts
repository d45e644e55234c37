import type { Request } from 'express';
import type { TraceCarrier } from '@switchyard/engine';
import { HOP_COUNT_HEADER, readHopCountHeader } from '@switchyard/upstream';
import type { RestMediaType } from '../http/error-replies.ts';
import type { ErrorMapping } from '@switchyard/protocol';
import type { CardBuilder } from '../cards/card-builder.ts';
import { a2aContextOf, stateOf } from '../http/request-state.ts';
import type { StreamRegistry } from '../sse/stream-registry.ts';
import type { A2AOperations, OperationContext } from './operations.ts';

/** What both binding handlers need. */
export interface BindingDeps {
  operations: A2AOperations;
  cards: CardBuilder;
  streams: StreamRegistry;
  /** Aborted when the gateway stops: blocking waits return, streams end. */
  shutdown: AbortSignal;
  bodyLimitBytes: number;
  mapping: ErrorMapping;
  /** HTTP+JSON bodies' media type (HTTP_JSON_MEDIA_TYPE), negotiated per request. */
  mediaType: RestMediaType;
  heartbeatMs: number;
  maxBufferBytes: number;
}

export function operationContext(req: Request, signal: AbortSignal): OperationContext {
  const { identity, agent } = a2aContextOf(req);
  // An A2A 0.3 client: the webhooks it registers get 0.3 bodies. A copy, never the cached caller.
  const caller =
    stateOf(req).protocolVersion === '0.3'
      ? { ...identity.caller, protocolVersion: '0.3' as const }
      : identity.caller;
  const hops = readHopCountHeader(req.headers[HOP_COUNT_HEADER]);
  return { caller, agent, signal, trace: traceOf(req), ...(typeof hops === 'number' ? { hops } : {}) };
}

/** W3C trace context, carried into the job so the worker joins the request's trace (ARCHITECTURE §9). */
function traceOf(req: Request): TraceCarrier {
  const { traceparent, tracestate } = req.headers;
  return {
    ...(typeof traceparent === 'string' ? { traceparent } : {}),
    ...(typeof tracestate === 'string' ? { tracestate } : {}),
  };
}
