/** Node's longest timer, about 24.8 days: a longer delay fires at once (with a warning). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Calls `onExpired` once `expiresAt` (epoch ms) has passed; returns a function that cancels it. A
 * timer holds at most MAX_TIMER_MS, so a later expiry is waited for in steps: an API key that
 * expires in months still ends the streams it opened when it does.
 */
export function atExpiry(expiresAt: number, onExpired: () => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  const wait = () => {
    const left = expiresAt - Date.now();
    if (left <= 0) return onExpired();
    timer = setTimeout(wait, Math.min(left, MAX_TIMER_MS)).unref();
  };
  wait();
  return () => clearTimeout(timer);
}
