import type { A2AMethod, A2AMethodRequest, A2AMethodResponse, StreamResponse } from '@switchyard/protocol';
import { openSse, send, type HttpReply, type RequestOptions } from './http.ts';

export type BindingName = 'jsonrpc' | 'rest';
export type StreamMethod = 'SendStreamingMessage' | 'SubscribeToTask';
export type UnaryMethod = Exclude<A2AMethod, StreamMethod>;

/** An A2A error as the tests compare it across bindings: ErrorInfo reason plus transport codes. */
export interface Failure {
  ok: false;
  reason: string;
  message: string;
  status: number;
  headers: Headers;
  /** JSON-RPC `error.code`, or the google.rpc.Status `status` name for REST. */
  code: number | string | undefined;
  body: unknown;
}

export type Outcome<T> = { ok: true; value: T; status: number; headers: Headers } | Failure;

export interface StreamEvent {
  id: string | undefined;
  /** The StreamResponse (unwrapped from the JSON-RPC envelope). */
  response?: StreamResponse;
  /** A final error event. */
  error?: { reason: string; message: string };
  /** JSON-RPC only: the envelope's id. */
  envelopeId?: unknown;
}

export type StreamOutcome =
  { ok: true; status: number; headers: Headers; events: StreamEvent[]; comments: string[] } | Failure;

/**
 * One client over either binding, so every operation test runs on both (digest §7.9 rule 35).
 * `tenantTwin` sends REST calls through the `/{tenant}/…` routes.
 */
export class A2ATestClient {
  readonly binding: BindingName;
  readonly base: string;
  readonly key: string | undefined;
  readonly tenantTwin: string | undefined;
  #nextId = 1;

  constructor(binding: BindingName, base: string, key: string | undefined, tenantTwin?: string) {
    this.binding = binding;
    this.base = base;
    this.key = key;
    this.tenantTwin = tenantTwin;
  }

  with(key: string | undefined): A2ATestClient {
    return new A2ATestClient(this.binding, this.base, key, this.tenantTwin);
  }

  async call<M extends UnaryMethod>(
    method: M,
    params: A2AMethodRequest[M],
    options: RequestOptions = {},
  ): Promise<Outcome<A2AMethodResponse[M]>> {
    const opts = { key: this.key, ...options };
    if (this.binding === 'jsonrpc') {
      const reply = await send('POST', `${this.base}/rpc`, {
        ...opts,
        body: { jsonrpc: '2.0', id: this.#nextId++, method, params },
      });
      const body = reply.body as { result?: A2AMethodResponse[M]; error?: unknown } | undefined;
      if (body && 'result' in body)
        return {
          ok: true,
          value: body.result as A2AMethodResponse[M],
          status: reply.status,
          headers: reply.headers,
        };
      return failure(reply);
    }
    const { verb, path, body } = restRequest(method, params as unknown as Record<string, unknown>);
    const reply = await send(verb, `${this.restBase()}${path}`, {
      ...opts,
      ...(body !== undefined ? { body } : {}),
    });
    if (reply.status === 200)
      return { ok: true, value: reply.body as A2AMethodResponse[M], status: 200, headers: reply.headers };
    return failure(reply);
  }

  async stream(
    method: StreamMethod,
    params: A2AMethodRequest[StreamMethod],
    options: RequestOptions & {
      stopAfter?: number;
      verb?: 'GET' | 'POST';
      onEvent?: (e: StreamEvent) => void;
    } = {},
  ): Promise<StreamOutcome> {
    const opts = { key: this.key, ...options };
    const onEvent = options.onEvent;
    const map = (raw: { id: string | undefined; data: unknown }): StreamEvent => this.#event(raw);
    const sseOpts = {
      ...opts,
      ...(onEvent ? { onEvent: (e: { id: string | undefined; data: unknown }) => onEvent(map(e)) } : {}),
    };
    let reply;
    if (this.binding === 'jsonrpc') {
      reply = await openSse('POST', `${this.base}/rpc`, {
        ...sseOpts,
        body: { jsonrpc: '2.0', id: `s-${this.#nextId++}`, method, params },
      });
    } else if (method === 'SendStreamingMessage') {
      reply = await openSse('POST', `${this.restBase()}/message:stream`, { ...sseOpts, body: params });
    } else {
      const id = encodeURIComponent((params as { id: string }).id);
      reply = await openSse(options.verb ?? 'POST', `${this.restBase()}/tasks/${id}:subscribe`, sseOpts);
    }
    if (
      reply.body !== undefined ||
      !(reply.headers.get('content-type') ?? '').startsWith('text/event-stream')
    ) {
      return failure({ status: reply.status, headers: reply.headers, text: '', body: reply.body });
    }
    return {
      ok: true,
      status: reply.status,
      headers: reply.headers,
      events: reply.events.map(map),
      comments: reply.comments,
    };
  }

  restBase(): string {
    return `${this.base}/rest${this.tenantTwin ? `/${this.tenantTwin}` : ''}`;
  }

  #event(raw: { id: string | undefined; data: unknown }): StreamEvent {
    const data = raw.data as Record<string, unknown>;
    if (this.binding === 'jsonrpc') {
      if ('error' in data)
        return { id: raw.id, envelopeId: data['id'], error: errorOf(data['error'], 'data') };
      return { id: raw.id, envelopeId: data['id'], response: data['result'] as StreamResponse };
    }
    if ('error' in data) return { id: raw.id, error: errorOf(data['error'], 'details') };
    return { id: raw.id, response: data as StreamResponse };
  }
}

