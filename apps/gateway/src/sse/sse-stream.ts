import type { IncomingMessage } from 'node:http';
import type { Response } from 'express';
import { A2AError, unauthenticated } from '@switchyard/protocol';
import type { OpenedStream, StreamItem, StreamSink } from '@switchyard/engine';
import type { Logger } from '@switchyard/telemetry';
import { releaseBody } from '../http/body-budget.ts';
import { drainTimeoutFor } from '../http/reply-drain.ts';
import { toClientError } from '../http/client-error.ts';
import type { StreamRegistry, StreamSlot } from './stream-registry.ts';
import { atExpiry } from './credential-expiry.ts';

/** How one binding frames stream items and a mid-stream error (digest §4.1, §4.2, §12 #16). */
export interface SseFormat {
  /** The event's `data:` line: JSON text (formats cache it per event, see binding-formats.ts). */
  itemJson(item: StreamItem): string;
  /** The final error event's `data:`, as a JSON value. */
  error(error: A2AError): unknown;
  /** The final error event's `event:` name; undefined sends it unnamed, like the items. */
  readonly errorEvent: string | undefined;
}

export interface SseOptions {
  /** Keep-alive comment interval, ms. */
  heartbeatMs: number;
  /** Unread bytes a client may leave before the stream is cut (slow consumer). */
  maxBufferBytes: number;
  /**
   * How long the stream waits for a client whose socket buffer is full to read it: its events
   * wait in the log meanwhile, and one that reads nothing for this long is cut (slow consumer).
   */
  drainTimeoutMs?: number;
  /** Ends the stream at shutdown, also one that starts after shutdown began (StreamRegistry.add). */
  registry: StreamRegistry;
  /** The stream's slot, from `registry.reserve`: a revocation of its owner ends the stream. */
  slot: StreamSlot;
  /** Where the request's logger is, asked for only when there is something to log. */
  log: { readonly log: Logger };
  /** Called once when the stream has ended, however it ended (the stream's slot goes back). */
  onEnd: () => void;
  /**
   * When the credential that opened the stream stops working (epoch ms): the stream ends then, as
   * it would at the credential's revocation, and the client must come back with a valid one.
   */
  credentialExpiresAt?: number | undefined;
}

const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
} as const;

/**
 * An idle stream may stay open for hours, and nothing reads its request again once it has started
 * (the operation, its trace context and the request log took what they need). Letting go of it
 * frees, per open stream: the headers (two dozen strings and their arrays, about a KB), the parsed
 * body (a SendStreamingMessage's whole message), and `req.next`, through which Express's routers
 * keep every level's `next` closure, its saved params and the final handler (about a KB more).
 */
function forgetRequest(
  req: IncomingMessage & { next?: unknown; body?: unknown; params?: unknown; _parsedUrl?: unknown },
): void {
  req.rawHeaders = [];
  req.headers = {};
  req.next = undefined;
  req.body = undefined;
  req.params = undefined;
  // parseurl's cache of the parsed URL (re-parsed if anything asks again).
  req._parsedUrl = undefined;
}

/**
 * Sends an opened engine stream as Server-Sent Events: the first item, then every item the engine
 * pushes, each with `id: <seq>` for Last-Event-ID resume. An error after the start is sent as a
 * final event and the stream closes. The stream ends when the engine says so, when the client
 * leaves, when the client reads too slowly (memory stays bounded), at shutdown, and when the
 * credential that opened it stops working (a final Unauthenticated error event).
 *
 * Errors before the first item never get here: the caller awaited the opening, and its error
 * became an ordinary error reply (as a2a-js's json_rpc_handler does). Returns at once; the stream
 * goes on by itself, one SseStream object with no suspended frames, and `options.onEnd` says when
 * it is over.
 */
export function streamSse(res: Response, opened: OpenedStream, format: SseFormat, options: SseOptions): void {
  new SseStream(res, format, options).start(opened);
}

