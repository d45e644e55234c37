import { A2AError } from './a2a-error.ts';

/**
 * Turns any thrown value into an A2AError. Non-A2A errors become InternalError with the generic
 * message 'Internal error': their message and stack may hold internals and stay in `cause`, for
 * logs and traces only (ARCHITECTURE §3 rule 7).
 */
export function fromUnknown(error: unknown): A2AError {
  if (error instanceof A2AError) return error;
  return new A2AError('Internal', { cause: error });
}
