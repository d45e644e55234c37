/** A reply as the tests inspect it. */
export interface HttpReply {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON, or undefined when the body is not JSON. */
  body: unknown;
}

export interface RequestOptions {
  key?: string | undefined;
  headers?: Record<string, string>;
  /** Sent as JSON unless `raw` is given. */
  body?: unknown;
  /** A raw body string, sent as is. */
  raw?: string;
  /** Omit the default `A2A-Version: 1.0`. */
  noVersion?: boolean;
  signal?: AbortSignal;
}

export function requestHeaders(options: RequestOptions): Record<string, string> {
  return {
    ...(options.noVersion ? {} : { 'A2A-Version': '1.0' }),
    ...(options.body !== undefined || options.raw !== undefined
      ? { 'Content-Type': 'application/json' }
      : {}),
    ...(options.key ? { 'X-API-Key': options.key } : {}),
    ...options.headers,
  };
}

export async function send(method: string, url: string, options: RequestOptions = {}): Promise<HttpReply> {
  const response = await fetch(url, {
    method,
    headers: requestHeaders(options),
    ...(options.raw !== undefined
      ? { body: options.raw }
      : options.body !== undefined
        ? { body: JSON.stringify(options.body) }
        : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, text, body };
}

/** One SSE event: `id:`, `event:` (its name) and the parsed `data:`. Comments are collected separately. */
export interface SseEvent {
  id: string | undefined;
  event?: string;
  data: unknown;
}

export interface SseReply {
  status: number;
  headers: Headers;
  events: SseEvent[];
  comments: string[];
  /** The non-SSE body when the server answered with an ordinary reply. */
  body: unknown;
}

/**
 * Opens a stream and reads it to the end (or until `stopAfter` events, then disconnects).
 * An ordinary JSON reply (an error before the stream started) is returned as `body`.
 */
export async function openSse(
  method: string,
  url: string,
  options: RequestOptions & { stopAfter?: number; onEvent?: (event: SseEvent) => void } = {},
): Promise<SseReply> {
  const controller = new AbortController();
  const response = await fetch(url, {
    method,
    headers: { Accept: 'text/event-stream', ...requestHeaders(options) },
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    signal: controller.signal,
  });
  const result: SseReply = {
    status: response.status,
    headers: response.headers,
    events: [],
    comments: [],
    body: undefined,
  };
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const text = await response.text();
    result.body = text === '' ? undefined : (JSON.parse(text) as unknown);
    return result;
  }
  const reader = response.body?.getReader();
  if (!reader) return result;
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf('\n\n');
        const event = parseBlock(block, result.comments);
        if (!event) continue;
        result.events.push(event);
        options.onEvent?.(event);
        if (options.stopAfter !== undefined && result.events.length >= options.stopAfter) {
          controller.abort();
          return result;
        }
      }
    }
  } catch (err) {
    if (!controller.signal.aborted) throw err;
  }
  return result;
}

function parseBlock(block: string, comments: string[]): SseEvent | undefined {
  let id: string | undefined;
  let event: string | undefined;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) comments.push(line.slice(1).trim());
    else if (line.startsWith('id:')) id = line.slice(3).trim();
    else if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
  }
  if (data.length === 0) return undefined;
  const parsed = { id, data: JSON.parse(data.join('\n')) as unknown };
  return event === undefined ? parsed : { ...parsed, event };
}
