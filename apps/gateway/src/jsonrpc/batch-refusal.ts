import type { Response } from 'express';
import { invalidRequest, jsonRpcIdOf, type JsonRpcId } from '@switchyard/protocol';
import { jsonRpcErrorBody, v03JsonRpcErrorBody } from '../http/error-replies.ts';

/**
 * The most requests of a batch answered one by one. A request of two bytes (`0,`) would otherwise
 * cost a reply of a few hundred: a 4 MiB body of them, half a gigabyte built in one go.
 */
export const MAX_BATCH_ANSWERS = 100;

/**
 * Batches each refused in the form JSON-RPC 2.0 §6 gives a batch's answer: an array with one
 * response per request, each InvalidRequest under the request's own id (null where it has none),
 * so a client matching replies to ids learns what became of each. A2A defines no batches, and
 * one SSE response cannot answer several requests. A batch of more than MAX_BATCH_ANSWERS gets
 * one InvalidRequest (id null), as an empty array does (the envelope check).
 */
export function refuseBatch(res: Response, batch: unknown[], version: '1.0' | '0.3'): void {
  const error = invalidRequest(
    batch.length > MAX_BATCH_ANSWERS
      ? `Batch requests are not supported (and this one has over ${MAX_BATCH_ANSWERS} requests); send each request on its own`
      : 'Batch requests are not supported; send each request on its own',
  );
  const answer = (id: JsonRpcId) =>
    version === '0.3' ? v03JsonRpcErrorBody(error, id) : jsonRpcErrorBody(error, id);
  const body =
    batch.length > MAX_BATCH_ANSWERS ? answer(null) : batch.map((request) => answer(jsonRpcIdOf(request)));
  res.status(200).type('application/json').send(JSON.stringify(body));
}
