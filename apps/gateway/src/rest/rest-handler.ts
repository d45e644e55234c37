import type { Request, RequestHandler, Response } from 'express';
import {
  parseCancelTaskBody,
  parseCreatePushConfigBody,
  parseGetTaskQuery,
  parseListPushConfigsQuery,
  parseListTasksQuery,
  parseRequestParams,
  parseSendMessageBody,
  type QueryParams,
} from '@switchyard/protocol';
import { operationContext, type BindingDeps } from '../a2a/binding-deps.ts';
import type { OperationContext } from '../a2a/operations.ts';
import { checkServiceParams, negotiatedVersion } from '../a2a/service-params.ts';
import { clientSignal } from '../http/client-signal.ts';
import { notFound } from '../http/edge-error.ts';
import { restMediaType } from '../http/error-replies.ts';
import { readJsonBody } from '../http/read-json-body.ts';
import { rejectUnstorableText } from '../http/reject-unstorable-text.ts';
import { a2aContextOf, stateOf } from '../http/request-state.ts';
import { restSseFormat } from '../sse/binding-formats.ts';
import { lastEventIdOf } from '../sse/last-event-id.ts';
import { serveStream } from '../sse/serve-stream.ts';
import { matchRestRoute, type MatchedRoute } from './rest-routes.ts';

/**
 * Everything below `{base}/rest` (digest §4.2). Errors are google.rpc.Status with the configured
 * status mapping; bodies are `application/a2a+json` unless configured or negotiated otherwise.
 */
export function restHandler(deps: BindingDeps): RequestHandler {
  return async (req, res) => {
    const state = stateOf(req);
    const route = matchRestRoute(req.method, req.path);
    state.method = route.op;
    if ('taskId' in route) state.taskId = route.taskId;
    const { identity, agent } = a2aContextOf(req);
    // The /{tenant} segment routes, it does not authorize (§2.6): only the caller's own works.
    if (route.tenant !== undefined && route.tenant !== identity.caller.tenantId) throw notFound();
    checkServiceParams(req, res, deps.cards.template(agent), negotiatedVersion(req, 'rest'), 'rest');
    if (route.op === 'SendStreamingMessage' || route.op === 'SubscribeToTask') {
      await stream(req, res, deps, route);
      return;
    }
    const ctx = operationContext(req, clientSignal(res, deps.shutdown));
    const result = await unary(req, deps, ctx, route);
    if (res.writableEnded || res.destroyed) return;
    res.status(200).type(restMediaType(req, deps.mediaType)).send(JSON.stringify(result));
  };
}

async function unary(
  req: Request,
  deps: BindingDeps,
  ctx: OperationContext,
  route: MatchedRoute,
): Promise<unknown> {
  const ops = deps.operations;
  const opts = route.tenant === undefined ? {} : { tenant: route.tenant };
  const body = () => readJsonBody(req, deps.bodyLimitBytes);
  switch (route.op) {
    case 'SendMessage':
      return ops.send(ctx, parseSendMessageBody(await body(), opts));
    case 'ListTasks':
      return ops.listTasks(ctx, parseListTasksQuery(queryOf(req), opts));
    case 'GetTask':
      return ops.getTask(ctx, parseGetTaskQuery(route.taskId, queryOf(req), opts));
    case 'CancelTask':
      return ops.cancelTask(ctx, parseCancelTaskBody(route.taskId, await body(), opts));
    case 'CreateTaskPushNotificationConfig':
      return ops.createPushConfig(ctx, parseCreatePushConfigBody(route.taskId, await body(), opts));
    case 'ListTaskPushNotificationConfigs':
      return ops.listPushConfigs(ctx, parseListPushConfigsQuery(route.taskId, queryOf(req), opts));
    case 'GetTaskPushNotificationConfig':
      return ops.getPushConfig(
        ctx,
        parseRequestParams(route.op, { taskId: route.taskId, id: route.configId, ...opts }),
      );
    case 'DeleteTaskPushNotificationConfig':
      return ops.deletePushConfig(
        ctx,
        parseRequestParams(route.op, { taskId: route.taskId, id: route.configId, ...opts }),
      );
    case 'GetExtendedAgentCard':
      return ops.extendedCard(ctx, route.tenant);
    case 'SendStreamingMessage':
    case 'SubscribeToTask':
      throw new Error(`${route.op} is a streaming operation`);
    default: {
      const unreachable: never = route;
      throw new Error(`unhandled route ${JSON.stringify(unreachable)}`);
    }
  }
}

function stream(
  req: Request,
  res: Response,
  deps: BindingDeps,
  route: Extract<MatchedRoute, { op: 'SendStreamingMessage' | 'SubscribeToTask' }>,
): Promise<void> {
  const opts = route.tenant === undefined ? {} : { tenant: route.tenant };
  return serveStream(req, res, deps, restSseFormat(deps.mapping), async (ctx) =>
    route.op === 'SendStreamingMessage'
      ? deps.operations.stream(
          ctx,
          parseSendMessageBody(await readJsonBody(req, deps.bodyLimitBytes), opts),
          lastEventIdOf(req, { lenient: true }),
        )
      : deps.operations.subscribe(
          ctx,
          parseRequestParams('SubscribeToTask', { id: route.taskId, ...opts }),
          lastEventIdOf(req),
        ),
  );
}

/** The query as the protocol's parsers take it: repeated keys become arrays (§4.2 query rules). */
function queryOf(req: Request): QueryParams {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of new URLSearchParams(req.originalUrl.split('?')[1] ?? '')) {
    const prev = out[key];
    out[key] = prev === undefined ? value : [...(Array.isArray(prev) ? prev : [prev]), value];
  }
  rejectUnstorableText(out);
  return out;
}
