// Raw JSON-RPC over HTTP, with SSE read by hand: the checker needs every event id as sent, so
// nothing here de-duplicates or reorders (the @switchyard/client helpers deliberately do).

export const TASK_NOT_FOUND = -32001;
export const TASK_NOT_CANCELABLE = -32002;
export const UNSUPPORTED_OPERATION = -32004;

/** A JSON-RPC error answer. */
export class RpcError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(`${code} ${message}`);
    this.code = code;
  }
}

export interface Endpoint {
  /** `http://127.0.0.1:port/agents/{tenant}/{agent}/rpc` */
  rpcUrl: string;
  /** The HTTP+JSON binding's base, `…/agents/{tenant}/{agent}/rest`. */
  restUrl: string;
  apiKey: string;
}

const headers = (apiKey: string, extra: Record<string, string> = {}) => ({
  'content-type': 'application/json',
  'x-api-key': apiKey,
  'a2a-version': '1.0',
  ...extra,
});

let nextId = 1;

export async function rpc<T>(
  endpoint: Endpoint,
  method: string,
  params: unknown,
  timeoutMs: number,
): Promise<T> {
  const res = await fetch(endpoint.rpcUrl, {
    method: 'POST',
    headers: headers(endpoint.apiKey),
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let body: { result?: T; error?: { code: number; message: string } };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    throw new Error(`HTTP ${res.status}: ${text.slice(0, 120)}`);
  }
  if (body.error) throw new RpcError(body.error.code, body.error.message);
  if (body.result === undefined) throw new Error(`HTTP ${res.status} without a result`);
  return body.result;
}

export interface SseEvent {
  id: number | null;
  data: Record<string, unknown>;
}

/**
 * Opens a JSON-RPC stream and yields its events. A stream that sends nothing, not even a
 * keep-alive, for `idleMs` is treated as dead (the caller resumes). Errors before the first event
 * are thrown as from `rpc`; a mid-stream JSON-RPC error ends the stream with an RpcError.
 */
export function sse(
  endpoint: Endpoint,
  method: string,
  params: unknown,
  options: StreamOptions,
): AsyncGenerator<SseEvent> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params });
  return openSse(endpoint.rpcUrl, { method: 'POST', body }, endpoint.apiKey, options, (data) => {
    const envelope = data as { result?: Record<string, unknown>; error?: { code: number; message: string } };
    if (envelope.error) throw new RpcError(envelope.error.code, envelope.error.message);
    return envelope.result ?? {};
  });
}

/** SubscribeToTask over HTTP+JSON: the same events, as bare StreamResponses. */
export function sseRest(
  endpoint: Endpoint,
  taskId: string,
  options: StreamOptions,
): AsyncGenerator<SseEvent> {
  const url = `${endpoint.restUrl}/tasks/${encodeURIComponent(taskId)}:subscribe`;
  return openSse(url, { method: 'GET' }, endpoint.apiKey, options, (data) => {
    const error = (data as { error?: { code: number; message: string } }).error;
    if (error) throw new Error(`HTTP+JSON stream error ${error.code} ${error.message}`);
    return data as Record<string, unknown>;
  });
}

/** GetTask over HTTP+JSON. */
export async function restGetTask<T>(endpoint: Endpoint, taskId: string, timeoutMs: number): Promise<T> {
  const res = await fetch(`${endpoint.restUrl}/tasks/${encodeURIComponent(taskId)}`, {
    headers: headers(endpoint.apiKey),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`HTTP ${res.status}: ${text.slice(0, 120)}`);
  return JSON.parse(text) as T;
}

interface StreamOptions {
  lastEventId?: number;
  idleMs: number;
  signal: AbortSignal;
}

async function* openSse(
  url: string,
  init: { method: string; body?: string },
  apiKey: string,
  { lastEventId, idleMs, signal }: StreamOptions,
  unwrap: (data: unknown) => Record<string, unknown>,
): AsyncGenerator<SseEvent> {
  const idle = new AbortController();
  let timer = setTimeout(() => idle.abort(new Error('stream idle')), idleMs);
  try {
    const res = await fetch(url, {
      ...init,
      headers: headers(apiKey, lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) }),
      signal: AbortSignal.any([signal, idle.signal]),
    });
    if (!res.headers.get('content-type')?.includes('text/event-stream')) {
      const text = await res.text();
      const body = JSON.parse(text) as { error?: { code: number; message: string } };
      throw body.error ? new RpcError(body.error.code, body.error.message) : new Error(`HTTP ${res.status}`);
    }
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      clearTimeout(timer);
      timer = setTimeout(() => idle.abort(new Error('stream idle')), idleMs);
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const event = parseBlock(buffer.slice(0, end), unwrap);
        buffer = buffer.slice(end + 2);
        if (event) yield event;
      }
    }
  } finally {
    clearTimeout(timer);
  }
}

function parseBlock(block: string, unwrap: (data: unknown) => Record<string, unknown>): SseEvent | null {
  let id: number | null = null;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('id:')) id = Number(line.slice(3).trim());
    else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
  }
  if (data.length === 0) return null;
  return { id, data: unwrap(JSON.parse(data.join('\n'))) };
}
