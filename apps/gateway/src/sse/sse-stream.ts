import type { IncomingMessage } from 'node:http';
import type { Response } from 'express';
import { fromUnknown, type A2AError } from '@switchyard/protocol';
import type { StreamItem } from '@switchyard/engine';
import type { Logger } from '@switchyard/telemetry';
import type { StreamRegistry } from './stream-registry.ts';

/** How one binding frames stream items and a mid-stream error (digest §4.1, §4.2, §12 #16). */
export interface SseFormat {
  /** The event's `data:` line: JSON text (formats cache it per event, see binding-formats.ts). */
  itemJson(item: StreamItem): string;
  error(error: A2AError): unknown;
}

export interface SseOptions {
  /** Keep-alive comment interval, ms. */
  heartbeatMs: number;
  /** Unread bytes a client may leave before the stream is cut (slow consumer). */
  maxBufferBytes: number;
  registry: StreamRegistry;
  /** The request's logger, asked for only when there is something to log. */
  log: () => Logger;
  /** Called once when the stream has ended, however it ended (the stream's slot goes back). */
  onEnd: () => void;
}

const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
} as const;

/**
 * An idle stream may stay open for hours, and its request's headers are not read again once it
 * has started (the operation, its trace context and the request log took what they need): letting
 * them go frees two dozen strings and their arrays, about a KB of every open stream.
 */
function forgetRequestHeaders(req: IncomingMessage): void {
  req.rawHeaders = [];
  req.headers = {};
}

/**
 * Sends an engine stream as Server-Sent Events. Headers are committed only once the first item is
 * ready, so an error before it (unknown task, terminal task, bad input) propagates to the caller
 * and becomes an ordinary error reply, as a2a-js's json_rpc_handler does. Every event carries
 * `id: <seq>` for Last-Event-ID resume. An error after the start is sent as a final event and the
 * stream closes. `stop` is the controller whose signal the generator was created with: it is
 * aborted when the client leaves, when the client reads too slowly (memory stays bounded), and at
 * shutdown.
 *
 * Resolves once the stream has started: the rest runs on its own, and `options.onEnd` says when
 * it is over. The request's handler chain (Express's router, the binding's handler holding the
 * parsed request body, this function's caller) then ends and is collected, instead of staying in
 * memory for as long as the stream is open, which may be hours.
 */
export async function streamSse(
  res: Response,
  items: AsyncGenerator<StreamItem>,
  format: SseFormat,
  stop: AbortController,
  options: SseOptions,
): Promise<void> {
  let first: IteratorResult<StreamItem>;
  try {
    first = await items.next();
  } catch (err) {
    options.onEnd();
    throw err;
  }
  // The first item (the whole Task snapshot) goes in a box the pump empties: a parameter would stay
  // in the suspended pump's frame for as long as the stream is open.
  void pump(res, items, { first }, format, stop, options).catch((err: unknown) =>
    options.log().error({ err }, 'stream ended abnormally'),
  );
}

async function pump(
  res: Response,
  items: AsyncGenerator<StreamItem>,
  start: { first?: IteratorResult<StreamItem> },
  format: SseFormat,
  stop: AbortController,
  options: SseOptions,
): Promise<void> {
  let closed = false;
  const finish = (comment?: string) => {
    if (closed) return;
    closed = true;
    stop.abort();
    if (!res.writableEnded) res.end(comment === undefined ? undefined : `: ${comment}\n\n`);
  };
  const write = (chunk: string): boolean => {
    if (closed || res.writableEnded) return false;
    if (!res.write(chunk) && res.writableLength > options.maxBufferBytes) {
      options.log().warn({ bufferedBytes: res.writableLength }, 'SSE client too slow; closing its stream');
      finish('slow consumer');
      // A client that reads nothing at all would hold the buffer forever.
      setTimeout(() => {
        if (!res.writableFinished) res.destroy();
      }, 5000).unref();
      return false;
    }
    return true;
  };
  const onGone = () => {
    closed = true;
    stop.abort();
  };
  try {
    // The client may already have left while the first item was prepared.
    if (res.destroyed) onGone();
    res.once('close', onGone);
    // writeHead with the object: unlike set(), it keeps no per-header arrays on the response.
    res.writeHead(200, SSE_HEADERS);
    res.flushHeaders();
    forgetRequestHeaders(res.req);
    const unregister = options.registry.add((reason) => finish(reason));
    const stopHeartbeat = options.registry.heartbeat(options.heartbeatMs, () => write(': keep-alive\n\n'));
    try {
      let next: IteratorResult<StreamItem> | undefined = start.first!;
      start.first = undefined;
      while (!next.done && !closed) {
        write(`id: ${next.value.seq}\ndata: ${format.itemJson(next.value)}\n\n`);
        options.registry.sent();
        if (closed) break;
        // Not held while waiting, which may be hours: the first item is the whole Task snapshot.
        next = undefined;
        next = await items.next();
      }
    } catch (err) {
      const error = fromUnknown(err);
      if (!closed) {
        if (error.kind === 'Internal') options.log().error({ err }, 'stream failed');
        write(`data: ${JSON.stringify(format.error(error))}\n\n`);
      }
    } finally {
      stopHeartbeat();
      unregister();
    }
  } finally {
    finish();
    await items.return(undefined).catch(() => undefined);
    options.onEnd();
  }
}
