import { isInvalidPageToken } from '@switchyard/store';
import type { Logger } from '@switchyard/telemetry';
import type { ErrorRequestHandler, Request } from 'express';
import { renderErrorPage } from '../html/simple-pages.ts';
import { badRequest, HttpError } from './http-error.ts';
import { sendPage } from './send-page.ts';

function wantsJson(req: Request): boolean {
  return req.path.startsWith('/api/') || !(req.headers.accept ?? '').includes('text/html');
}

/** Known errors answer with their status and safe message; anything else is logged and a 500. */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    let error: HttpError;
    if (err instanceof HttpError) error = err;
    else if (isInvalidPageToken(err)) error = badRequest('cursor is not one this console issued');
    else if (isBodyError(err))
      error = new HttpError(
        err.status,
        err.status === 413 ? 'RESOURCE_EXHAUSTED' : 'INVALID_ARGUMENT',
        err.status === 413 ? 'the request body is too large' : 'the request body could not be read',
      );
    else {
      log.error({ err, method: req.method, path: req.path }, 'console request failed');
      error = new HttpError(500, 'INTERNAL', 'internal error; see the console logs');
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    if (wantsJson(req)) {
      res.status(error.status).set('Cache-Control', 'no-store').json(error.toBody());
      return;
    }
    sendPage(req, res, {
      title: 'Error',
      section: 'none',
      body: renderErrorPage(error.status, error.message),
      status: error.status,
    });
  };
}

function isBodyError(err: unknown): err is { status: number } {
  const e = err as { status?: unknown; type?: unknown } | null;
  return typeof e?.status === 'number' && e.status >= 400 && e.status < 500 && typeof e.type === 'string';
}
