type Pending = undefined | null | false | '' | 0;

/**
 * Polls `check` until it returns a truthy value, or throws after `timeoutMs`.
 * Tests wait for conditions, never for fixed sleeps.
 */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  {
    timeoutMs = 15_000,
    intervalMs = 25,
    what = 'condition',
  }: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<Exclude<T, Pending>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as Exclude<T, Pending>;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`, { cause: lastError });
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
