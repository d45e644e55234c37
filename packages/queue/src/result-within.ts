/**
 * `work`'s result, or `fallback` once `timeoutMs` passed (or at once if `work` rejects): for
 * answers from Redis that are worth having but not worth waiting out an outage or a hang for.
 * The timer is cleared either way; a rejection after the timeout is handled here.
 */
export async function resultWithin<T, F>(work: Promise<T>, timeoutMs: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<F>((resolve) => (timer = setTimeout(() => resolve(fallback), timeoutMs)));
  try {
    return await Promise.race([work.catch(() => fallback), late]);
  } finally {
    clearTimeout(timer);
  }
}
