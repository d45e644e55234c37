/**
 * `Retry-After` (RFC 9110 §10.2.3) in ms from `now`: delay-seconds or an HTTP-date. Undefined when
 * absent or unreadable; a date in the past is no wait at all. Every HTTP-date form starts with a
 * day name: Date.parse alone would read `1.5` or `-5` as a year.
 */
export function retryAfterMs(
  header: string | readonly string[] | null | undefined,
  now: number = Date.now(),
): number | undefined {
  const value = (typeof header === 'string' ? header : header?.[0])?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = /^[A-Za-z]{3}/.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
