// The load generator's HTTP client: undici's request API on keep-alive connections, for calls and
// streams. The load generator shares the machine's two cores with the platform, and fetch (WHATWG
// streams, TextDecoderStream) costs it about twice the CPU per call or per streamed event.
import { request, type Dispatcher } from 'undici';

/** Wall-clock milliseconds with sub-millisecond precision, comparable with Postgres timestamps. */
export const epochMs = (): number => performance.timeOrigin + performance.now();

export interface Target {
  gateways: string[];
  key: string;
  tenant: string;
}

const headers = (key: string) => ({
  'content-type': 'application/json',
  'x-api-key': key,
  'a2a-version': '1.0',
});

export function newMessage(text: string) {
  return { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] };
}

/** One JSON-RPC call; throws on a transport error, an HTTP error or a JSON-RPC error. */
export async function rpc<T>(
  gateway: string,
  t: Target,
  agent: string,
  method: string,
  params: unknown,
): Promise<T> {
  const res = await request(`${gateway}/agents/${t.tenant}/${agent}/rpc`, {
    method: 'POST',
    headers: headers(t.key),
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.body.json()) as { result?: T; error?: { message: string } };
  if (res.statusCode >= 300 || body.error || body.result === undefined)
    throw new Error(`${method}: HTTP ${res.statusCode} ${body.error?.message ?? ''}`);
  return body.result;
}

/** Non-blocking SendMessage; resolves with the new task's id. */
export async function submit(gateway: string, t: Target, agent: string, push?: string): Promise<string> {
  const configuration = {
    returnImmediately: true,
    ...(push ? { taskPushNotificationConfig: { url: push } } : {}),
  };
  const result = await rpc<{ task?: { id: string } }>(gateway, t, agent, 'SendMessage', {
    message: newMessage('bench'),
    configuration,
  });
  if (!result.task) throw new Error('SendMessage returned no task');
  return result.task.id;
}

export function subscribe(
  gateway: string,
  t: Target,
  agent: string,
  taskId: string,
  signal?: AbortSignal,
): Promise<Dispatcher.ResponseData> {
  return request(`${gateway}/agents/${t.tenant}/${agent}/rest/tasks/${taskId}:subscribe`, {
    headers: { 'x-api-key': t.key, 'a2a-version': '1.0', accept: 'text/event-stream' },
    ...(signal ? { signal } : {}),
  });
}

/** Counts failures and keeps the first message, so a broken run says why. */
export class Errors {
  count = 0;
  first: string | undefined;
  add(err: unknown): void {
    this.count += 1;
    this.first ??= err instanceof Error ? err.message : String(err);
  }
  toJSON() {
    return { count: this.count, ...(this.first ? { first: this.first } : {}) };
  }
}
