import type { Response } from 'express';
import type { JsonRpcId } from '@switchyard/protocol';

/** A JSON-RPC success reply (1.0 and 0.3 alike), unless the client has already gone. */
export function sendJsonRpcResult(res: Response, id: JsonRpcId, result: unknown): void {
  if (res.writableEnded || res.destroyed) return;
  res
    .status(200)
    .type('application/json')
    .send(JSON.stringify({ jsonrpc: '2.0', id, result }));
}
