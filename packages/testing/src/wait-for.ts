/**
 * Polls `check` until it returns a value other than undefined/false, or throws after `timeoutMs`.
 * Tests wait for conditions, never for fixed sleeps.
 */
export async function waitFor<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  { timeoutMs = 15_000, intervalMs = 25, what = 'condition' }: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`, { cause: lastError });
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
