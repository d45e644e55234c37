import { ERROR_INFO_TYPE, isA2AError, type FieldViolation, type GrpcStatusName } from '@switchyard/protocol';
import { toClientError } from '../http/client-error.ts';

/** ErrorInfo domain of admin-API errors: they are Switchyard's, not the A2A protocol's. */
export const ADMIN_ERROR_DOMAIN = 'switchyard.admin';

/** An admin-API failure, answered as google.rpc.Status like every HTTP error of the gateway. */
export class AdminError extends Error {
  readonly status: number;
  readonly code: GrpcStatusName;
  readonly reason: string;
  readonly fieldViolations: readonly FieldViolation[];

  constructor(
    status: number,
    code: GrpcStatusName,
    reason: string,
    message: string,
    fieldViolations: readonly FieldViolation[] = [],
  ) {
    super(message);
    this.name = 'AdminError';
    this.status = status;
    this.code = code;
    this.reason = reason;
    this.fieldViolations = fieldViolations;
  }

  toBody() {
    const details: Array<Record<string, unknown>> = [
      { '@type': ERROR_INFO_TYPE, reason: this.reason, domain: ADMIN_ERROR_DOMAIN },
    ];
    if (this.fieldViolations.length > 0) {
      details.push({
        '@type': 'type.googleapis.com/google.rpc.BadRequest',
        fieldViolations: [...this.fieldViolations],
      });
    }
    return { error: { code: this.status, status: this.code, message: this.message, details } };
  }
}

export const adminNotFound = (what: string): AdminError =>
  new AdminError(404, 'NOT_FOUND', 'NOT_FOUND', `${what} not found`);

export const adminInvalid = (message: string, fieldViolations: readonly FieldViolation[] = []): AdminError =>
  new AdminError(400, 'INVALID_ARGUMENT', 'INVALID_ARGUMENT', message, fieldViolations);

export const adminConflict = (message: string): AdminError =>
  new AdminError(409, 'ALREADY_EXISTS', 'ALREADY_EXISTS', message);

export const adminUnauthenticated = (): AdminError =>
  new AdminError(401, 'UNAUTHENTICATED', 'UNAUTHENTICATED', 'Admin authentication required');

/** The request is well formed, but the record's state forbids it (e.g. an agent with live tasks). */
export const adminFailedPrecondition = (message: string): AdminError =>
  new AdminError(409, 'FAILED_PRECONDITION', 'FAILED_PRECONDITION', message);

/** What an admin route answers for a thrown value, and how the gateway should treat it. */
export interface AdminFailure {
  error: AdminError;
  /** Seconds for `Retry-After` (a dependency temporarily away, a full body budget). */
  retryAfterSeconds?: number;
  /** Logged with its cause: a failure of ours or of a dependency, not of the request. */
  log?: 'error' | 'warn';
}

/**
 * Every failure of an admin route in the admin API's own terms (domain `switchyard.admin`): the
 * body reader's and the HTTP layer's refusals (415, 413, bad JSON, text Postgres cannot store, a
 * malformed percent-encoding) are A2A errors or express errors where they are raised, because the
 * A2A bindings share that code.
 */
export function toAdminFailure(err: unknown): AdminFailure {
  if (err instanceof AdminError) return { error: err };
  if (!isA2AError(err) && typeof err === 'object' && err !== null) {
    const status = (err as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      const message =
        err instanceof URIError ? 'Malformed percent-encoding in the path' : 'Malformed request';
      return { error: adminInvalid(message) };
    }
  }
  const error = toClientError(err);
  switch (error.kind) {
    case 'ContentTypeNotSupported':
      return {
        error: new AdminError(
          415,
          'INVALID_ARGUMENT',
          'UNSUPPORTED_MEDIA_TYPE',
          'Content-Type must be application/json (charset utf-8)',
        ),
      };
    case 'PayloadTooLarge': {
      const limit = error.metadata.limitBytes;
      return {
        error: new AdminError(
          413,
          'INVALID_ARGUMENT',
          'PAYLOAD_TOO_LARGE',
          limit ? `Request body over ${limit} bytes` : 'Request body too large',
        ),
      };
    }
    case 'JSONParse':
      return {
        error: adminInvalid('Request body is not valid JSON', [
          { field: '(body)', description: 'must be a JSON document in UTF-8' },
        ]),
      };
    case 'InvalidParams':
    case 'InvalidRequest':
      return { error: adminInvalid(error.message, error.fieldViolations ?? []) };
    case 'Unavailable':
    case 'ResourceExhausted':
      return {
        error: new AdminError(
          error.kind === 'Unavailable' ? 503 : 429,
          error.kind === 'Unavailable' ? 'UNAVAILABLE' : 'RESOURCE_EXHAUSTED',
          error.reason,
          error.message,
        ),
        ...(error.retryAfterSeconds !== undefined ? { retryAfterSeconds: error.retryAfterSeconds } : {}),
        log: 'warn',
      };
    default:
      return { error: new AdminError(500, 'INTERNAL', 'INTERNAL', 'Internal error'), log: 'error' };
  }
}
