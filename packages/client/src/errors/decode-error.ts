import { A2AError, fromHttpErrorBody, fromJsonRpcErrorObject } from '@switchyard/protocol';
import { retryAfterSeconds } from '../retry/retry-after.ts';
import { A2AResponseError } from './response-error.ts';

/**
 * Turns a non-success reply into an A2AResponseError, whatever shape the body has: a JSON-RPC
 * error envelope (the JSON-RPC binding, also on 401/429), a google.rpc.Status (HTTP+JSON, digest
 * §5.4), RFC 9457 problem details (kind from the status, message from its title and detail), or
 * anything else (a proxy's HTML page), which falls back to the status code.
 */
export function errorFromReply(
  status: number,
  statusText: string,
  bodyText: string,
  headers: Headers,
): A2AResponseError {
  const body = parseJson(bodyText);
  const retryAfter = retryAfterSeconds(headers.get('retry-after'));
  const rpcError = record(record(body)?.['error']);
  let error: A2AError;
  let fromErrorBody = true;
  if (rpcError && typeof rpcError['code'] === 'number' && record(body)?.['jsonrpc'] === '2.0') {
    error = fromJsonRpcErrorObject(rpcError);
  } else if (rpcError) {
    error = fromHttpErrorBody(status, body);
  } else if (problemText(body) !== undefined && (status !== 404 || isProblemDetails(headers))) {
    // RFC 9457 problem details, the error shape of the spec's leftover examples (digest §5.4):
    // the server's own answer, so its title and detail say what went wrong, and the kind is what
    // the status means in the HTTP mapping. A 404 reads as TaskNotFound only when the body says
    // it is problem details (its media type): a framework's own 404 for an unknown route also
    // carries a title or detail ({"detail":"Not Found"}).
    const fallback = fromHttpErrorBody(status, undefined);
    error = new A2AError(fallback.kind, {
      message: `HTTP ${status}${statusText ? ` ${statusText}` : ''}: ${problemText(body)}`,
    });
    fromErrorBody = false;
  } else if (status === 404) {
    // No A2A error: the URL names no A2A endpoint (a typo, a proxy's page), not a missing task,
    // which a server answers with its error. Read as an unknown method, not as TaskNotFound.
    const said = problemText(body);
    error = new A2AError('MethodNotFound', {
      message: `HTTP 404${statusText ? ` ${statusText}` : ''}${said ? ` (${said})` : ''}: the reply has no A2A error; is the URL an A2A endpoint?`,
    });
    fromErrorBody = false;
  } else {
    const fallback = fromHttpErrorBody(status, undefined);
    error = new A2AError(fallback.kind, { message: `HTTP ${status}${statusText ? ` ${statusText}` : ''}` });
    fromErrorBody = false;
  }
  return new A2AResponseError(error, status, retryAfter, fromErrorBody);
}

function isProblemDetails(headers: Headers): boolean {
  return (headers.get('content-type') ?? '').toLowerCase().includes('application/problem+json');
}

/** `title: detail` of an RFC 9457 problem details body, when it has either. */
function problemText(body: unknown): string | undefined {
  const problem = record(body);
  const parts = [problem?.['title'], problem?.['detail']].filter(
    (part): part is string => typeof part === 'string' && part.trim() !== '',
  );
  return parts.length > 0 ? parts.join(': ') : undefined;
}

/** A JSON-RPC `error` object that arrived inside a 200 reply or an SSE event. */
export function errorFromJsonRpc(errorObject: unknown, httpStatus: number): A2AResponseError {
  return new A2AResponseError(fromJsonRpcErrorObject(errorObject), httpStatus, undefined, true);
}

/** A google.rpc.Status body that arrived as an SSE event of an HTTP+JSON stream. */
export function errorFromStatusBody(body: unknown, fallbackStatus: number): A2AResponseError {
  const code = record(record(body)?.['error'])?.['code'];
  const status = typeof code === 'number' ? code : fallbackStatus;
  return new A2AResponseError(fromHttpErrorBody(status, body), status, undefined, true);
}

export function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
