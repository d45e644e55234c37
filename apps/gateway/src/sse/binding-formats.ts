import {
  toV03StreamResult,
  type ErrorMapping,
  type JsonRpcId,
  type StreamResponse,
} from '@switchyard/protocol';
import { jsonRpcErrorBody, restErrorBody, v03JsonRpcErrorBody } from '../http/error-replies.ts';
import type { SseFormat } from './sse-stream.ts';

/**
 * The JSON text of an event, once per event object and wire version: every stream of a task gets
 * the same object from the hint (the feed's inline fast path), so a task followed by a thousand
 * streams is serialized once, not a thousand times. Events are never mutated after they are made.
 */
const v10Json = new WeakMap<StreamResponse, string>();
const v03Json = new WeakMap<StreamResponse, string>();

function responseJson(response: StreamResponse, cache: WeakMap<StreamResponse, string>, v03: boolean) {
  let text = cache.get(response);
  if (text === undefined) {
    text = JSON.stringify(v03 ? toV03StreamResult(response) : response);
    cache.set(response, text);
  }
  return text;
}

/** JSON-RPC: every event is a whole JSON-RPC response carrying the request's id (digest §4.1). */
export function jsonRpcSseFormat(id: JsonRpcId): SseFormat {
  const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`;
  return {
    itemJson: ({ response }) => `${head}${responseJson(response, v10Json, false)}}`,
    error: (error) => jsonRpcErrorBody(error, id),
  };
}

/** JSON-RPC for a 0.3 client: bare results with `kind` and `final` (digest §13.1, §13.3). */
export function jsonRpcV03SseFormat(id: JsonRpcId): SseFormat {
  const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`;
  return {
    itemJson: ({ response }) => `${head}${responseJson(response, v03Json, true)}}`,
    error: (error) => v03JsonRpcErrorBody(error, id),
  };
}

/** HTTP+JSON: the bare StreamResponse (digest §4.2); an error is `{error: google.rpc.Status}`. */
export function restSseFormat(mapping: ErrorMapping): SseFormat {
  return {
    itemJson: ({ response }) => responseJson(response, v10Json, false),
    error: (error) => restErrorBody(error, mapping).body,
  };
}
