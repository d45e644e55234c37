import { A2AError } from '../errors/a2a-error.ts';
import { methodNotFound } from '../errors/factories.ts';
import type { JsonRpcId } from '../types/json-rpc.ts';
import { isA2AMethod } from '../types/methods.ts';
import { checkJsonRpcEnvelope } from '../validation/json-rpc-envelope.ts';
import { isV03Method, type V03Method } from './methods.ts';

export interface V03JsonRpcRequestEnvelope {
  jsonrpc: '2.0';
  id: JsonRpcId;
  method: V03Method;
  params: unknown;
}

/**
 * The JSON-RPC envelope of a request served as 0.3: the same checks as 1.0, the 0.3 method names.
 * A 1.0 name here means the client forgot `A2A-Version` (missing means 0.3, digest §6): the
 * MethodNotFound says so instead of leaving it to guess.
 */
export function parseV03JsonRpcRequest(body: unknown): V03JsonRpcRequestEnvelope {
  const envelope = checkJsonRpcEnvelope(body);
  if (isV03Method(envelope.method)) return { ...envelope, method: envelope.method };
  if (isA2AMethod(envelope.method)) {
    throw new A2AError('MethodNotFound', {
      message: `${envelope.method} is an A2A 1.0 method: send the header A2A-Version: 1.0 (a request without it is A2A 0.3)`,
      metadata: { method: envelope.method },
    });
  }
  throw methodNotFound(envelope.method);
}
