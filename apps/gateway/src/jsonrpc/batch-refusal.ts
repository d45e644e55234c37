import type { Response } from 'express';
import { invalidRequest, jsonRpcIdOf } from '@switchyard/protocol';
import { jsonRpcErrorBody, v03JsonRpcErrorBody } from '../http/error-replies.ts';

/**
 * Batches each refused in the form JSON-RPC 2.0 §6 gives a batch's answer: an array with one
 * response per request, each InvalidRequest under the request's own id (null where it has none),
 * so a client matching replies to ids learns what became of each. A2A defines no batches, and
 * one SSE response cannot answer several requests. An empty array is not a batch: it is answered
 * with one InvalidRequest, as the JSON-RPC spec says, by the envelope check.
 */
export function refuseBatch(res: Response, batch: unknown[], version: '1.0' | '0.3'): void {
  const error = invalidRequest('Batch requests are not supported; send each request on its own');
  const body = batch.map((request) =>
    version === '0.3'
      ? v03JsonRpcErrorBody(error, jsonRpcIdOf(request))
      : jsonRpcErrorBody(error, jsonRpcIdOf(request)),
  );
  res.status(200).type('application/json').send(JSON.stringify(body));
}
