import type { Response } from 'express';

/** Bytes a slow client may leave unread before its stream is cut (it reconnects and resumes). */
const MAX_BUFFER_BYTES = 1024 * 1024;

export interface SseStream {
  /** One SSE message; `id` (an event seq) is what the browser sends back as Last-Event-ID. */
  send(event: string, data: unknown, id?: number): void;
  close(): void;
  /** Aborted when the client goes away or the stream is closed (shutdown included). */
  readonly signal: AbortSignal;
}

/** Open streams, so stop() can end them all instead of waiting for clients to leave. */
export class StreamRegistry {
  readonly #open = new Set<SseStream>();
  add(stream: SseStream): void {
    this.#open.add(stream);
  }
  delete(stream: SseStream): void {
    this.#open.delete(stream);
  }
  get size(): number {
    return this.#open.size;
  }
  closeAll(): void {
    for (const stream of [...this.#open]) stream.close();
  }
}

/**
 * Starts a server-sent event stream: headers go out at once (the page shows "live" on open), a
 * comment every `heartbeatMs` keeps proxies from timing the connection out.
 */
export function openSseStream(
  res: Response,
  { heartbeatMs, registry }: { heartbeatMs: number; registry: StreamRegistry },
): SseStream {
  const controller = new AbortController();
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    Connection: 'keep-alive',
    // nginx and friends buffer responses unless told not to.
    'X-Accel-Buffering': 'no',
  });
  res.write('retry: 2000\n\n');
  const heartbeat = setInterval(() => write(': keep-alive\n\n'), heartbeatMs);
  const write = (chunk: string) => {
    if (controller.signal.aborted) return;
    res.write(chunk);
    if (res.writableLength > MAX_BUFFER_BYTES) stream.close();
  };
  const stream: SseStream = {
    signal: controller.signal,
    send(event, data, id) {
      const lines = JSON.stringify(data);
      write(`${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${lines}\n\n`);
    },
    close() {
      if (controller.signal.aborted) return;
      controller.abort();
      clearInterval(heartbeat);
      registry.delete(stream);
      res.end();
    },
  };
  registry.add(stream);
  // The response's close, not the request's: it fires when the client goes away.
  res.on('close', () => stream.close());
  return stream;
}
