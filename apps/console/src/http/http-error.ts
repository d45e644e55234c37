import { ERROR_INFO_TYPE, type GrpcStatusName } from '@switchyard/protocol';

/** ErrorInfo domain of the console's JSON errors (the admin API's is `switchyard.admin`). */
export const CONSOLE_ERROR_DOMAIN = 'switchyard.console';

/**
 * An error with the status and safe message the console answers with: an HTML page, or for the
 * JSON API a google.rpc.Status in AIP-193 form, shaped like every other HTTP error of the platform
 * (the gateway's A2A and admin APIs), so one client can read them all.
 */
export class HttpError extends Error {
  readonly status: number;
  readonly code: GrpcStatusName;
  constructor(status: number, code: GrpcStatusName, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'HttpError';
    this.status = status;
    this.code = code;
  }

  toBody() {
    return {
      error: {
        code: this.status,
        status: this.code,
        message: this.message,
        details: [{ '@type': ERROR_INFO_TYPE, reason: this.code, domain: CONSOLE_ERROR_DOMAIN }],
      },
    };
  }
}

export const badRequest = (message: string) => new HttpError(400, 'INVALID_ARGUMENT', message);
export const notFound = (what = 'page') => new HttpError(404, 'NOT_FOUND', `${what} not found`);
export const forbidden = (message: string) => new HttpError(403, 'PERMISSION_DENIED', message);
/** The request is well formed, but the record's state forbids it (a task already terminal). */
export const conflict = (message: string) => new HttpError(409, 'FAILED_PRECONDITION', message);
export const unauthenticated = (message: string) => new HttpError(401, 'UNAUTHENTICATED', message);
