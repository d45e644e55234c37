import type { GrpcStatusName } from '@switchyard/protocol';
import { isInvalidPageToken } from '@switchyard/store';
import type { Logger } from '@switchyard/telemetry';
import type { ErrorRequestHandler, Request } from 'express';
import { renderErrorPage } from '../html/simple-pages.ts';
import { badRequest, HttpError } from './http-error.ts';
import { sendPage } from './send-page.ts';

function wantsJson(req: Request): boolean {
  return req.path.startsWith('/api/') || !(req.headers.accept ?? '').includes('text/html');
}

/**
 * Known errors answer with their status and safe message; so does any error the HTTP layer marks
 * as the client's (a 4xx `status` or `statusCode`: a missing or malformed asset path, an unreadable
 * body), logged at debug like the gateway's refusals, since any caller can send one. Anything else
 * is logged and a 500.
 */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    let error: HttpError;
    const clientStatus = clientErrorStatus(err);
    if (err instanceof HttpError) error = err;
    else if (isInvalidPageToken(err)) error = badRequest('cursor is not one this console issued');
    else if (clientStatus !== undefined) {
      error = new HttpError(
        clientStatus,
        CODE_OF_STATUS[clientStatus] ?? 'INVALID_ARGUMENT',
        clientMessage(err, clientStatus),
      );
      log.debug({ status: clientStatus, method: req.method, path: req.path }, 'console request refused');
    } else {
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

/** The 4xx status an error from express, body-parser or serve-static carries, if any. */
function clientErrorStatus(err: unknown): number | undefined {
  const e = err as { status?: unknown; statusCode?: unknown } | null;
  const status = typeof e?.status === 'number' ? e.status : e?.statusCode;
  return typeof status === 'number' && Number.isInteger(status) && status >= 400 && status < 500
    ? status
    : undefined;
}

const CODE_OF_STATUS: Partial<Record<number, GrpcStatusName>> = {
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  412: 'FAILED_PRECONDITION',
  413: 'RESOURCE_EXHAUSTED',
  416: 'OUT_OF_RANGE',
  429: 'RESOURCE_EXHAUSTED',
};

/**
 * A fixed message per kind, never the error's own: serve-static's carries the file system path it
 * looked up.
 */
function clientMessage(err: unknown, status: number): string {
  if (status === 404) return 'page not found';
  if (status === 413) return 'the request body is too large';
  if (status === 416) return 'the requested range is not satisfiable';
  // body-parser's errors carry a `type` (entity.parse.failed, …).
  const fromBody = typeof (err as { type?: unknown } | null)?.type === 'string';
  return fromBody ? 'the request body could not be read' : 'the request could not be read';
}
