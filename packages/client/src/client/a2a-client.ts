import { randomUUID } from 'node:crypto';
import { A2AError } from '@switchyard/protocol';
import type {
  AgentCard,
  AuthenticationInfo,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  Part,
  SendMessageRequest,
  SendMessageResponse,
  Task,
  TaskPushNotificationConfig,
  TaskStatus,
} from '@switchyard/protocol';
import { fetchAgentCard } from '../card/fetch-card.ts';
import { HttpClient } from '../http/http-client.ts';
import { userMessage } from '../messages.ts';
import type { FollowOptions, RunOptions } from '../run/run-options.ts';
import { runTask, waitForTask } from '../run/run-task.ts';
import { JsonRpcTransport } from '../transport/jsonrpc-transport.ts';
import { RestTransport } from '../transport/rest-transport.ts';
import { selectInterface } from '../transport/select-interface.ts';
import type {
  A2ATransport,
  CallOptions,
  CancelTaskOptions,
  GetTaskOptions,
  ListPushConfigsOptions,
  NewPushConfig,
  StreamEvent,
  SubscribeOptions,
} from '../transport/transport.ts';
import { DEFAULT_STREAM_IDLE_TIMEOUT_MS, type A2AClientOptions } from './a2a-client-options.ts';
import { publicCardHeaders, requestHeaders } from './auth-headers.ts';

export interface WebhookOptions {
  url: string;
  /** Opaque token the agent echoes (`X-A2A-Notification-Token`) so the receiver can check the sender. */
  token?: string | undefined;
  /** How the agent authenticates to the webhook, e.g. `{scheme: 'Bearer', credentials}`. */
  authentication?: AuthenticationInfo | undefined;
  /** Config id; default a fresh UUID, so a retried create replaces instead of duplicating. */
  id?: string | undefined;
}

/**
 * A typed A2A 1.0 client for one agent. The raw operations map one-to-one to the protocol; `run`,
 * `sendAndWait`, `continueTask` and `waitForTask` are the safe pattern built on them.
 */
export class A2AClient {
  readonly transport: A2ATransport;
  #card: AgentCard;

  constructor(card: AgentCard, transport: A2ATransport) {
    this.#card = card;
    this.transport = transport;
  }

  /**
   * Fetches the agent card at `cardUrl` and connects to its preferred supported interface. The
   * card is public: it is fetched without the caller's credentials (see publicCardHeaders).
   * `call.signal` aborts the card fetch.
   */
  static async fromCardUrl(
    cardUrl: string,
    options: A2AClientOptions = {},
    call: CallOptions = {},
  ): Promise<A2AClient> {
    const http = new HttpClient({
      headers: publicCardHeaders(options.headers),
      fetch: options.fetch,
      retry: options.retry,
      onRetry: options.onRetry,
    });
    const card = await fetchAgentCard(http, cardUrl, call.signal);
    return A2AClient.fromCard(card, options, cardUrl);
  }

  /** Connects to a card already at hand; `baseUrl` resolves relative interface URLs. */
  static fromCard(card: AgentCard, options: A2AClientOptions = {}, baseUrl?: string): A2AClient {
    const chosen = selectInterface(card, {
      ...(options.transport ? { prefer: options.transport } : {}),
      ...(baseUrl ? { baseUrl } : {}),
    });
    const http = new HttpClient({
      headers: requestHeaders(card, options),
      fetch: options.fetch,
      retry: options.retry,
      onRetry: options.onRetry,
    });
    const settings = {
      http,
      url: chosen.url,
      tenant: chosen.tenant,
      streamIdleTimeoutMs: options.streamIdleTimeoutMs ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS,
    };
    const transport =
      chosen.binding === 'JSONRPC' ? new JsonRpcTransport(settings) : new RestTransport(settings);
    return new A2AClient(card, transport);
  }

  /** The agent card in use: the public one, replaced by the extended card once fetched (digest §7.8). */
  get card(): AgentCard {
    return this.#card;
  }

  // --- the safe pattern -------------------------------------------------------------------

