/**
 * No usable HTTP answer: connection refused or reset, DNS failure, a stream cut mid-body or a
 * stream that went silent past its idle timeout. Always transient from the client's point of view;
 * `cause` keeps the underlying error.
 */
export class NetworkError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'NetworkError';
  }
}

export function isNetworkError(value: unknown): value is NetworkError {
  return value instanceof NetworkError;
}
