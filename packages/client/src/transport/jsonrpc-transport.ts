import { randomUUID } from 'node:crypto';
import type {
  A2AMethod,
  A2AMethodResponse,
  AgentCard,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  SendMessageRequest,
  SendMessageResponse,
  Task,
  TaskPushNotificationConfig,
} from '@switchyard/protocol';
import { errorFromJsonRpc, parseJson, record } from '../errors/decode-error.ts';
import type { HttpClient } from '../http/http-client.ts';
import { readText } from '../http/read-body.ts';
import { maySendAgain } from '../retry/send-retry.ts';
import { openStream } from './open-stream.ts';
import { canceledByEarlierAttempt } from './cancel-after-retry.ts';
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

type UnaryMethod = Exclude<A2AMethod, 'SendStreamingMessage' | 'SubscribeToTask'>;

/**
 * JSON-RPC 2.0 binding (digest §4.1): one POST per call to the interface URL, PascalCase method
 * names, each SSE event a whole JSON-RPC response whose `result` is a StreamResponse.
 */
export class JsonRpcTransport implements A2ATransport {
  readonly binding = 'JSONRPC' as const;
  readonly url: string;
  readonly #http: HttpClient;
  readonly #tenant: string | undefined;
  readonly #idleMs: number | undefined;

  constructor(options: BindingTransportOptions) {
    this.url = options.url;
    this.#http = options.http;
    this.#tenant = options.tenant || undefined;
    this.#idleMs = options.streamIdleTimeoutMs;
  }

  sendMessage(request: SendMessageRequest, options?: CallOptions): Promise<SendMessageResponse> {
    return this.#call('SendMessage', request, options, { retryIf: (error) => maySendAgain(request, error) });
  }

  sendStreamingMessage(request: SendMessageRequest, options?: CallOptions): AsyncGenerator<StreamEvent> {
    return this.#stream('SendStreamingMessage', request, options);
  }

  getTask(taskId: string, options?: GetTaskOptions): Promise<Task> {
    const params = {
      id: taskId,
      ...(options?.historyLength !== undefined ? { historyLength: options.historyLength } : {}),
    };
    return this.#call('GetTask', params, options);
  }

  listTasks(request: ListTasksRequest = {}, options?: CallOptions): Promise<ListTasksResponse> {
    return this.#call('ListTasks', request, options);
  }

