import {
  fromV03CancelParams,
  fromV03DeletePushConfigParams,
  fromV03GetPushConfigParams,
  fromV03ListPushConfigParams,
  fromV03SendParams,
  fromV03SetPushConfigParams,
  fromV03TaskQueryParams,
  parseRequestParams,
  taskNotFound,
  toV03AgentCard,
  toV03PushConfigList,
  toV03SendResult,
  toV03Task,
  toV03TaskPushConfig,
  type ListTaskPushNotificationConfigsRequest,
  type TaskPushNotificationConfig,
  type V03Method,
} from '@switchyard/protocol';
import type { A2AOperations, OperationContext } from '../a2a/operations.ts';

/** The unary 0.3 methods: 0.3 params → 1.0 request → operation → 0.3 result (digest §13.1). */
export async function dispatchV03Unary(
  ops: A2AOperations,
  ctx: OperationContext,
  method: Exclude<V03Method, 'message/stream' | 'tasks/resubscribe'>,
  raw: unknown,
): Promise<unknown> {
  // The fromV03* readers take anything; the 1.0 validators then reject what is malformed.
  const params = raw as never;
  switch (method) {
    case 'message/send':
      return toV03SendResult(
        await ops.send(ctx, parseRequestParams('SendMessage', fromV03SendParams(params))),
      );
    case 'tasks/get':
      return toV03Task(await ops.getTask(ctx, parseRequestParams('GetTask', fromV03TaskQueryParams(params))));
    case 'tasks/cancel':
      return toV03Task(
        await ops.cancelTask(ctx, parseRequestParams('CancelTask', fromV03CancelParams(params))),
      );
    case 'tasks/pushNotificationConfig/set': {
      const request = parseRequestParams(
        'CreateTaskPushNotificationConfig',
        fromV03SetPushConfigParams(params),
      );
      return toV03TaskPushConfig(await ops.createPushConfig(ctx, request));
    }
    case 'tasks/pushNotificationConfig/get':
      return toV03TaskPushConfig(await getPushConfig(ops, ctx, params));
    case 'tasks/pushNotificationConfig/list': {
      const request = parseRequestParams(
        'ListTaskPushNotificationConfigs',
        fromV03ListPushConfigParams(params),
      );
      return toV03PushConfigList({ configs: await allPushConfigs(ops, ctx, request) });
    }
    case 'tasks/pushNotificationConfig/delete': {
      const request = parseRequestParams(
        'DeleteTaskPushNotificationConfig',
        fromV03DeletePushConfigParams(params),
      );
      await ops.deletePushConfig(ctx, request);
      return null;
    }
    case 'agent/getAuthenticatedExtendedCard':
      return toV03AgentCard(ops.extendedCard(ctx), { embedV1Interfaces: true });
    default: {
      const unreachable: never = method;
      throw new Error(`unhandled method ${String(unreachable)}`);
    }
  }
}

/**
 * 0.3 may leave out the config id: 0.3 servers kept one config per task, so the task's config
 * (its first, when a 1.0 client added more) is the answer, TaskNotFound when it has none.
 */
async function getPushConfig(
  ops: A2AOperations,
  ctx: OperationContext,
  params: never,
): Promise<TaskPushNotificationConfig> {
  const request = fromV03GetPushConfigParams(params);
  if (request?.id !== undefined) {
    return ops.getPushConfig(ctx, parseRequestParams('GetTaskPushNotificationConfig', request));
  }
  const list = parseRequestParams('ListTaskPushNotificationConfigs', {
    taskId: request?.taskId,
    pageSize: 1,
  });
  const [first] = (await ops.listPushConfigs(ctx, list)).configs ?? [];
  if (!first) throw taskNotFound(list.taskId);
  return first;
}

/** 0.3 lists have no pages: every page, within a bound no real task reaches. */
async function allPushConfigs(
  ops: A2AOperations,
  ctx: OperationContext,
  request: ListTaskPushNotificationConfigsRequest,
): Promise<TaskPushNotificationConfig[]> {
  const configs: TaskPushNotificationConfig[] = [];
  let pageToken: string | undefined;
  for (let page = 0; page < 100; page++) {
    const reply = await ops.listPushConfigs(ctx, {
      ...request,
      pageSize: 100,
      ...(pageToken ? { pageToken } : {}),
    });
    configs.push(...(reply.configs ?? []));
    pageToken = reply.nextPageToken;
    if (!pageToken) break;
  }
  return configs;
}
