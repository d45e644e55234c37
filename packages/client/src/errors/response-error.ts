import { A2AError } from '@switchyard/protocol';

/**
 * An error the server answered with, rebuilt as the protocol's A2AError (so `kind` and `reason`
 * work as everywhere else) plus what HTTP said: the status code and any `Retry-After`.
 */
export class A2AResponseError extends A2AError {
  /** HTTP status of the reply that carried the error (JSON-RPC errors usually arrive with 200). */
  readonly httpStatus: number;
  /**
   * The body was the server's own error (a JSON-RPC error or a google.rpc.Status), so `kind` is
   * what it said; false when only the status code was there to go by (a proxy's page, no body).
   */
  readonly fromErrorBody: boolean;

  constructor(error: A2AError, httpStatus: number, retryAfterSeconds?: number, fromErrorBody = false) {
    super(error.kind, {
      message: error.message,
      metadata: { ...error.metadata },
      ...(error.fieldViolations ? { fieldViolations: error.fieldViolations } : {}),
      ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
      cause: error,
    });
    this.httpStatus = httpStatus;
    this.fromErrorBody = fromErrorBody;
  }
}

export function isA2AResponseError(value: unknown): value is A2AResponseError {
  return value instanceof A2AResponseError;
}
