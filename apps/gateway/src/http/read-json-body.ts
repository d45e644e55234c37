import type { Request } from 'express';
import {
  invalidRequest,
  jsonParseError,
  jsonRpcIdOf,
  parseJsonRequest,
  payloadTooLarge,
} from '@switchyard/protocol';
import { unsupportedMediaType } from './edge-error.ts';
import { mayHoldUnstorableText, rejectUnstorableText } from './reject-unstorable-text.ts';
import { stateOf } from './request-state.ts';

/** JSON-RPC uses application/json; HTTP+JSON prefers application/a2a+json; accept both (digest §1, §12 #3). */
const JSON_MEDIA_TYPES = new Set(['application/json', 'application/a2a+json']);

/**
 * Reads and parses a JSON request body. Returns undefined when there is no body. Refuses a body
 * over `limitBytes` with PayloadTooLarge (digest §9 rule 7) without buffering past the limit, and a
 * non-JSON media type with 415. Like body-parser, a refused body is left to drain so the client
 * still reads the reply.
 */
export async function readJsonBody(req: Request, limitBytes: number): Promise<unknown> {
  if (!hasBody(req)) return undefined;
  const declared = req.headers['content-length'];
  if (!isJsonMediaType(req.headers['content-type'])) throw unsupportedMediaType();
  if (declared !== undefined && Number(declared) > limitBytes) throw payloadTooLarge(limitBytes);
  // Held as it arrives, until the reply: what the body costs lasts as long as the request.
  const state = stateOf(req);
  // Callers are authenticated before their bodies are read; admin calls share one owner.
  const owner = state.identity ? `tenant:${state.identity.caller.tenantId}` : 'admin';
  const share = req.res ? state.bodyBudget?.open(req, req.res, owner) : undefined;
  const raw = await collectBody(req, limitBytes, share && ((bytes) => share.take(bytes)));
  if (raw.length === 0) return undefined;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch (cause) {
    throw jsonParseError(cause);
  }
  let value: unknown;
  try {
    value = parseJsonRequest(text);
  } catch (cause) {
    throw jsonParseError(cause);
  }
  // The JSON-RPC id is recorded first so the refusal still echoes it.
  if (mayHoldUnstorableText(text)) {
    stateOf(req).jsonRpcId = jsonRpcIdOf(value);
    rejectUnstorableText(value);
  }
  return value;
}

/** Whether the request carries a body at all (a declared length above zero, or a chunked one). */
export function hasBody(req: Request): boolean {
  const declared = req.headers['content-length'];
  return declared !== undefined ? declared !== '0' : req.headers['transfer-encoding'] !== undefined;
}

export function isJsonMediaType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const [type = '', ...params] = header.split(';');
  if (!JSON_MEDIA_TYPES.has(type.trim().toLowerCase())) return false;
  // JSON is UTF-8 on the wire (RFC 8259 §8.1); another declared charset cannot be honoured.
  return params.every((p) => {
    const [name = '', value = ''] = p.split('=');
    return name.trim().toLowerCase() !== 'charset' || /^"?utf-8"?$/i.test(value.trim());
  });
}

/** The raw body, refused with PayloadTooLarge past `limitBytes` (the rest is left to drain). */
export function collectBody(
  req: Request,
  limitBytes: number,
  /** Told each chunk's size; throwing refuses the body (the budget of bodies in flight). */
  onBytes?: (bytes: number) => void,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        cleanup();
        req.resume();
        reject(payloadTooLarge(limitBytes));
        return;
      }
      try {
        onBytes?.(chunk.length);
      } catch (err) {
        cleanup();
        req.resume();
        reject(err);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    // The client's connection failed while it sent (ECONNRESET, an abort): its request, not a
    // dependency (isStoreUnavailable would take ECONNRESET for Postgres), and nobody to answer.
    const onError = () => {
      cleanup();
      reject(invalidRequest('The request body was cut off: the connection closed while it was sent'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}
