import { parseRequestParams, type A2AMethod } from '@switchyard/protocol';
import type { A2AOperations, OperationContext } from '../a2a/operations.ts';

/** The unary (non-streaming) methods: one JSON-RPC result each (digest §4.1 method table). */
export async function dispatchUnary(
  operations: A2AOperations,
  ctx: OperationContext,
  method: Exclude<A2AMethod, 'SendStreamingMessage' | 'SubscribeToTask'>,
  params: unknown,
): Promise<unknown> {
  switch (method) {
    case 'SendMessage':
      return operations.send(ctx, parseRequestParams(method, params));
    case 'GetTask':
      return operations.getTask(ctx, parseRequestParams(method, params));
    case 'ListTasks':
      return operations.listTasks(ctx, parseRequestParams(method, params));
    case 'CancelTask':
      return operations.cancelTask(ctx, parseRequestParams(method, params));
    case 'CreateTaskPushNotificationConfig':
      return operations.createPushConfig(ctx, parseRequestParams(method, params));
    case 'GetTaskPushNotificationConfig':
      return operations.getPushConfig(ctx, parseRequestParams(method, params));
    case 'ListTaskPushNotificationConfigs':
      return operations.listPushConfigs(ctx, parseRequestParams(method, params));
    case 'DeleteTaskPushNotificationConfig':
      return operations.deletePushConfig(ctx, parseRequestParams(method, params));
    case 'GetExtendedAgentCard':
      return operations.extendedCard(ctx, parseRequestParams(method, params).tenant);
    default: {
      const unreachable: never = method;
      throw new Error(`unhandled method ${String(unreachable)}`);
    }
  }
}
