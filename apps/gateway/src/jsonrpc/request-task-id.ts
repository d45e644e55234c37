/**
 * The task a JSON-RPC request is about, for the request log line (read before validation, so
 * loosely): `taskId`, `id` or `message.taskId`, which covers both 1.0 and 0.3 params.
 */
export function taskIdOf(params: unknown): string | undefined {
  if (typeof params !== 'object' || params === null) return undefined;
  const p = params as Record<string, unknown>;
  const message =
    typeof p['message'] === 'object' && p['message'] !== null
      ? (p['message'] as Record<string, unknown>)
      : {};
  const id = p['taskId'] ?? p['id'] ?? message['taskId'];
  return typeof id === 'string' ? id.slice(0, 64) : undefined;
}
