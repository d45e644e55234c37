import type {
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  TaskPushNotificationConfig,
} from '../types/push-config.ts';
import type {
  CancelTaskRequest,
  GetTaskRequest,
  SendMessageConfiguration,
  SendMessageRequest,
  SubscribeToTaskRequest,
} from '../types/requests.ts';
import { fromV03Message, toV03Message } from './objects.ts';
import {
  fromV03PushConfig,
  fromV03TaskPushConfig,
  toV03PushConfig,
  toV03TaskPushConfig,
} from './push-config.ts';
import { compact, mapArray, recordOf } from './shape.ts';
import type {
  DeleteTaskPushNotificationConfigParamsV03,
  GetTaskPushNotificationConfigParamsV03,
  ListTaskPushNotificationConfigParamsV03,
  MessageSendConfigurationV03,
  MessageSendParamsV03,
  TaskIdParamsV03,
  TaskPushNotificationConfigV03,
  TaskQueryParamsV03,
} from './types.ts';

// Params of every method (digest §13.1), both directions: 0.3 → 1.0 serves 0.3 clients, 1.0 → 0.3
// calls 0.3 agents. The 0.3 → 1.0 results are unvalidated; run the 1.0 validator on them next.

/**
 * message/send and message/stream params. `blocking` unset reads as blocking (returnImmediately
 * false), deliberately: it is what every 0.3 SDK server did in practice and what 1.0 does by
 * default, so a 0.3 and a 1.0 client sending the same request get the same answer, a finished
 * (or interrupted) task rather than a SUBMITTED one that a 0.3 client may never poll (digest
 * §13.1; a2a-js's compat layer reads unset as non-blocking instead).
 */
export function fromV03SendParams(params: MessageSendParamsV03): SendMessageRequest {
  const p = recordOf(params) as MessageSendParamsV03 | undefined;
  if (!p) return params as unknown as SendMessageRequest;
  const c = recordOf(p.configuration) as MessageSendConfigurationV03 | undefined;
  return compact({
    message: fromV03Message(p.message),
    configuration: c ? fromV03Configuration(c) : (p.configuration as undefined),
    metadata: p.metadata,
  });
}

function fromV03Configuration(c: MessageSendConfigurationV03): SendMessageConfiguration {
  return compact({
    acceptedOutputModes: c.acceptedOutputModes,
    historyLength: c.historyLength,
    taskPushNotificationConfig: c.pushNotificationConfig && fromV03PushConfig(c.pushNotificationConfig),
    // A non-boolean goes through as is, for the validator to name.
    returnImmediately: typeof c.blocking === 'boolean' ? !c.blocking : (c.blocking as undefined),
  });
}

/** `blocking` is always sent, so the 0.3 server's reading of an unset value never matters. */
export function toV03SendParams(request: SendMessageRequest): MessageSendParamsV03 {
  const c = request.configuration;
  return compact({
    message: toV03Message(request.message),
    configuration: c && toV03Configuration(c),
    metadata: request.metadata,
  });
}

function toV03Configuration(c: SendMessageConfiguration): MessageSendConfigurationV03 {
  return compact({
    acceptedOutputModes: c.acceptedOutputModes,
    historyLength: c.historyLength,
    pushNotificationConfig: c.taskPushNotificationConfig && toV03PushConfig(c.taskPushNotificationConfig),
    blocking: c.returnImmediately !== true,
  });
}

/** tasks/get: 0.3 `metadata` has no 1.0 place and is dropped. */
export function fromV03TaskQueryParams(params: TaskQueryParamsV03): GetTaskRequest {
  const p = recordOf(params) as TaskQueryParamsV03 | undefined;
  return p ? compact({ id: p.id, historyLength: p.historyLength }) : (params as unknown as GetTaskRequest);
}

export function toV03TaskQueryParams(request: GetTaskRequest): TaskQueryParamsV03 {
  return compact({ id: request.id, historyLength: request.historyLength });
}

