import type { SendMessageRequest } from '@switchyard/protocol';

/** undici's codes for a reply that did not come in time: no headers, or a body that stalled. */
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/**
 * Whether a SendMessage that failed transiently may be sent again. Every retry resends the same
 * messageId, which makes a repeat harmless only on a server that de-duplicates by messageId:
 * Switchyard does, the spec only allows it (digest §7.2 rule 17). A lost connection is retried on
 * that footing. A blocking send that timed out is not: the server took it and may still be
 * running its task, since blocking sends wait until the task settles (rule 12). A repeat would
 * wait as long again (five times undici's 300 s headers timeout) and, on a server that does not
 * de-duplicate, make the agent do the work twice. The timeout surfaces instead; `run()`
 * (non-blocking, then subscribe and poll) is the way to wait on long tasks.
 */
export function maySendAgain(request: SendMessageRequest, error: unknown): boolean {
  return request.configuration?.returnImmediately === true || !isTimeout(error);
}

/** undici gave up waiting for the reply, or a gateway did (504): the request may still be running. */
export function isTimeout(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const { code, httpStatus } = current as { code?: unknown; httpStatus?: unknown };
    if (httpStatus === 504 || (typeof code === 'string' && TIMEOUT_CODES.has(code))) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
