import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { NetworkError } from '../errors/network-error.ts';

export interface ReadSseOptions {
  /** The caller's signal: its abort ends the read with its own reason. */
  signal?: AbortSignal | undefined;
  /** Fail with a NetworkError when nothing at all (not even a keep-alive comment) arrives this long, in ms; 0 = never. */
  idleTimeoutMs?: number | undefined;
  /** Aborts the underlying fetch (idle timeout, early exit), so the connection is closed. */
  abort: (reason: unknown) => void;
}

/**
 * The events of a `text/event-stream` body, parsed with eventsource-parser. Ends when the server
 * ends the body (A2A has no terminal marker, digest §4.1); a body cut before that surfaces as a
 * NetworkError so callers can resume. Leaving the loop early closes the connection.
 */
export async function* readSse(
  response: Response,
  options: ReadSseOptions,
): AsyncGenerator<EventSourceMessage> {
  if (!response.body) return;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const pending: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => pending.push(event) });
  const idleMs = options.idleTimeoutMs ?? 0;
  let idleTimer: NodeJS.Timeout | undefined;
  let idled = false;
  const arm = () => {
    if (idleMs <= 0) return;
    idleTimer = setTimeout(() => {
      idled = true;
      options.abort(new NetworkError(`stream idle for ${idleMs} ms`));
    }, idleMs);
  };
  let finished = false;
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      // The clock runs only while waiting on the server: time the consumer spends on an event
      // (the yield below) is not the stream's silence.
      arm();
      try {
        chunk = await reader.read();
      } catch (err) {
        if (options.signal?.aborted) throw options.signal.reason;
        if (idled) throw new NetworkError(`stream idle for ${idleMs} ms`, { cause: err });
        throw new NetworkError('stream interrupted', { cause: err });
      } finally {
        clearTimeout(idleTimer);
      }
      if (chunk.done) break;
      parser.feed(decoder.decode(chunk.value, { stream: true }));
      while (pending.length > 0) yield pending.shift() as EventSourceMessage;
    }
    parser.feed(decoder.decode());
    // An event not terminated by a blank line before EOF is discarded (WHATWG SSE §9.2.6).
    while (pending.length > 0) yield pending.shift() as EventSourceMessage;
    finished = true;
  } finally {
    clearTimeout(idleTimer);
    if (!finished) {
      options.abort(new Error('stream closed by the client'));
      await reader.cancel().catch(() => undefined);
    }
    reader.releaseLock();
  }
}
