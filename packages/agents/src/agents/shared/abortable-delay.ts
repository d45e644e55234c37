/**
 * Waits `ms`, or less when `signal` aborts. Resolves `true` when the full delay passed and `false`
 * when aborted, so agents can return quietly instead of surfacing an abort as an error (after a
 * cancel or a lost lease the platform has already decided the task's fate; ARCHITECTURE.md §6).
 */
export function abortableDelay(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
