import type { Response } from 'express';

/**
 * An AbortSignal that fires when the client goes away before the reply is complete (or when the
 * gateway shuts down), so a blocking wait or a stream stops working for nobody. It is the signal
 * of `controller` (a stream passes its own, which it also aborts itself), with plain listeners
 * rather than AbortSignal.any: a stream holds this for hours, and each composite signal costs a
 * few hundred bytes per stream. The shutdown listener goes when the response closes.
 */
export function clientSignal(
  res: Response,
  shutdown: AbortSignal,
  controller = new AbortController(),
): AbortSignal {
  const abort = () => controller.abort();
  if (shutdown.aborted) abort();
  else shutdown.addEventListener('abort', abort, { once: true });
  res.once('close', () => {
    shutdown.removeEventListener('abort', abort);
    if (!res.writableFinished) abort();
  });
  return controller.signal;
}
