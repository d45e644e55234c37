import type { Request, Response } from 'express';
import type { OpenedStream } from '@switchyard/engine';
import { operationContext, type BindingDeps } from '../a2a/binding-deps.ts';
import type { OperationContext } from '../a2a/operations.ts';
import { watchClient } from '../http/client-signal.ts';
import { a2aContextOf, stateOf } from '../http/request-state.ts';
import { streamSse, type SseFormat } from './sse-stream.ts';

/**
 * Every binding's streaming operation (SendStreamingMessage, SubscribeToTask, their 0.3 names):
 * take a stream slot for the tenant before anything is accepted (a refused stream changes
 * nothing), open the engine stream, and send it as SSE until it ends, the client leaves or the
 * gateway stops. `open` parses the request and calls the operation; what it throws (before any
 * byte of the stream) becomes an ordinary error reply. Resolves once the stream has started: the
 * stream goes on by itself (streamSse), and the request's handler chain is let go.
 */
export async function serveStream(
  req: Request,
  res: Response,
  deps: BindingDeps,
  format: SseFormat,
  open: (ctx: OperationContext) => Promise<OpenedStream>,
): Promise<void> {
  const stop = new AbortController();
  const ctx = operationContext(req, stop.signal);
  const { identity } = a2aContextOf(req);
  const owner = { tenantId: ctx.caller.tenantId, credentialId: identity.credentialId };
  const slot = deps.streams.reserve(owner, stateOf(req).revocationMark);
  // Until the first item is ready: the client leaving or shutdown end the wait for it.
  const unwatch = watchClient(res, deps.shutdown, stop);
  let opened: OpenedStream;
  try {
    opened = await open(ctx);
  } catch (err) {
    slot.release();
    throw err;
  } finally {
    unwatch();
  }
  streamSse(res, opened, format, {
    heartbeatMs: deps.heartbeatMs,
    maxBufferBytes: deps.maxBufferBytes,
    registry: deps.streams,
    slot,
    log: stateOf(req),
    onEnd: slot.release,
    credentialExpiresAt: identity.expiresAt,
  });
}
