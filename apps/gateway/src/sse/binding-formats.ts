import { toV03StreamResult, type ErrorMapping, type JsonRpcId } from '@switchyard/protocol';
import { jsonRpcErrorBody, restErrorBody, v03JsonRpcErrorBody } from '../http/error-replies.ts';
import type { SseFormat } from './sse-stream.ts';

/** JSON-RPC: every event is a whole JSON-RPC response carrying the request's id (digest §4.1). */
export function jsonRpcSseFormat(id: JsonRpcId): SseFormat {
  return {
    item: ({ response }) => ({ jsonrpc: '2.0', id, result: response }),
    error: (error) => jsonRpcErrorBody(error, id),
  };
}

/** JSON-RPC for a 0.3 client: bare results with `kind` and `final` (digest §13.1, §13.3). */
export function jsonRpcV03SseFormat(id: JsonRpcId): SseFormat {
  return {
    item: ({ response }) => ({ jsonrpc: '2.0', id, result: toV03StreamResult(response) }),
    error: (error) => v03JsonRpcErrorBody(error, id),
  };
}

/** HTTP+JSON: the bare StreamResponse (digest §4.2); an error is `{error: google.rpc.Status}`. */
export function restSseFormat(mapping: ErrorMapping): SseFormat {
  return {
    item: ({ response }) => response,
    error: (error) => restErrorBody(error, mapping).body,
  };
}
