import cors from 'cors';
import type { RequestHandler } from 'express';

/** What a browser A2A client sends beyond the CORS-safelisted headers. */
const ALLOWED_HEADERS = [
  'Content-Type',
  'Authorization',
  'X-API-Key',
  'A2A-Version',
  'A2A-Extensions',
  'X-A2A-Extensions',
  'Last-Event-ID',
  'traceparent',
  'tracestate',
];

/** What a browser A2A client may read beyond the CORS-safelisted response headers. */
const EXPOSED_HEADERS = [
  'A2A-Extensions',
  'X-A2A-Extensions',
  'Retry-After',
  'WWW-Authenticate',
  'ETag',
  'Allow',
];

/**
 * CORS for the A2A endpoints and agent cards, for browser-based A2A clients, on the origins the
 * operator lists (CORS_ALLOW_ORIGINS; none: no handler). Preflight OPTIONS requests are answered
 * here, before the A2A framing and credential checks, which they carry nothing for. No cookies are
 * involved (credentials are headers), so no Allow-Credentials. `X-A2A-Extensions` is A2A 0.3's
 * extensions header.
 */
export function corsPolicy(origins: readonly string[]): RequestHandler | undefined {
  if (origins.length === 0) return undefined;
  const handler = cors({
    origin: origins.includes('*') ? '*' : [...origins],
    methods: ['GET', 'POST', 'DELETE'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  });
  // Only a browser's cross-origin request carries Origin; anything else (an OPTIONS from a script,
  // say) is answered as before.
  return (req, res, next) => (req.headers.origin === undefined ? next() : handler(req, res, next));
}
