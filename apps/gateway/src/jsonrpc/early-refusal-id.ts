import type { ErrorRequestHandler, Request } from 'express';
import { jsonRpcIdOf, parseJsonRequest, type JsonRpcId } from '@switchyard/protocol';
import { collectBody, hasBody, isJsonMediaType } from '../http/read-json-body.ts';
import { stateOf } from '../http/request-state.ts';

/**
 * The most of an unread body a refusal reads to find its id. A refused caller may hold no
 * credential at all, so it gets less than the body limit (4 MiB by default): parsing that much for
 * each 401 would be the expensive work authentication exists to spare. A2A requests with a
 * typical message are far smaller; a larger one is answered with id null.
 */
const MAX_ID_READ_BYTES = 64 * 1024;

/**
 * JSON-RPC 2.0 §5: an error reply's id is the request's whenever it can be determined. What runs
 * before the handler (authentication, rate limit, agent lookup) refuses a request before its body
 * is read, and it stays that way on the way in: no body is read before the credential is checked.
 * This error handler, on the JSON-RPC route after the handler, reads the body of such a refusal
 * once it has happened, if nobody has read it, it is declared JSON and it is small enough, and
 * notes its id. A body that is not JSON (the 415) is never read; one that is unreadable, too large
 * or not JSON keeps id null, which is what §5 asks when the id cannot be determined.
 */
export function readIdOfEarlyRefusal(bodyLimitBytes: number): ErrorRequestHandler {
  const limit = Math.min(bodyLimitBytes, MAX_ID_READ_BYTES);
  return (err: unknown, req, _res, next) => {
    readUnreadId(req, limit).then(
      (id) => {
        if (id !== undefined) stateOf(req).jsonRpcId = id;
        next(err);
      },
      // Too large, not UTF-8, not JSON, or the client left: no id can be determined.
      () => next(err),
    );
  };
}

async function readUnreadId(req: Request, limitBytes: number): Promise<JsonRpcId | undefined> {
  // Flowing once anything consumed it (the handler sets the id itself when it read the body).
  if (req.readableFlowing !== null || !hasBody(req)) return undefined;
  if (!isJsonMediaType(req.headers['content-type'])) return undefined;
  if (Number(req.headers['content-length']) > limitBytes) return undefined;
  const raw = await collectBody(req, limitBytes);
  return jsonRpcIdOf(parseJsonRequest(new TextDecoder('utf-8', { fatal: true }).decode(raw)));
}