/** tasks/cancel. */
export function fromV03CancelParams(params: TaskIdParamsV03): CancelTaskRequest {
  const p = recordOf(params) as TaskIdParamsV03 | undefined;
  return p ? compact({ id: p.id, metadata: p.metadata }) : (params as unknown as CancelTaskRequest);
}

export function toV03CancelParams(request: CancelTaskRequest): TaskIdParamsV03 {
  return compact({ id: request.id, metadata: request.metadata });
}

/** tasks/resubscribe. */
export function fromV03ResubscribeParams(params: TaskIdParamsV03): SubscribeToTaskRequest {
  const p = recordOf(params) as TaskIdParamsV03 | undefined;
  return p ? compact({ id: p.id }) : (params as unknown as SubscribeToTaskRequest);
}

export function toV03ResubscribeParams(request: SubscribeToTaskRequest): TaskIdParamsV03 {
  return { id: request.id };
}

/** tasks/pushNotificationConfig/set: nested → flat. */
export function fromV03SetPushConfigParams(
  params: TaskPushNotificationConfigV03,
): TaskPushNotificationConfig {
  return fromV03TaskPushConfig(params);
}

export function toV03SetPushConfigParams(request: TaskPushNotificationConfig): TaskPushNotificationConfigV03 {
  return toV03TaskPushConfig(request);
}

/**
 * tasks/pushNotificationConfig/get: 0.3 `id` is the task, `pushNotificationConfigId` the config.
 * 0.3 lets the config id out (a task then had one config), so `id` may be missing here.
 */
export function fromV03GetPushConfigParams(
  params: GetTaskPushNotificationConfigParamsV03,
): Omit<GetTaskPushNotificationConfigRequest, 'id'> & { id?: string } {
  const p = recordOf(params) as GetTaskPushNotificationConfigParamsV03 | undefined;
  if (!p) return params as unknown as GetTaskPushNotificationConfigRequest;
  return compact({ taskId: p.id, id: p.pushNotificationConfigId });
}

export function toV03GetPushConfigParams(
  request: GetTaskPushNotificationConfigRequest,
): GetTaskPushNotificationConfigParamsV03 {
  return { id: request.taskId, pushNotificationConfigId: request.id };
}

/** tasks/pushNotificationConfig/list: 0.3 has no pages. */
export function fromV03ListPushConfigParams(
  params: ListTaskPushNotificationConfigParamsV03,
): ListTaskPushNotificationConfigsRequest {
  const p = recordOf(params) as ListTaskPushNotificationConfigParamsV03 | undefined;
  return p ? { taskId: p.id } : (params as unknown as ListTaskPushNotificationConfigsRequest);
}

export function toV03ListPushConfigParams(
  request: ListTaskPushNotificationConfigsRequest,
): ListTaskPushNotificationConfigParamsV03 {
  return { id: request.taskId };
}

/** The list result: `{configs, nextPageToken}` → a bare array of nested configs. */
export function toV03PushConfigList(
  response: ListTaskPushNotificationConfigsResponse,
): TaskPushNotificationConfigV03[] {
  return (response.configs ?? []).map(toV03TaskPushConfig);
}

export function fromV03PushConfigList(
  result: TaskPushNotificationConfigV03[],
): ListTaskPushNotificationConfigsResponse {
  return { configs: mapArray(result, fromV03TaskPushConfig) ?? [], nextPageToken: '' };
}

/** tasks/pushNotificationConfig/delete (result: 0.3 `null` ↔ 1.0 Empty `{}`). */
export function fromV03DeletePushConfigParams(
  params: DeleteTaskPushNotificationConfigParamsV03,
): DeleteTaskPushNotificationConfigRequest {
  const p = recordOf(params) as DeleteTaskPushNotificationConfigParamsV03 | undefined;
  if (!p) return params as unknown as DeleteTaskPushNotificationConfigRequest;
  return compact({ taskId: p.id, id: p.pushNotificationConfigId });
}

export function toV03DeletePushConfigParams(
  request: DeleteTaskPushNotificationConfigRequest,
): DeleteTaskPushNotificationConfigParamsV03 {
  return { id: request.taskId, pushNotificationConfigId: request.id };
}
