import type { FetchLike } from '../../src/index.ts';

export interface RecordedRequest {
  url: string;
  method: string;
  headers: Headers;
  body: string | undefined;
}

/** What a fault hook may do with a request: pass it on, or answer/fail it itself. */
export type FaultHook = (
  request: RecordedRequest,
  forward: () => Promise<Response>,
  index: number,
) => Promise<Response>;

/**
 * A fetch that records every request and lets a test inject faults (drop a reply, cut a stream,
 * answer 503), the client-side stand-in for a flaky network.
 */
export function recordingFetch(hook?: FaultHook): FetchLike & { requests: RecordedRequest[] } {
  const requests: RecordedRequest[] = [];
  const fn = async (input: string, init: RequestInit) => {
    const request: RecordedRequest = {
      url: input,
      method: init.method ?? 'GET',
      headers: new Headers(init.headers),
      body: typeof init.body === 'string' ? init.body : undefined,
    };
    requests.push(request);
    const forward = () => fetch(input, init);
    return hook ? hook(request, forward, requests.length - 1) : forward();
  };
  return Object.assign(fn, { requests });
}

/** Whether a request opens a SubscribeToTask stream, on either binding. */
export function isSubscribe(request: RecordedRequest): boolean {
  return request.url.includes(':subscribe') || (request.body?.includes('"SubscribeToTask"') ?? false);
}

export function isCancel(request: RecordedRequest): boolean {
  return request.url.endsWith(':cancel') || (request.body?.includes('"method":"CancelTask"') ?? false);
}

export function isSend(request: RecordedRequest): boolean {
  return request.url.endsWith('/message:send') || (request.body?.includes('"method":"SendMessage"') ?? false);
}

/**
 * A copy of `response` whose body fails after the first `events` SSE events, like a connection
 * reset mid-stream. The real connection is closed as well.
 */
export function cutAfterEvents(response: Response, events: number): Response {
  const reader = response.body?.getReader();
  if (!reader) return response;
  const decoder = new TextDecoder();
  let seen = 0;
  let text = '';
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (seen >= events) {
        await reader.cancel().catch(() => undefined);
        controller.error(new TypeError('terminated', { cause: new Error('simulated connection reset') }));
        return;
      }
      const chunk = await reader.read();
      if (chunk.done) {
        controller.close();
        return;
      }
      text += decoder.decode(chunk.value, { stream: true });
      // Forward only whole events, counting those that carry data.
      const blocks = text.split('\n\n');
      text = blocks.pop() ?? '';
      for (const block of blocks) {
        if (seen >= events) break;
        if (block.includes('data:')) seen += 1;
        controller.enqueue(new TextEncoder().encode(`${block}\n\n`));
      }
    },
    async cancel() {
      await reader.cancel().catch(() => undefined);
    },
  });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
