import type { Request, Response } from 'express';
import type { StreamItem } from '@switchyard/engine';
import { operationContext, type BindingDeps } from '../a2a/binding-deps.ts';
import type { OperationContext } from '../a2a/operations.ts';
import { clientSignal } from '../http/client-signal.ts';
import { stateOf } from '../http/request-state.ts';
import { streamSse, type SseFormat } from './sse-stream.ts';

/**
 * Every binding's streaming operation (SendStreamingMessage, SubscribeToTask, their 0.3 names):
 * take a stream slot for the tenant before anything is accepted (a refused stream changes
 * nothing), open the engine stream, and send it as SSE until it ends, the client leaves or the
 * gateway stops. `open` parses the request and calls the operation. Resolves once the stream has
 * started (or throws what came before it): the stream goes on by itself (streamSse).
 */
export async function serveStream(
  req: Request,
  res: Response,
  deps: BindingDeps,
  format: SseFormat,
  open: (ctx: OperationContext) => AsyncGenerator<StreamItem> | Promise<AsyncGenerator<StreamItem>>,
): Promise<void> {
  const stop = new AbortController();
  const ctx = operationContext(req, clientSignal(res, deps.shutdown, stop));
  const release = deps.streams.reserve(ctx.caller.tenantId);
  let items: AsyncGenerator<StreamItem>;
  try {
    items = await open(ctx);
  } catch (err) {
    release();
    throw err;
  }
  // Resolves once the stream has started; the slot goes back when it ends.
  await streamSse(res, items, format, stop, {
    heartbeatMs: deps.heartbeatMs,
    maxBufferBytes: deps.maxBufferBytes,
    registry: deps.streams,
    log: () => stateOf(req).log,
    onEnd: release,
  });
}
