import { invalidRequest, methodNotFound } from '../errors/factories.ts';
import type { JsonRpcId } from '../types/json-rpc.ts';
import { isA2AMethod, type A2AMethod } from '../types/methods.ts';
import { isPlainObject } from './json-value.ts';
import { isExactNumberId } from './parse-json-request.ts';

/** A checked JSON-RPC 2.0 request; validate `params` next with `parseRequestParams(method, params)`. */
export interface JsonRpcRequestEnvelope {
  jsonrpc: '2.0';
  id: JsonRpcId;
  method: A2AMethod;
  params: unknown;
}

/**
 * Checks the JSON-RPC 2.0 envelope (digest §4.1): InvalidRequest (-32600) for a malformed
 * envelope, MethodNotFound (-32601) for a name outside the 11 A2A methods. Batches are refused:
 * A2A defines none, and one SSE response cannot answer several requests. Requests without `id`
 * (notifications) are refused too, since every A2A method has a result.
 */
export function parseJsonRpcRequest(body: unknown): JsonRpcRequestEnvelope {
  const envelope = checkJsonRpcEnvelope(body);
  if (!isA2AMethod(envelope.method)) throw methodNotFound(envelope.method);
  return { ...envelope, method: envelope.method };
}

/** The envelope checks of `parseJsonRpcRequest`, whatever the method set (0.3 shares them). */
export function checkJsonRpcEnvelope(body: unknown): {
  jsonrpc: '2.0';
  id: JsonRpcId;
  method: string;
  params: unknown;
} {
  if (Array.isArray(body)) throw invalidRequest('Batch requests are not supported');
  if (!isPlainObject(body)) throw invalidRequest('Request must be a JSON object');
  if (body['jsonrpc'] !== '2.0') {
    throw invalidRequest(undefined, [{ field: 'jsonrpc', description: 'must be "2.0"' }]);
  }
  if (!isJsonRpcId(body['id'])) {
    const description =
      typeof body['id'] === 'string'
        ? `must be at most ${MAX_JSON_RPC_ID_LENGTH} characters`
        : 'must be a string, a number or null';
    throw invalidRequest(undefined, [{ field: 'id', description }]);
  }
  const method = body['method'];
  if (typeof method !== 'string') {
    throw invalidRequest(undefined, [{ field: 'method', description: 'must be a string' }]);
  }
  return { jsonrpc: '2.0', id: body['id'], method, params: body['params'] };
}

/** The request's id for an error reply, or null when it cannot be read (JSON-RPC 2.0 §5). */
export function jsonRpcIdOf(body: unknown): JsonRpcId {
  if (!isPlainObject(body)) return null;
  const id = body['id'];
  return isJsonRpcId(id) ? id : null;
}

/**
 * The longest string `id` a request may carry (README "Limits"). JSON-RPC sets none, but a reply
 * and every event of a stream repeat the id: a 3 MB id on a stream nobody reads held about 7 MB of
 * gateway memory for as long as it stayed open, so a few dozen of them could exhaust a gateway.
 * Clients use counters or UUIDs.
 */
export const MAX_JSON_RPC_ID_LENGTH = 256;

function isJsonRpcId(value: unknown): value is JsonRpcId {
  if (typeof value === 'string') return value.length <= MAX_JSON_RPC_ID_LENGTH;
  return value === null || (typeof value === 'number' && Number.isFinite(value)) || isExactNumberId(value);
}
