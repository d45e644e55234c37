import { A2AError } from './a2a-error.ts';
import { A2A_ERROR_DOMAIN, BAD_REQUEST_TYPE, ERROR_INFO_TYPE, type FieldViolation } from './error-details.ts';
import { errorKindByJsonRpcCode, errorKindByReason, type ErrorKind } from './registry.ts';

/**
 * Client side: rebuilds an A2AError from a JSON-RPC `error` object. ErrorInfo `reason` wins over
 * the numeric code because transport-only errors share -32000. Unknown errors become Internal,
 * keeping the server's message (it is the server's to choose what it reveals).
 */
export function fromJsonRpcErrorObject(error: unknown): A2AError {
  const obj = asRecord(error);
  const code = typeof obj?.['code'] === 'number' ? obj['code'] : undefined;
  const fallback = code === undefined ? undefined : errorKindByJsonRpcCode(code);
  return build(obj?.['message'], obj?.['data'], fallback);
}

/** Client side: rebuilds an A2AError from an AIP-193 body `{error:{code,status,message,details}}`. */
export function fromHttpErrorBody(httpStatus: number, body: unknown): A2AError {
  const inner = asRecord(asRecord(body)?.['error']);
  return build(inner?.['message'], inner?.['details'], httpFallback(httpStatus));
}

function build(message: unknown, details: unknown, fallback: ErrorKind | undefined): A2AError {
  let kind = fallback;
  let metadata: Record<string, string> | undefined;
  let fieldViolations: FieldViolation[] | undefined;
  for (const item of Array.isArray(details) ? details : []) {
    const d = asRecord(item);
    if (
      d?.['@type'] === ERROR_INFO_TYPE &&
      typeof d['reason'] === 'string' &&
      d['domain'] === A2A_ERROR_DOMAIN
    ) {
      kind = errorKindByReason(d['reason']) ?? kind;
      metadata = stringRecord(d['metadata']);
    } else if (d?.['@type'] === BAD_REQUEST_TYPE && Array.isArray(d['fieldViolations'])) {
      fieldViolations = d['fieldViolations'].flatMap((v: unknown) => {
        const r = asRecord(v);
        return typeof r?.['field'] === 'string' && typeof r['description'] === 'string'
          ? [{ field: r['field'], description: r['description'] }]
          : [];
      });
    }
  }
  return new A2AError(kind ?? 'Internal', {
    ...(typeof message === 'string' && message !== '' ? { message } : {}),
    metadata,
    fieldViolations,
  });
}

// Only statuses that identify one error in both mapping columns; 400 is shared by many (§5.4).
function httpFallback(status: number): ErrorKind | undefined {
  const map: Record<number, ErrorKind> = {
    401: 'Unauthenticated',
    403: 'PermissionDenied',
    404: 'TaskNotFound',
    409: 'TaskNotCancelable',
    413: 'PayloadTooLarge',
    415: 'ContentTypeNotSupported',
    429: 'ResourceExhausted',
    502: 'InvalidAgentResponse',
    503: 'Unavailable',
  };
  return map[status] ?? (status === 400 ? 'InvalidParams' : undefined);
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function stringRecord(value: unknown): Record<string, string> | undefined {
  const rec = asRecord(value);
  if (!rec) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(rec)) if (typeof v === 'string') out[k] = v;
  return out;
}
