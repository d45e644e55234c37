import { ERROR_INFO_TYPE, type FieldViolation, type GrpcStatusName } from '@switchyard/protocol';

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
