import { parseJson, record } from '../errors/decode-error.ts';
import { retryAfterSeconds } from '../retry/retry-after.ts';

/** A refusal from Switchyard's admin API (google.rpc.Status with an ErrorInfo in domain `switchyard.admin`). */
export class AdminApiError extends Error {
  readonly httpStatus: number;
  /** ErrorInfo reason, e.g. `NOT_FOUND`, `ALREADY_EXISTS`, `INVALID_ARGUMENT`, `UNAUTHENTICATED`. */
  readonly reason: string;
  readonly fieldViolations: ReadonlyArray<{ field: string; description: string }>;
  readonly retryAfterSeconds: number | undefined;

  constructor(
    httpStatus: number,
    reason: string,
    message: string,
    options: {
      fieldViolations?: AdminApiError['fieldViolations'];
      retryAfterSeconds?: number | undefined;
    } = {},
  ) {
    super(message);
    this.name = 'AdminApiError';
    this.httpStatus = httpStatus;
    this.reason = reason;
    this.fieldViolations = options.fieldViolations ?? [];
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** The HttpClient error decoder of the admin API. */
export function decodeAdminError(
  status: number,
  statusText: string,
  bodyText: string,
  headers: Headers,
): AdminApiError {
  const inner = record(record(parseJson(bodyText))?.['error']);
  const details = Array.isArray(inner?.['details']) ? (inner['details'] as unknown[]) : [];
  let reason = typeof inner?.['status'] === 'string' ? inner['status'] : `HTTP_${status}`;
  const fieldViolations: Array<{ field: string; description: string }> = [];
  for (const item of details) {
    const d = record(item);
    if (typeof d?.['reason'] === 'string') reason = d['reason'];
    for (const v of Array.isArray(d?.['fieldViolations']) ? (d['fieldViolations'] as unknown[]) : []) {
      const fv = record(v);
      if (typeof fv?.['field'] === 'string' && typeof fv['description'] === 'string') {
        fieldViolations.push({ field: fv['field'], description: fv['description'] });
      }
    }
  }
  const message =
    typeof inner?.['message'] === 'string' ? inner['message'] : `HTTP ${status} ${statusText}`.trim();
  return new AdminApiError(status, reason, message, {
    fieldViolations,
    retryAfterSeconds: retryAfterSeconds(headers.get('retry-after')),
  });
}
