import type { Response } from 'express';

/**
 * Aborts `controller` when the client goes away before the reply is complete, or when the gateway
 * shuts down, so a blocking wait or a stream's start stops working for nobody. Plain listeners
 * rather than AbortSignal.any: each composite signal costs a few hundred bytes. The listeners go
 * when the response closes, or when the returned function is called (a stream that has started
 * watches its client itself).
 */
export function watchClient(res: Response, shutdown: AbortSignal, controller: AbortController): () => void {
  const abort = () => controller.abort();
  const onClose = () => {
    shutdown.removeEventListener('abort', abort);
    if (!res.writableFinished) abort();
  };
  if (shutdown.aborted) abort();
  else shutdown.addEventListener('abort', abort, { once: true });
  res.once('close', onClose);
  return () => {
    shutdown.removeEventListener('abort', abort);
    res.removeListener('close', onClose);
  };
}

/** A signal that fires when the client goes away or the gateway shuts down (watchClient). */
export function clientSignal(res: Response, shutdown: AbortSignal): AbortSignal {
  const controller = new AbortController();
  watchClient(res, shutdown, controller);
  return controller.signal;
}
