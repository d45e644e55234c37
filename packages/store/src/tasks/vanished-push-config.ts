/**
 * A write that queues push deliveries reads the task's configs in its statement's snapshot. If
 * DeleteTaskPushNotificationConfig commits in between, the delivery row's foreign key finds its
 * config gone at the end of the statement and the whole write fails (23503), although nothing is
 * wrong with it: a finished run would be retried, a cancel answered Internal. The failed statement
 * wrote nothing, so it runs again; its new snapshot no longer sees the config. A second delete in
 * the same instant fails it for good, as any error would.
 */
export async function retryIfPushConfigVanished<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (!isVanishedPushConfig(err)) throw err;
    return write();
  }
}

function isVanishedPushConfig(err: unknown): boolean {
  const { code, constraint } = (err ?? {}) as { code?: unknown; constraint?: unknown };
  return code === '23503' && typeof constraint === 'string' && constraint.startsWith('push_deliveries_');
}
