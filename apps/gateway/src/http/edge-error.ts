import { A2AError } from '@switchyard/protocol';

/**
 * Some failures are about HTTP itself, not an A2A operation: the body's media type (415), a verb a
 * route does not take (405), an unknown route or agent (404). Their status is fixed whatever the
 * error-mapping column, and JSON-RPC answers them at the HTTP layer as well.
 */
const forced = new WeakMap<A2AError, number>();

export function withHttpStatus(error: A2AError, status: number): A2AError {
  forced.set(error, status);
  return error;
}

export function forcedHttpStatus(error: A2AError): number | undefined {
  return forced.get(error);
}

/** Unknown agent, or a tenant segment that is not the caller's: 404 with no hint (digest §9 rule 4). */
export function notFound(): A2AError {
  return withHttpStatus(new A2AError('TaskNotFound', { message: 'Not found' }), 404);
}

/** HTTP Content-Type of the body is not JSON (RFC 9110 §15.5.16: 415). */
export function unsupportedMediaType(): A2AError {
  return withHttpStatus(
    new A2AError('ContentTypeNotSupported', {
      message: 'Content-Type must be application/json or application/a2a+json (charset utf-8)',
    }),
    415,
  );
}

/** No such path at all (digest §5.3: an unknown route is 404). */
export function unknownRoute(): A2AError {
  return withHttpStatus(new A2AError('MethodNotFound', { message: 'No such route' }), 404);
}

export function methodNotAllowed(method: string): A2AError {
  return withHttpStatus(
    new A2AError('MethodNotFound', { message: `Method ${method} not allowed on this path` }),
    405,
  );
}