class SseStream implements StreamSink {
  readonly #res: Response;
  readonly #format: SseFormat;
  readonly #options: SseOptions;
  #ended = false;
  /** Set once the stream is being cut as too slow: its final error's own write must not cut it again. */
  #cutting = false;
  #stopFollowing: (() => void) | undefined;
  #stopHeartbeat: (() => void) | undefined;
  #unregister: (() => void) | undefined;
  /** Set while the client's buffer is full: what lets the engine deliver again once it drains. */
  #resume: (() => void) | undefined;
  #drainTimer: NodeJS.Timeout | undefined;
  #cancelExpiry: (() => void) | undefined;

  constructor(res: Response, format: SseFormat, options: SseOptions) {
    this.#res = res;
    this.#format = format;
    this.#options = options;
  }

  start(opened: OpenedStream): void {
    const res = this.#res;
    const { registry } = this.#options;
    // The client may already have left while the first item was prepared.
    if (res.destroyed) return this.#close();
    res.once('close', () => this.#close());
    // writeHead with the object: unlike set(), it keeps no per-header arrays on the response.
    res.writeHead(200, SSE_HEADERS);
    res.flushHeaders();
    forgetRequest(res.req);
    releaseBody(res.req);
    // Revoked while it opened: not even its first item goes to the revoked credential.
    const revoked = registry.revokedSince(this.#options.slot);
    if (revoked !== undefined) return this.#unauthenticated(revoked);
    const expiresAt = this.#options.credentialExpiresAt;
    if (expiresAt !== undefined) {
      if (expiresAt <= Date.now()) return this.#unauthenticated('credential expired');
      this.#cancelExpiry = atExpiry(expiresAt, () => this.#unauthenticated('credential expired'));
    }
    // Not while the client still has data to read: it is no idle connection, and a keep-alive
    // behind an unread snapshot would count that snapshot against the slow-consumer limit.
    this.#stopHeartbeat = registry.heartbeat(this.#options.heartbeatMs, () => {
      if (!this.#res.writableNeedDrain) this.#write(': keep-alive\n\n');
    });
    // A first item the client's buffer did not take whole (a snapshot with large artifacts) is
    // read out before any event follows it, as events wait for each other: written behind it, the
    // next event would find it still unread and cut a client that reads perfectly well.
    const flowing = opened.first ? this.item(opened.first, () => this.#follow(opened)) : true;
    this.#unregister = registry.add(
      (reason, ending) => (ending === 'revoked' ? this.#unauthenticated(reason) : this.#interrupted(reason)),
      this.#options.slot,
    );
    if (flowing) this.#follow(opened);
  }

  #follow(opened: OpenedStream): void {
    if (this.#ended) return;
    const stop = opened.follow(this);
    if (this.#ended) stop();
    else this.#stopFollowing = stop;
  }

  /**
   * Writes one event. False when the client's socket buffer is full: the engine then holds the
   * task's later events (they wait in the log, not in this process) until the client drains it
   * and `resume` is called. A catch-up read of hundreds of events thus goes out as fast as the
   * client reads, instead of piling up in memory and tripping the slow-consumer limit.
   */
  item(item: StreamItem, resume?: () => void): boolean {
    if (this.#ended) return false;
    const frame = `id: ${item.seq}\ndata: ${this.#format.itemJson(item)}\n\n`;
    const flowing = this.#write(frame);
    this.#options.registry.sent();
    if (flowing || this.#ended || !resume) return !this.#ended;
    this.#awaitDrain(resume, drainTimeoutFor(Buffer.byteLength(frame), this.#options.drainTimeoutMs));
    return false;
  }

  #awaitDrain(resume: () => void, timeoutMs: number): void {
    const waiting = this.#resume !== undefined;
    this.#resume = resume;
    if (waiting) return;
    this.#drainTimer = setTimeout(() => this.#tooSlow(this.#res), timeoutMs).unref();
    this.#res.once('drain', () => {
      clearTimeout(this.#drainTimer);
      const go = this.#resume;
      this.#resume = undefined;
      if (!this.#ended) go?.();
    });
  }

  end(err?: unknown): void {
    if (this.#ended) return;
    if (err === undefined) return this.#close();
    const error = toClientError(err);
    if (error.kind === 'Internal' || error.kind === 'Unavailable')
      this.#options.log.log.error({ err }, 'stream failed');
    this.#fail(error);
  }

  /**
   * The credential that opened the stream stopped working (revoked or rotated, its tenant
   * disabled, expired) while the task goes on: an error after the start, so a final error event
   * (digest §12 #16), Unauthenticated as the credential's next request is answered (HTTP 401;
   * on JSON-RPC, whose spec defines no code for it, the -32000 the gateway's 401 carries), then
   * the reason as a comment and the end. The client comes back with a valid credential.
   */
  #unauthenticated(reason: string): void {
    this.#fail(unauthenticated(`Authentication is no longer valid (${reason})`), reason);
  }

  /**
   * Ends a stream the gateway cuts while the task goes on (shutdown, a client too slow) with
   * Unavailable as its final event, then the reason as a comment. The end of the response is the
   * end of the stream to A2A clients (digest §2.3): ended with a comment alone, an a2a-js loop
   * finished normally with the task still WORKING and never came back. An error that says
   * "unavailable" is one every client retries: it resubscribes with Last-Event-ID and misses
   * nothing.
   */
  #interrupted(reason: string): void {
    this.#fail(
      new A2AError('Unavailable', {
        message: `The stream was interrupted (${reason}); subscribe again with Last-Event-ID to resume`,
        retryAfterSeconds: 1,
      }),
      reason,
    );
  }

  /** Sends `error` as the stream's final event (the binding's error frame), then ends it. */
  #fail(error: A2AError, comment?: string): void {
    if (this.#ended) return;
    const name = this.#format.errorEvent;
    const data = JSON.stringify(this.#format.error(error));
    this.#write(`${name === undefined ? '' : `event: ${name}\n`}data: ${data}\n\n`);
    this.#close(comment);
  }

  /** Writes a chunk; false when the client's socket buffer is full (or the stream was cut). */
  #write(chunk: string): boolean {
    const res = this.#res;
    if (this.#ended || res.writableEnded) return false;
    if (res.write(chunk)) return true;
    const max = this.#options.maxBufferBytes;
    // What the client left unread before this event counts, not the event itself: a snapshot of
    // a task with large artifacts may exceed the limit alone, and cutting the stream right after
    // it would punish a client that reads perfectly well. (Events wait for a drain, so this is
    // the backstop for writes that do not: the snapshot, a final error, keep-alives.)
    if (res.writableLength > max && res.writableLength - Buffer.byteLength(chunk) > max) this.#tooSlow(res);
    return false;
  }

  #tooSlow(res: Response): void {
    if (this.#ended || this.#cutting) return;
    this.#cutting = true;
    this.#options.log.log.warn(
      { bufferedBytes: res.writableLength },
      'SSE client too slow; closing its stream',
    );
    // After what it left unread: a client that reads again learns why its stream ended.
    this.#interrupted('slow consumer');
    // A client that reads nothing at all would hold the buffer forever.
    setTimeout(() => {
      if (!res.writableFinished) res.destroy();
    }, 5000).unref();
  }

  /** Ends the stream once, however it ended, with an optional final comment. */
  #close(comment?: string): void {
    if (this.#ended) return;
    this.#ended = true;
    clearTimeout(this.#drainTimer);
    this.#cancelExpiry?.();
    this.#resume = undefined;
    this.#stopFollowing?.();
    this.#stopHeartbeat?.();
    this.#unregister?.();
    if (!this.#res.writableEnded) this.#res.end(comment === undefined ? undefined : `: ${comment}\n\n`);
    this.#options.onEnd();
  }
}
