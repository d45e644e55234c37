import { A2AError } from '@switchyard/protocol';
import { A2AResponseError } from '../errors/response-error.ts';
import type { HttpClient, HttpRequest } from '../http/http-client.ts';
import { readSse } from '../sse/read-sse.ts';

/** One raw stream item: the SSE `data` (or a whole JSON body) and its SSE id. */
export interface RawStreamItem {
  id?: string;
  data: string;
  /** HTTP status of the stream's response. */
  status: number;
}

export interface OpenStreamOptions {
  signal?: AbortSignal | undefined;
  idleTimeoutMs?: number | undefined;
  lastEventId?: string | undefined;
}

/**
 * Opens a streaming call and yields its SSE events. Opening is retried like any request (same
 * body, so the same messageId); once events flow, a cut is the caller's to handle (resume with
 * Last-Event-ID). A server that answers a streaming call with plain JSON (a2a-js sends pre-stream
 * JSON-RPC errors that way) yields that body as a single item.
 */
export async function* openStream(
  http: HttpClient,
  request: HttpRequest,
  options: OpenStreamOptions,
): AsyncGenerator<RawStreamItem> {
  const controller = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
  const headers = {
    ...request.headers,
    ...(options.lastEventId !== undefined ? { 'Last-Event-ID': options.lastEventId } : {}),
  };
  const response = await http.retrying(() => http.fetch({ ...request, headers, signal }), options.signal);
  const contentType = response.headers.get('content-type') ?? '';
  if (!contentType.toLowerCase().startsWith('text/event-stream')) {
    const text = await response.text();
    if (/json/i.test(contentType) || text.trim().startsWith('{')) {
      yield { data: text, status: response.status };
      return;
    }
    throw new A2AResponseError(
      new A2AError('InvalidAgentResponse', {
        message: `expected text/event-stream, got ${contentType || 'no content type'}`,
      }),
      response.status,
    );
  }
  for await (const event of readSse(response, {
    signal: options.signal,
    idleTimeoutMs: options.idleTimeoutMs,
    abort: (reason) => controller.abort(reason),
  })) {
    // An event without data carries no StreamResponse: a heartbeat some servers send
    // (`event: ping` with an empty `data:`), not a malformed reply.
    if (event.data.trim() === '') continue;
    yield {
      ...(event.id !== undefined && event.id !== '' ? { id: event.id } : {}),
      data: event.data,
      status: response.status,
    };
  }
}
