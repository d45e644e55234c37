import type { ErrorDetail } from '../errors/error-details.ts';
import type { A2AMethod, A2AMethodRequest, A2AMethodResponse } from './methods.ts';

/** JSON-RPC 2.0 request id. `null` only appears in error replies to unreadable requests. */
export type JsonRpcId = string | number | null | ExactNumberId;

/**
 * An integer id beyond a double's exact range, kept as its digits (a raw JSON number, which
 * JSON.stringify writes back unchanged): see `parseJsonRequest`.
 */
export interface ExactNumberId {
  readonly rawJSON: string;
}

export interface JsonRpcRequest<M extends A2AMethod = A2AMethod> {
  jsonrpc: '2.0';
  id: JsonRpcId;
  method: M;
  /** May be omitted only for GetExtendedAgentCard (digest §4.1). */
  params?: A2AMethodRequest[M];
}

export interface JsonRpcSuccessResponse<M extends A2AMethod = A2AMethod> {
  jsonrpc: '2.0';
  id: JsonRpcId;
  result: A2AMethodResponse[M];
}

/** `data` is an array of ProtoJSON `Any` objects (ErrorInfo, BadRequest), digest §4.1 and §5.4. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: ErrorDetail[];
}

export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  id: JsonRpcId;
  error: JsonRpcErrorObject;
}

export type JsonRpcResponse<M extends A2AMethod = A2AMethod> =
  JsonRpcSuccessResponse<M> | JsonRpcErrorResponse;
