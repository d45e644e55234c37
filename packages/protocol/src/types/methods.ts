import type { AgentCard } from './agent-card.ts';
import type { SendMessageResponse, StreamResponse } from './events.ts';
import type {
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  TaskPushNotificationConfig,
} from './push-config.ts';
import type {
  CancelTaskRequest,
  GetExtendedAgentCardRequest,
  GetTaskRequest,
  ListTasksRequest,
  ListTasksResponse,
  SendMessageRequest,
  SubscribeToTaskRequest,
} from './requests.ts';
import type { Task } from './task.ts';

/** The 11 operations; JSON-RPC method names and gRPC RPC names are identical (digest §4.1, §4.3). */
export const A2A_METHODS = Object.freeze([
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
  'GetExtendedAgentCard',
] as const);

export type A2AMethod = (typeof A2A_METHODS)[number];

/** Methods answered with an SSE stream of StreamResponse. */
export const STREAMING_METHODS: readonly A2AMethod[] = Object.freeze([
  'SendStreamingMessage',
  'SubscribeToTask',
]);

export function isA2AMethod(value: unknown): value is A2AMethod {
  return typeof value === 'string' && (A2A_METHODS as readonly string[]).includes(value);
}

/** Request message of each method (the JSON-RPC `params`). */
export interface A2AMethodRequest {
  SendMessage: SendMessageRequest;
  SendStreamingMessage: SendMessageRequest;
  GetTask: GetTaskRequest;
  ListTasks: ListTasksRequest;
  CancelTask: CancelTaskRequest;
  SubscribeToTask: SubscribeToTaskRequest;
  CreateTaskPushNotificationConfig: TaskPushNotificationConfig;
  GetTaskPushNotificationConfig: GetTaskPushNotificationConfigRequest;
  ListTaskPushNotificationConfigs: ListTaskPushNotificationConfigsRequest;
  DeleteTaskPushNotificationConfig: DeleteTaskPushNotificationConfigRequest;
  GetExtendedAgentCard: GetExtendedAgentCardRequest;
}

/**
 * Response message of each method (the JSON-RPC `result`); for the streaming methods, the type of
 * each streamed item. Delete returns `google.protobuf.Empty`, i.e. `{}` (§12 #17).
 */
export interface A2AMethodResponse {
  SendMessage: SendMessageResponse;
  SendStreamingMessage: StreamResponse;
  GetTask: Task;
  ListTasks: ListTasksResponse;
  CancelTask: Task;
  SubscribeToTask: StreamResponse;
  CreateTaskPushNotificationConfig: TaskPushNotificationConfig;
  GetTaskPushNotificationConfig: TaskPushNotificationConfig;
  ListTaskPushNotificationConfigs: ListTaskPushNotificationConfigsResponse;
  DeleteTaskPushNotificationConfig: Record<string, never>;
  GetExtendedAgentCard: AgentCard;
}
