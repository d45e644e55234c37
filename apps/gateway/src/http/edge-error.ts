import { A2AError, type GrpcStatusName } from '@switchyard/protocol';

/**
 * Some failures are about HTTP itself, not an A2A operation: the body's media type (415), a verb a
 * route does not take (405), an unknown route or agent (404). Their status is fixed whatever the
 * error-mapping column, and JSON-RPC answers them at the HTTP layer as well. Where the registry's
 * gRPC code name would contradict the forced status, the google.rpc `status` is fixed too.
 */
interface EdgeStatus {
  http: number;
  grpc: GrpcStatusName | undefined;
  /** A 405's `Allow` header (RFC 9110 §15.5.6: the verbs the path does take). */
  allow?: readonly string[];
}

const forced = new WeakMap<A2AError, EdgeStatus>();

export function withHttpStatus(error: A2AError, http: number, grpc?: GrpcStatusName): A2AError {
  forced.set(error, { http, grpc });
  return error;
}

export function forcedHttpStatus(error: A2AError): number | undefined {
  return forced.get(error)?.http;
}

/** The verbs a path takes, for the `Allow` header of a 405. */
export function allowedMethods(error: A2AError): readonly string[] | undefined {
  return forced.get(error)?.allow;
}

/** The google.rpc `status` of an HTTP+JSON reply, when the edge fixed it (else the registry's). */
export function forcedGrpcStatus(error: A2AError): GrpcStatusName | undefined {
  return forced.get(error)?.grpc;
}

/**
 * Unknown agent, or a tenant segment that is not the caller's: 404 with no hint (digest §9 rule
 * 4). Given the agent the URL names, the message names it back (a mistyped name then reads as
 * one, not as a missing task); it says the same whether the agent is missing or another
 * tenant's, so it tells the caller nothing the URL did not.
 */
export function notFound(agent?: { tenantId: string; agentId: string }): A2AError {
  const message = agent
    ? `No agent ${agentPath(agent.tenantId, agent.agentId)} is served to this caller`
    : 'Not found';
  return withHttpStatus(new A2AError('TaskNotFound', { message }), 404);
}

/** The card of an agent that does not exist: cards are public, so the message names it plainly. */
export function agentCardNotFound(tenantId: string, agentId: string): A2AError {
  return withHttpStatus(
    new A2AError('TaskNotFound', { message: `No agent ${agentPath(tenantId, agentId)}` }),
    404,
  );
}

/** The URL's tenant and agent as a message shows them: cut short, since a URL may hold anything. */
function agentPath(tenantId: string, agentId: string): string {
  const cut = (segment: string) => (segment.length > 64 ? `${segment.slice(0, 64)}…` : segment);
  return `${cut(tenantId)}/${cut(agentId)}`;
}

/**
 * HTTP Content-Type of the body is not JSON (RFC 9110 §15.5.16: 415). ContentTypeNotSupported
 * (-32005), although the spec defines it for parts' media types: the TCK asserts exactly this
 * error for this request (JSONRPC-SSE-002 sends `text/plain`; HTTP_JSON-STATUS-001 expects 415),
 * and a2a-js 1.3.0's content-type guards answer it the same way on both bindings.
 */
export function unsupportedMediaType(): A2AError {
  return withHttpStatus(
    new A2AError('ContentTypeNotSupported', {
      message: 'Content-Type must be application/json or application/a2a+json (charset utf-8)',
    }),
    415,
  );
}

/**
 * No such path at all (digest §5.3: an unknown route is 404). MethodNotFound says what is wrong,
 * but its gRPC code, UNIMPLEMENTED, means HTTP 501 in google.rpc.Code's mapping (AIP-193), where
 * 404 is NOT_FOUND; a2a-js's toRestErrorBody names a 404 that is no A2A error NOT_FOUND as well.
 */
export function unknownRoute(): A2AError {
  return withHttpStatus(new A2AError('MethodNotFound', { message: 'No such route' }), 404, 'NOT_FOUND');
}

export function methodNotAllowed(method: string, allow: readonly string[]): A2AError {
  const error = new A2AError('MethodNotFound', { message: `Method ${method} not allowed on this path` });
  forced.set(error, { http: 405, grpc: undefined, allow });
  return error;
}
