import type { A2AMethod } from '../types/methods.ts';

/** 0.3 JSON-RPC method → the 1.0 method it is served by (digest §13.1). ListTasks has no 0.3 twin. */
export const V03_METHODS = Object.freeze({
  'message/send': 'SendMessage',
  'message/stream': 'SendStreamingMessage',
  'tasks/get': 'GetTask',
  'tasks/cancel': 'CancelTask',
  'tasks/resubscribe': 'SubscribeToTask',
  'tasks/pushNotificationConfig/set': 'CreateTaskPushNotificationConfig',
  'tasks/pushNotificationConfig/get': 'GetTaskPushNotificationConfig',
  'tasks/pushNotificationConfig/list': 'ListTaskPushNotificationConfigs',
  'tasks/pushNotificationConfig/delete': 'DeleteTaskPushNotificationConfig',
  'agent/getAuthenticatedExtendedCard': 'GetExtendedAgentCard',
} as const satisfies Record<string, A2AMethod>);

export type V03Method = keyof typeof V03_METHODS;

/** The 0.3 methods answered with an SSE stream. */
export const V03_STREAMING_METHODS: readonly V03Method[] = Object.freeze([
  'message/stream',
  'tasks/resubscribe',
]);

export function isV03Method(value: unknown): value is V03Method {
  return typeof value === 'string' && Object.hasOwn(V03_METHODS, value);
}

const byV1 = new Map<A2AMethod, V03Method>(
  Object.entries(V03_METHODS).map(([v03, v1]) => [v1, v03 as V03Method]),
);

/** The 0.3 name of a 1.0 method, or undefined (ListTasks). */
export function toV03Method(method: A2AMethod): V03Method | undefined {
  return byV1.get(method);
}
