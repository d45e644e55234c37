import { invalidRequest } from '@switchyard/protocol';
import { methodNotAllowed, unknownRoute } from '../http/edge-error.ts';

/** The HTTP+JSON operations (digest §4.2, §11). */
export type RestOperation =
  | { op: 'SendMessage' }
  | { op: 'SendStreamingMessage' }
  | { op: 'ListTasks' }
  | { op: 'GetTask'; taskId: string }
  | { op: 'CancelTask'; taskId: string }
  | { op: 'SubscribeToTask'; taskId: string }
  | { op: 'CreateTaskPushNotificationConfig'; taskId: string }
  | { op: 'ListTaskPushNotificationConfigs'; taskId: string }
  | { op: 'GetTaskPushNotificationConfig'; taskId: string; configId: string }
  | { op: 'DeleteTaskPushNotificationConfig'; taskId: string; configId: string }
  | { op: 'GetExtendedAgentCard' };

export type MatchedRoute = RestOperation & { tenant?: string };

/**
 * First segments of the routes without a tenant; a tenant with one of these names cannot exist
 * (§4.2): the admin API refuses to create one (`tasks` is the only one a tenant id could spell).
 */
export const REST_RESERVED_SEGMENTS: ReadonlySet<string> = new Set([
  'tasks',
  'message:send',
  'message:stream',
  'extendedAgentCard',
]);

/**
 * Matches a path below `{base}/rest`. The `/{tenant}` twins of every route are tried only when the
 * first segment is not a route of its own, which settles the `/tasks/{id}` vs `/{tenant}/tasks`
 * collision the digest warns about. `{id}:cancel` and `{id}:subscribe` are suffixes of one
 * segment, so the last `:` splits them (ids should not contain `:`, §4.2).
 */
export function matchRestRoute(method: string, path: string): MatchedRoute {
  const segments = splitPath(path);
  const first = segments[0];
  if (first !== undefined && !REST_RESERVED_SEGMENTS.has(first) && segments.length > 1) {
    return { ...matchOperation(method, segments.slice(1)), tenant: first };
  }
  return matchOperation(method, segments);
}

function matchOperation(method: string, s: string[]): RestOperation {
  const route = (allowed: Record<string, RestOperation>): RestOperation => {
    const found = allowed[method];
    if (found) return found;
    throw methodNotAllowed(method, Object.keys(allowed));
  };
  const [a, b, c, d, ...rest] = s;
  if (rest.length > 0 || a === undefined) throw unknownRoute();
  if (s.length === 1 && a === 'message:send') return route({ POST: { op: 'SendMessage' } });
  if (s.length === 1 && a === 'message:stream') return route({ POST: { op: 'SendStreamingMessage' } });
  if (s.length === 1 && a === 'extendedAgentCard') return route({ GET: { op: 'GetExtendedAgentCard' } });
  if (a !== 'tasks') throw unknownRoute();
  if (b === undefined) return route({ GET: { op: 'ListTasks' } });
  if (c === undefined) {
    const colon = b.lastIndexOf(':');
    const action = colon < 0 ? '' : b.slice(colon + 1);
    const taskId = colon < 0 ? b : b.slice(0, colon);
    if (taskId === '') throw unknownRoute();
    if (action === 'cancel') return route({ POST: { op: 'CancelTask', taskId } });
    // Both verbs: the proto says GET, the spec prose says POST (§12 #1).
    if (action === 'subscribe')
      return route({ GET: { op: 'SubscribeToTask', taskId }, POST: { op: 'SubscribeToTask', taskId } });
    return route({ GET: { op: 'GetTask', taskId: b } });
  }
  if (c !== 'pushNotificationConfigs') throw unknownRoute();
  if (d === undefined) {
    return route({
      POST: { op: 'CreateTaskPushNotificationConfig', taskId: b },
      GET: { op: 'ListTaskPushNotificationConfigs', taskId: b },
    });
  }
  return route({
    GET: { op: 'GetTaskPushNotificationConfig', taskId: b, configId: d },
    DELETE: { op: 'DeleteTaskPushNotificationConfig', taskId: b, configId: d },
  });
}

function splitPath(path: string): string[] {
  const parts = path.split('/').filter((p) => p !== '');
  let decoded: string[];
  try {
    decoded = parts.map((p) => decodeURIComponent(p));
  } catch {
    throw invalidRequest('Malformed percent-encoding in the path');
  }
  // The store cannot hold U+0000 (see reject-unstorable-text.ts): no id can contain it.
  if (decoded.some((p) => p.includes('\0'))) throw invalidRequest('%00 (NUL) in the path');
  return decoded;
}