  /**
   * Sends non-blocking, follows the task over SSE (resuming with Last-Event-ID, falling back to
   * polling) and resolves when it is terminal or interrupted: `{task}`, or `{message}` when the
   * agent answered with a Message. Throws A2AResponseError, NetworkError (after retries) or
   * RunTimeoutError. Resending the same `message` object is safe: its messageId is kept.
   */
  run(message: Message, options: RunOptions = {}): Promise<SendMessageResponse> {
    return runTask(this.transport, this.#card, message, options);
  }

  /** `run()` of a text (or a prepared message). */
  sendAndWait(input: string | Message, options: RunOptions = {}): Promise<SendMessageResponse> {
    return this.run(typeof input === 'string' ? userMessage(input) : input, options);
  }

  /**
   * Answers an input-required (or auth-required) task: same taskId and contextId, then waits again.
   * Pass the task as last seen, `status` included: the answer is then told from the question it
   * answers without a GetTask before the send.
   */
  continueTask(
    task: Pick<Task, 'id' | 'contextId'> & { status?: TaskStatus | undefined },
    input: string | Part[],
    options: RunOptions = {},
  ): Promise<SendMessageResponse> {
    const message = userMessage(input, { taskId: task.id, contextId: task.contextId });
    return runTask(this.transport, this.#card, message, options, task.status);
  }

  /** Follows an existing task until it settles (the CLI's `tail`). */
  waitForTask(taskId: string, options: FollowOptions = {}): Promise<Task> {
    return waitForTask(this.transport, this.#card, taskId, options);
  }

  /** Registers a webhook for a task (push notifications, digest §8). */
  registerWebhook(
    taskId: string,
    webhook: WebhookOptions,
    options?: CallOptions,
  ): Promise<TaskPushNotificationConfig> {
    return this.createPushConfig(
      {
        taskId,
        ...(webhook.id ? { id: webhook.id } : {}),
        url: webhook.url,
        ...(webhook.token ? { token: webhook.token } : {}),
        ...(webhook.authentication ? { authentication: webhook.authentication } : {}),
      },
      options,
    );
  }

  /**
   * Every task matching `request`, following `nextPageToken` page by page. A server that hands out
   * a token it gave before would be followed forever: that is InvalidAgentResponse.
   */
  async *listAllTasks(request: ListTasksRequest = {}, options?: CallOptions): AsyncGenerator<Task> {
    let pageToken = request.pageToken;
    const followed = new Set<string>();
    do {
      const page = await this.listTasks({ ...request, ...(pageToken ? { pageToken } : {}) }, options);
      yield* page.tasks ?? [];
      pageToken = nextToken(page.nextPageToken, followed);
    } while (pageToken);
  }

  // --- the protocol operations -------------------------------------------------------------

  /** SendMessage; a message without messageId gets one, so the transport's retries are idempotent. */
  sendMessage(request: SendMessageRequest, options?: CallOptions): Promise<SendMessageResponse> {
    return this.transport.sendMessage(withMessageId(request), options);
  }

  sendStreamingMessage(request: SendMessageRequest, options?: CallOptions): AsyncGenerator<StreamEvent> {
    return this.transport.sendStreamingMessage(withMessageId(request), options);
  }

  getTask(taskId: string, options?: GetTaskOptions): Promise<Task> {
    return this.transport.getTask(taskId, options);
  }

  listTasks(request?: ListTasksRequest, options?: CallOptions): Promise<ListTasksResponse> {
    return this.transport.listTasks(request, options);
  }

  cancelTask(taskId: string, options?: CancelTaskOptions): Promise<Task> {
    return this.transport.cancelTask(taskId, options);
  }

  subscribeToTask(taskId: string, options?: SubscribeOptions): AsyncGenerator<StreamEvent> {
    return this.transport.subscribeToTask(taskId, options);
  }

  /**
   * CreateTaskPushNotificationConfig. A config with an id is retried after a lost reply (the
   * retry updates that config); one without is sent once, as it is: the server chooses its id,
   * and Switchyard updates the config it has for the URL, so registering a URL again (a process
   * restarting) makes no second config. A random id here would make one at every registration.
   */
  createPushConfig(config: NewPushConfig, options?: CallOptions): Promise<TaskPushNotificationConfig> {
    return this.transport.createPushConfig(config, options);
  }

  getPushConfig(
    taskId: string,
    configId: string,
    options?: CallOptions,
  ): Promise<TaskPushNotificationConfig> {
    return this.transport.getPushConfig(taskId, configId, options);
  }

  listPushConfigs(
    taskId: string,
    options?: ListPushConfigsOptions,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    return this.transport.listPushConfigs(taskId, options);
  }

  deletePushConfig(taskId: string, configId: string, options?: CallOptions): Promise<void> {
    return this.transport.deletePushConfig(taskId, configId, options);
  }

  /** GetExtendedAgentCard; the result replaces `card` for this client (digest §7.8 rule 33). */
  async getExtendedAgentCard(options?: CallOptions): Promise<AgentCard> {
    const card = await this.transport.getExtendedAgentCard(options);
    this.#card = card;
    return card;
  }
}

function withMessageId(request: SendMessageRequest): SendMessageRequest {
  if (request.message.messageId) return request;
  return { ...request, message: { ...request.message, messageId: randomUUID() } };
}

/**
 * The next page's token, or undefined after the last page; throws when the server repeats a token
 * it gave before (it ignores the token, and the pages would never end).
 */
export function nextToken(token: string | undefined, followed: Set<string>): string | undefined {
  if (!token) return undefined;
  if (followed.has(token))
    throw new A2AError('InvalidAgentResponse', {
      message: 'the server answered a page with a nextPageToken it had given before; stopping',
    });
  followed.add(token);
  return token;
}
