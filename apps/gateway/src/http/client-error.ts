import { fromUnknown, isA2AError, unavailable, type A2AError } from '@switchyard/protocol';
import { isStoreUnavailable } from '@switchyard/store';

/** How long a client is told to wait when Postgres cannot serve: a restart or failover takes seconds. */
export const STORE_RETRY_AFTER_SECONDS = 2;

/**
 * The A2A error a client gets for any thrown value: A2A errors as they are, Postgres being away
 * (down, restarting, out of connections) as Unavailable with Retry-After (digest §5.3: 503 +
 * Retry-After for temporary failures), anything else as Internal with a generic message.
 */
export function toClientError(err: unknown): A2AError {
  if (isA2AError(err)) return err;
  if (isStoreUnavailable(err)) return unavailable(STORE_RETRY_AFTER_SECONDS, err);
  return fromUnknown(err);
}
