/**
 * `Retry-After` as seconds: either delta-seconds or an HTTP-date (RFC 9110 §10.2.3). Undefined
 * when absent or unreadable; a date in the past reads as 0.
 */
export function retryAfterSeconds(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value);
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}