  cancelTask(taskId: string, options?: CancelTaskOptions): Promise<Task> {
    return this.#call(
      'CancelTask',
      { id: taskId, ...(options?.metadata ? { metadata: options.metadata } : {}) },
      options,
      {
        refusedAfterRetry: (error) =>
          canceledByEarlierAttempt(error, () => this.getTask(taskId, { signal: options?.signal })),
      },
    );
  }

  subscribeToTask(taskId: string, options?: SubscribeOptions): AsyncGenerator<StreamEvent> {
    return this.#stream('SubscribeToTask', { id: taskId }, options);
  }

  createPushConfig(config: NewPushConfig, options?: CallOptions): Promise<TaskPushNotificationConfig> {
    return this.#call('CreateTaskPushNotificationConfig', config, options, {
      retryIf: () => isIdempotentCreate(config),
    });
  }

  getPushConfig(
    taskId: string,
    configId: string,
    options?: CallOptions,
  ): Promise<TaskPushNotificationConfig> {
    return this.#call('GetTaskPushNotificationConfig', { taskId, id: configId }, options);
  }

  listPushConfigs(
    taskId: string,
    options?: ListPushConfigsOptions,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    const params = {
      taskId,
      ...(options?.pageSize !== undefined ? { pageSize: options.pageSize } : {}),
      ...(options?.pageToken ? { pageToken: options.pageToken } : {}),
    };
    return this.#call('ListTaskPushNotificationConfigs', params, options);
  }

  async deletePushConfig(taskId: string, configId: string, options?: CallOptions): Promise<void> {
    // The result is `{}` in ProtoJSON and `null` from a2a-js (digest §12 #17): both are fine.
    await this.#call('DeleteTaskPushNotificationConfig', { taskId, id: configId }, options, {
      allowNullResult: true,
    });
  }

  getExtendedAgentCard(options?: CallOptions): Promise<AgentCard> {
    return this.#call('GetExtendedAgentCard', {}, options);
  }

  #params(params: object): object {
    return this.#tenant !== undefined && !('tenant' in params && params.tenant)
      ? { ...params, tenant: this.#tenant }
      : params;
  }

  #call<M extends UnaryMethod>(
    method: M,
    params: object,
    options?: CallOptions,
    flags: {
      allowNullResult?: boolean;
      /** Turns a refusal of a retried attempt into an answer (see canceledByEarlierAttempt). */
      refusedAfterRetry?: (error: unknown) => Promise<A2AMethodResponse[M]>;
      /** Which transient failures this call may be repeated after; default all. */
      retryIf?: (error: unknown) => boolean;
    } = {},
  ): Promise<A2AMethodResponse[M]> {
    const signal = options?.signal;
    return this.#http.retrying(
      async (attempt) => {
        const once = this.#callOnce(method, params, signal, flags);
        return attempt > 0 && flags.refusedAfterRetry ? once.catch(flags.refusedAfterRetry) : once;
      },
      signal,
      { retryIf: flags.retryIf },
    );
  }

  async #callOnce<M extends UnaryMethod>(
    method: M,
    params: object,
    signal: AbortSignal | undefined,
    flags: { allowNullResult?: boolean },
  ): Promise<A2AMethodResponse[M]> {
    const id = randomUUID();
    const response = await this.#http.fetch({
      method: 'POST',
      url: this.url,
      body: { jsonrpc: '2.0', id, method, params: this.#params(params) },
      contentType: 'application/json',
      accept: 'application/json',
      signal,
    });
    const envelope = record(parseJson(await readText(response, signal)));
    const isError = envelope?.['error'] !== undefined && envelope['error'] !== null;
    // A reply carries the request's id (JSON-RPC 2.0 §5; null only for an error about a request
    // the server could not read): any other id answers some other request, and its result is not ours.
    if (envelope && envelope['id'] !== id && !(isError && envelope['id'] === null))
      throw invalidResponse(
        `${method}: the reply's id ${JSON.stringify(envelope['id'])} is not the request's`,
        response.status,
      );
    if (isError) throw errorFromJsonRpc(envelope?.['error'], response.status);
    if (!envelope || !('result' in envelope))
      throw invalidResponse(`${method}: the reply is not a JSON-RPC response`, response.status);
    const result = envelope['result'];
    if (result === null && flags.allowNullResult) return {} as A2AMethodResponse[M];
    if (!record(result)) throw invalidResponse(`${method}: the result is not an object`, response.status);
    return result as A2AMethodResponse[M];
  }

  async *#stream(
    method: 'SendStreamingMessage' | 'SubscribeToTask',
    params: object,
    options?: SubscribeOptions,
  ): AsyncGenerator<StreamEvent> {
    const items = openStream(
      this.#http,
      {
        method: 'POST',
        url: this.url,
        body: { jsonrpc: '2.0', id: randomUUID(), method, params: this.#params(params) },
        contentType: 'application/json',
        accept: 'text/event-stream',
      },
      { signal: options?.signal, idleTimeoutMs: this.#idleMs, lastEventId: options?.lastEventId },
    );
    for await (const item of items) {
      const envelope = record(parseJson(item.data));
      if (!envelope) throw invalidResponse(`${method}: a stream event is not JSON`, item.status);
      if (envelope['error'] !== undefined && envelope['error'] !== null)
        throw errorFromJsonRpc(envelope['error'], item.status);
      const response = asStreamResponse(envelope['result'], item.status);
      if (response) yield { ...(item.id !== undefined ? { id: item.id } : {}), response };
    }
  }
}
