import type {
  AgentCard,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  JsonObject,
  SendMessageRequest,
  SendMessageResponse,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
} from '@switchyard/protocol';
import type { HttpClient } from '../http/http-client.ts';
import type { SupportedBinding } from '../version.ts';

/** One streamed item: the StreamResponse and the SSE `id` the server gave it (for Last-Event-ID). */
export interface StreamEvent {
  id?: string;
  response: StreamResponse;
}

export interface CallOptions {
  /** Aborts the call (and closes a stream). */
  signal?: AbortSignal | undefined;
}

export interface GetTaskOptions extends CallOptions {
  /** At most this many recent history messages (digest §7.3). */
  historyLength?: number | undefined;
}

export interface CancelTaskOptions extends CallOptions {
  metadata?: JsonObject | undefined;
}

export interface SubscribeOptions extends CallOptions {
  /** Resume after this SSE event id: the server sends only later events, no second snapshot. */
  lastEventId?: string | undefined;
}

export interface ListPushConfigsOptions extends CallOptions {
  pageSize?: number | undefined;
  pageToken?: string | undefined;
}

/** A push config to create: `taskId` and `url` are required. */
export type NewPushConfig = TaskPushNotificationConfig & { taskId: string };

/**
 * The eleven A2A operations over one binding of one agent interface. Both implementations copy the
 * interface's `tenant` into every request (digest §2.6), send `A2A-Version: 1.0`, retry transient
 * failures and throw A2AResponseError / NetworkError.
 */
export interface A2ATransport {
  readonly binding: SupportedBinding;
  /** The interface URL requests go to. */
  readonly url: string;
  sendMessage(request: SendMessageRequest, options?: CallOptions): Promise<SendMessageResponse>;
  sendStreamingMessage(request: SendMessageRequest, options?: CallOptions): AsyncGenerator<StreamEvent>;
  getTask(taskId: string, options?: GetTaskOptions): Promise<Task>;
  listTasks(request?: ListTasksRequest, options?: CallOptions): Promise<ListTasksResponse>;
  cancelTask(taskId: string, options?: CancelTaskOptions): Promise<Task>;
  subscribeToTask(taskId: string, options?: SubscribeOptions): AsyncGenerator<StreamEvent>;
  createPushConfig(config: NewPushConfig, options?: CallOptions): Promise<TaskPushNotificationConfig>;
  getPushConfig(taskId: string, configId: string, options?: CallOptions): Promise<TaskPushNotificationConfig>;
  listPushConfigs(
    taskId: string,
    options?: ListPushConfigsOptions,
  ): Promise<ListTaskPushNotificationConfigsResponse>;
  deletePushConfig(taskId: string, configId: string, options?: CallOptions): Promise<void>;
  getExtendedAgentCard(options?: CallOptions): Promise<AgentCard>;
}

/** What both binding transports are built from. */
export interface BindingTransportOptions {
  http: HttpClient;
  /** The interface URL from the card. */
  url: string;
  /** The interface's `tenant`, copied into every request when set (digest §2.6). */
  tenant?: string | undefined;
  /** See A2AClientOptions.streamIdleTimeoutMs, in ms. */
  streamIdleTimeoutMs?: number | undefined;
}
