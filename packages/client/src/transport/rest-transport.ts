import type {
  AgentCard,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  SendMessageRequest,
  SendMessageResponse,
  Task,
  TaskPushNotificationConfig,
} from '@switchyard/protocol';
import { errorFromStatusBody, parseJson, record } from '../errors/decode-error.ts';
import type { HttpClient, HttpRequest } from '../http/http-client.ts';
import { readText } from '../http/read-body.ts';
import { maySendAgain } from '../retry/send-retry.ts';
import { canceledByEarlierAttempt } from './cancel-after-retry.ts';
import { openStream } from './open-stream.ts';
import { asStreamResponse, invalidResponse } from './stream-response.ts';
import type {
  A2ATransport,
  BindingTransportOptions,
  CallOptions,
  CancelTaskOptions,
  GetTaskOptions,
  ListPushConfigsOptions,
  NewPushConfig,
  StreamEvent,
  SubscribeOptions,
} from './transport.ts';
import { isIdempotentCreate } from './idempotent-create.ts';

/** HTTP+JSON bodies SHOULD use this media type since 1.0.1 (digest §1); servers accept application/json too. */
const A2A_JSON = 'application/a2a+json';
const ACCEPT_JSON = 'application/a2a+json, application/json';

type Query = Record<string, string | number | boolean | undefined>;

/**
 * HTTP+JSON binding (digest §4.2): the proto's `google.api.http` routes below the interface URL,
 * the tenant as the first path segment, query parameters for reads, bare StreamResponse SSE events.
 */
export class RestTransport implements A2ATransport {
  readonly binding = 'HTTP+JSON' as const;
  readonly url: string;
  readonly #http: HttpClient;
  readonly #tenant: string | undefined;
  readonly #idleMs: number | undefined;

  constructor(options: BindingTransportOptions) {
    this.url = options.url.replace(/\/+$/, '');
    this.#http = options.http;
    this.#tenant = options.tenant || undefined;
    this.#idleMs = options.streamIdleTimeoutMs;
  }

