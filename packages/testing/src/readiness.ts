import { waitFor } from './wait-for.ts';

/** What a process's /readyz answered: the HTTP status and the body every entry point sends. */
export interface Readiness {
  code: number;
  body: { status: string; checks: Record<string, boolean> };
}

/**
 * One GET of `${base}/readyz`, or null while nothing answers it with JSON yet (the process is
 * still starting, or has gone). Tests of the real entry points assert on the code and the checks
 * together, so both come back.
 */
export async function readReadiness(base: string): Promise<Readiness | null> {
  const res = await fetch(`${base}/readyz`).catch(() => null);
  if (!res) return null;
  const body = (await res.json().catch(() => null)) as Readiness['body'] | null;
  return body ? { code: res.status, body } : null;
}

/**
 * Polls `${base}/readyz` until an answer satisfies `until` (by default: ready, code 200) and
 * returns that answer. The default timeout is for a process just started: a cold Node start can
 * take many seconds while other test files fill both cores. Waits on a process already up should
 * pass their own, shorter `timeoutMs`.
 */
export async function waitForReadiness(
  base: string,
  {
    until = (r) => r.code === 200,
    what = `${base}/readyz`,
    timeoutMs = 60_000,
  }: { until?: (readiness: Readiness) => boolean; what?: string; timeoutMs?: number } = {},
): Promise<Readiness> {
  return waitFor(
    async () => {
      const readiness = await readReadiness(base);
      return readiness && until(readiness) ? readiness : null;
    },
    { what, timeoutMs },
  );
}
