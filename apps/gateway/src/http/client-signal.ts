import type { Response } from 'express';

/**
 * An AbortSignal that fires when the client goes away before the reply is complete (or when the
 * gateway shuts down), so a blocking wait or a stream stops working for nobody.
 */
export function clientSignal(res: Response, shutdown: AbortSignal): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return AbortSignal.any([controller.signal, shutdown]);
}
