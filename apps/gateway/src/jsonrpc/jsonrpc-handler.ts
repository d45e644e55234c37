import type { Request, RequestHandler, Response } from 'express';
import {
  jsonParseError,
  jsonRpcIdOf,
  parseJsonRpcRequest,
  parseRequestParams,
  type JsonRpcRequestEnvelope,
} from '@switchyard/protocol';
import { operationContext, type BindingDeps } from '../a2a/binding-deps.ts';
import { checkServiceParams, negotiatedVersion } from '../a2a/service-params.ts';
import { clientSignal } from '../http/client-signal.ts';
import { readJsonBody } from '../http/read-json-body.ts';
import { a2aContextOf, stateOf } from '../http/request-state.ts';
import { jsonRpcSseFormat } from '../sse/binding-formats.ts';
import { lastEventIdOf } from '../sse/last-event-id.ts';
import { serveStream } from '../sse/serve-stream.ts';
import { refuseBatch } from './batch-refusal.ts';
import { dispatchUnary } from './jsonrpc-dispatch.ts';
import { taskIdOf } from './request-task-id.ts';
import { sendJsonRpcResult } from './send-result.ts';
import { handleV03Request } from './v03-handler.ts';

/**
 * `POST {base}/rpc`: one JSON-RPC 2.0 request per HTTP request (digest §4.1). The order of checks
 * decides which error a bad request gets: body (413/415/-32700), envelope (-32600/-32601, batches
 * included), service parameters (-32009/-32008), params (-32602), then the operation. A request
 * without `A2A-Version` (or with 0.3) is A2A 0.3 (digest §6) and goes to the 0.3 translation.
 */
export function jsonRpcHandler(deps: BindingDeps): RequestHandler {
  return async (req, res) => {
    const state = stateOf(req);
    const body = await readJsonBody(req, deps.bodyLimitBytes);
    // An empty body is not JSON at all (-32700), unlike `{}` (-32600).
    if (body === undefined) throw jsonParseError();
    state.jsonRpcId = jsonRpcIdOf(body);
    const negotiated = negotiatedVersion(req, 'jsonrpc');
    if (Array.isArray(body) && body.length > 0) {
      refuseBatch(res, body, negotiated.ok ? negotiated.version : '1.0');
      return;
    }
    if (negotiated.ok && negotiated.version === '0.3') {
      await handleV03Request(req, res, deps, body, negotiated);
      return;
    }
    const envelope = parseJsonRpcRequest(body);
    state.method = envelope.method;
    state.taskId = taskIdOf(envelope.params);
    checkServiceParams(req, res, deps.cards.template(a2aContextOf(req).agent), negotiated, 'jsonrpc');
    if (envelope.method === 'SendStreamingMessage' || envelope.method === 'SubscribeToTask') {
      await stream(req, res, deps, envelope);
      return;
    }
    const ctx = operationContext(req, clientSignal(res, deps.shutdown));
    const result = await dispatchUnary(deps.operations, ctx, envelope.method, envelope.params);
    sendJsonRpcResult(res, envelope.id, result);
  };
}

function stream(
  req: Request,
  res: Response,
  deps: BindingDeps,
  envelope: JsonRpcRequestEnvelope,
): Promise<void> {
  return serveStream(req, res, deps, jsonRpcSseFormat(envelope.id), (ctx) =>
    envelope.method === 'SendStreamingMessage'
      ? deps.operations.stream(
          ctx,
          parseRequestParams('SendStreamingMessage', envelope.params),
          lastEventIdOf(req, { lenient: true }),
        )
      : deps.operations.subscribe(
          ctx,
          parseRequestParams('SubscribeToTask', envelope.params),
          lastEventIdOf(req),
        ),
  );
}