function restRequest(
  method: UnaryMethod,
  p: Record<string, unknown>,
): { verb: string; path: string; body?: unknown } {
  const seg = (v: unknown) => encodeURIComponent(String(v));
  const query = (fields: Record<string, unknown>) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(fields))
      if (v !== undefined && k !== 'id' && k !== 'taskId' && k !== 'tenant') q.set(k, String(v));
    const s = q.toString();
    return s === '' ? '' : `?${s}`;
  };
  switch (method) {
    case 'SendMessage':
      return { verb: 'POST', path: '/message:send', body: p };
    case 'GetTask':
      return { verb: 'GET', path: `/tasks/${seg(p['id'])}${query(p)}` };
    case 'ListTasks':
      return { verb: 'GET', path: `/tasks${query(p)}` };
    case 'CancelTask': {
      const { id, ...rest } = p;
      return { verb: 'POST', path: `/tasks/${seg(id)}:cancel`, body: rest };
    }
    case 'CreateTaskPushNotificationConfig': {
      const { taskId, ...rest } = p;
      return { verb: 'POST', path: `/tasks/${seg(taskId)}/pushNotificationConfigs`, body: rest };
    }
    case 'GetTaskPushNotificationConfig':
      return { verb: 'GET', path: `/tasks/${seg(p['taskId'])}/pushNotificationConfigs/${seg(p['id'])}` };
    case 'ListTaskPushNotificationConfigs':
      return { verb: 'GET', path: `/tasks/${seg(p['taskId'])}/pushNotificationConfigs${query(p)}` };
    case 'DeleteTaskPushNotificationConfig':
      return { verb: 'DELETE', path: `/tasks/${seg(p['taskId'])}/pushNotificationConfigs/${seg(p['id'])}` };
    case 'GetExtendedAgentCard':
      return { verb: 'GET', path: '/extendedAgentCard' };
  }
}

/** Reads the ErrorInfo reason out of either error format (digest §5.4). */
export function failure(reply: HttpReply): Failure {
  const body = reply.body as Record<string, unknown> | undefined;
  const error = (body?.['error'] ?? {}) as Record<string, unknown>;
  const details = (error['data'] ?? error['details'] ?? []) as Array<Record<string, unknown>>;
  const info = details.find((d) => String(d['@type']).endsWith('ErrorInfo'));
  return {
    ok: false,
    reason: String(info?.['reason'] ?? 'NONE'),
    message: String(error['message'] ?? ''),
    status: reply.status,
    headers: reply.headers,
    code: (error['code'] as number | undefined) ?? undefined,
    body: reply.body,
  };
}

function errorOf(error: unknown, detailsKey: 'data' | 'details'): { reason: string; message: string } {
  const e = (error ?? {}) as Record<string, unknown>;
  const details = (e[detailsKey] ?? []) as Array<Record<string, unknown>>;
  return { reason: String(details[0]?.['reason'] ?? 'NONE'), message: String(e['message'] ?? '') };
}