  sendMessage(request: SendMessageRequest, options?: CallOptions): Promise<SendMessageResponse> {
    return this.#json({ method: 'POST', path: ['message:send'], body: withoutTenant(request) }, options, {
      retryIf: (error) => maySendAgain(request, error),
    });
  }

  sendStreamingMessage(request: SendMessageRequest, options?: CallOptions): AsyncGenerator<StreamEvent> {
    return this.#stream(
      {
        method: 'POST',
        url: this.#url(['message:stream']),
        body: withoutTenant(request),
        contentType: A2A_JSON,
      },
      options,
    );
  }

  getTask(taskId: string, options?: GetTaskOptions): Promise<Task> {
    return this.#json(
      { method: 'GET', path: ['tasks', seg(taskId)], query: { historyLength: options?.historyLength } },
      options,
    );
  }

  listTasks(request: ListTasksRequest = {}, options?: CallOptions): Promise<ListTasksResponse> {
    const { contextId, status, pageSize, pageToken, historyLength, statusTimestampAfter, includeArtifacts } =
      request;
    const query = {
      contextId,
      status,
      pageSize,
      pageToken,
      historyLength,
      statusTimestampAfter,
      includeArtifacts,
    };
    return this.#json({ method: 'GET', path: ['tasks'], query }, options);
  }

  cancelTask(taskId: string, options?: CancelTaskOptions): Promise<Task> {
    const body = options?.metadata ? { metadata: options.metadata } : {};
    return this.#json<Task>({ method: 'POST', path: ['tasks', `${seg(taskId)}:cancel`], body }, options, {
      refusedAfterRetry: (error) =>
        canceledByEarlierAttempt(error, () => this.getTask(taskId, { signal: options?.signal })),
    });
  }

  subscribeToTask(taskId: string, options?: SubscribeOptions): AsyncGenerator<StreamEvent> {
    // GET as in the proto's google.api.http rule; servers accept POST too (digest §12 #1).
    return this.#stream({ method: 'GET', url: this.#url(['tasks', `${seg(taskId)}:subscribe`]) }, options);
  }

  createPushConfig(config: NewPushConfig, options?: CallOptions): Promise<TaskPushNotificationConfig> {
    const { taskId, tenant: _tenant, ...body } = config;
    return this.#json(
      { method: 'POST', path: ['tasks', seg(taskId), 'pushNotificationConfigs'], body },
      options,
      { retryIf: () => isIdempotentCreate(config) },
    );
  }

  getPushConfig(
    taskId: string,
    configId: string,
    options?: CallOptions,
  ): Promise<TaskPushNotificationConfig> {
    return this.#json(
      { method: 'GET', path: ['tasks', seg(taskId), 'pushNotificationConfigs', seg(configId)] },
      options,
    );
  }

  listPushConfigs(
    taskId: string,
    options?: ListPushConfigsOptions,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    const query = { pageSize: options?.pageSize, pageToken: options?.pageToken };
    return this.#json(
      { method: 'GET', path: ['tasks', seg(taskId), 'pushNotificationConfigs'], query },
      options,
    );
  }

  async deletePushConfig(taskId: string, configId: string, options?: CallOptions): Promise<void> {
    // 200 `{}` or 204 (a2a-js), both fine (digest §12 #17); so is a 200 without a body.
    await this.#json(
      { method: 'DELETE', path: ['tasks', seg(taskId), 'pushNotificationConfigs', seg(configId)] },
      options,
      { returnsNothing: true },
    );
  }

  getExtendedAgentCard(options?: CallOptions): Promise<AgentCard> {
    return this.#json({ method: 'GET', path: ['extendedAgentCard'] }, options);
  }

  /** `{url}[/{tenant}]/a/b?query`; `path` segments arrive encoded (ids through `seg`). */
  #url(path: string[], query: Query = {}): string {
    const encoded = [...(this.#tenant !== undefined ? [seg(this.#tenant)] : []), ...path];
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query))
      if (value !== undefined && value !== '') params.set(key, String(value));
    const search = params.toString();
    return `${this.url}/${encoded.join('/')}${search ? `?${search}` : ''}`;
  }

  #json<T>(
    call: { method: HttpRequest['method']; path: string[]; query?: Query; body?: unknown },
    options?: CallOptions,
    flags: {
      /** Turns a refusal of a retried attempt into an answer (see canceledByEarlierAttempt). */
      refusedAfterRetry?: (error: unknown) => Promise<T>;
      /** The operation answers with nothing, so an empty body (or a 204) is a valid reply. */
      returnsNothing?: boolean;
      /** Which transient failures this operation may be repeated after; default all. */
      retryIf?: (error: unknown) => boolean;
    } = {},
  ): Promise<T> {
    const signal = options?.signal;
    const url = this.#url(call.path, call.query);
    return this.#http.retrying(
      async (attempt) => {
        const once = this.#jsonOnce<T>(call.method, url, call.body, signal, flags.returnsNothing === true);
        return attempt > 0 && flags.refusedAfterRetry ? once.catch(flags.refusedAfterRetry) : once;
      },
      signal,
      { retryIf: flags.retryIf },
    );
  }

  async #jsonOnce<T>(
    method: HttpRequest['method'],
    url: string,
    body: unknown,
    signal: AbortSignal | undefined,
    returnsNothing: boolean,
  ): Promise<T> {
    const response = await this.#http.fetch({
      method,
      url,
      ...(body !== undefined ? { body, contentType: A2A_JSON } : {}),
      accept: ACCEPT_JSON,
      signal,
    });
    const text = await readText(response, signal);
    if (returnsNothing && (response.status === 204 || text.trim() === '')) return {} as T;
    // Anywhere else an empty reply is no Task or SendMessageResponse: read as `{}`, it failed
    // later, far from its cause (the CLI's TypeError on task.status.state).
    if (text.trim() === '') throw invalidResponse(`${method} ${url}: the reply is empty`, response.status);
    const parsed = parseJson(text);
    if (!record(parsed))
      throw invalidResponse(`${method} ${url}: the reply is not a JSON object`, response.status);
    return parsed as T;
  }

  async *#stream(
    request: Omit<HttpRequest, 'accept'>,
    options?: SubscribeOptions,
  ): AsyncGenerator<StreamEvent> {
    const items = openStream(
      this.#http,
      { ...request, accept: 'text/event-stream' },
      { signal: options?.signal, idleTimeoutMs: this.#idleMs, lastEventId: options?.lastEventId },
    );
    for await (const item of items) {
      const body = record(parseJson(item.data));
      if (!body) throw invalidResponse('a stream event is not JSON', item.status);
      // A mid-stream error is a google.rpc.Status event (digest §12 #16).
      if (record(body['error']) && asStreamResponse(body, item.status) === undefined)
        throw errorFromStatusBody(body, item.status);
      const response = asStreamResponse(body, item.status);
      if (response) yield { ...(item.id !== undefined ? { id: item.id } : {}), response };
    }
  }
}

/** One path segment: ids are opaque strings (digest §1), so encode everything, `:` included. */
function seg(value: string): string {
  return encodeURIComponent(value);
}

/** The tenant travels in the path for HTTP+JSON, not in the body. */
function withoutTenant<T extends { tenant?: string | undefined }>(request: T): Omit<T, 'tenant'> {
  const { tenant: _tenant, ...rest } = request;
  return rest;
}
