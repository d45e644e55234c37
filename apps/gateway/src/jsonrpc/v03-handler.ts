import type { Request, Response } from 'express';
import {
  fromV03ResubscribeParams,
  fromV03SendParams,
  parseRequestParams,
  parseV03JsonRpcRequest,
  type V03JsonRpcRequestEnvelope,
  type VersionNegotiation,
} from '@switchyard/protocol';
import { operationContext, type BindingDeps } from '../a2a/binding-deps.ts';
import { checkServiceParams, type ProtocolVersion } from '../a2a/service-params.ts';
import { clientSignal } from '../http/client-signal.ts';
import { a2aContextOf, stateOf } from '../http/request-state.ts';
import { jsonRpcV03SseFormat } from '../sse/binding-formats.ts';
import { lastEventIdOf } from '../sse/last-event-id.ts';
import { serveStream } from '../sse/serve-stream.ts';
import { taskIdOf } from './request-task-id.ts';
import { sendJsonRpcResult } from './send-result.ts';
import { dispatchV03Unary } from './v03-dispatch.ts';

/**
 * A JSON-RPC request served as A2A 0.3 (digest §13.1): the 0.3 envelope and params are translated
 * to the 1.0 request, validated by the same 1.0 validators, run by the same operations as a 1.0
 * call, and the results translated back. A 0.3 and a 1.0 client therefore share tasks.
 */
export async function handleV03Request(
  req: Request,
  res: Response,
  deps: BindingDeps,
  body: unknown,
  negotiated: VersionNegotiation<ProtocolVersion>,
): Promise<void> {
  const state = stateOf(req);
  const envelope = parseV03JsonRpcRequest(body);
  state.method = envelope.method;
  state.taskId = taskIdOf(envelope.params);
  checkServiceParams(req, res, deps.cards.template(a2aContextOf(req).agent), negotiated, 'jsonrpc');
  if (envelope.method === 'message/stream' || envelope.method === 'tasks/resubscribe') {
    await stream(req, res, deps, envelope);
    return;
  }
  const ctx = operationContext(req, clientSignal(res, deps.shutdown));
  const result = await dispatchV03Unary(deps.operations, ctx, envelope.method, envelope.params);
  sendJsonRpcResult(res, envelope.id, result);
}

function stream(
  req: Request,
  res: Response,
  deps: BindingDeps,
  envelope: V03JsonRpcRequestEnvelope,
): Promise<void> {
  const params = envelope.params as never;
  return serveStream(req, res, deps, jsonRpcV03SseFormat(envelope.id), (ctx) =>
    envelope.method === 'message/stream'
      ? deps.operations.stream(
          ctx,
          parseRequestParams('SendStreamingMessage', fromV03SendParams(params)),
          lastEventIdOf(req, { lenient: true }),
        )
      : deps.operations.subscribe(
          ctx,
          parseRequestParams('SubscribeToTask', fromV03ResubscribeParams(params)),
          lastEventIdOf(req),
        ),
  );
}
