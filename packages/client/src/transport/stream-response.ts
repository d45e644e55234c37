import { A2AError, type StreamResponse } from '@switchyard/protocol';
import { A2AResponseError } from '../errors/response-error.ts';
import { record } from '../errors/decode-error.ts';

const MEMBERS = ['task', 'message', 'statusUpdate', 'artifactUpdate'] as const;

/**
 * Checks that a value is a StreamResponse: exactly one known oneof member that is an object.
 * Returns undefined for a member this client does not know (a later protocol version), which
 * callers skip rather than fail on (digest §1: ignore what you do not understand).
 */
export function asStreamResponse(value: unknown, status: number): StreamResponse | undefined {
  const obj = record(value);
  if (!obj) throw invalidResponse('a stream event is not a JSON object', status);
  const present = MEMBERS.filter((m) => obj[m] !== undefined && obj[m] !== null);
  if (present.length === 0) return undefined;
  if (present.length > 1 || !record(obj[present[0] as string])) {
    throw invalidResponse(
      `a stream event has ${present.join(' and ')}; exactly one object member is allowed`,
      status,
    );
  }
  return obj as StreamResponse;
}

export function invalidResponse(message: string, status: number): A2AResponseError {
  return new A2AResponseError(new A2AError('InvalidAgentResponse', { message }), status);
}
