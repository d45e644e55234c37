import type { Request } from 'express';
import { authenticate, authenticateLive, authOf } from '../auth/request-auth.ts';
import type { ConsoleServices } from '../console-services.ts';
import type { SseStream } from './sse-stream.ts';

/**
 * Ends a live stream opened with a session cookie once that session is no longer valid (it
 * expired, or was signed out), re-checked as requireAuth checks it: at the session's expiry, and
 * at least every heartbeat. Without this a page left open would go on receiving task data long after its login
 * ran out. The `signed-out` event tells the page to go to the login page instead of reconnecting
 * (a reconnect would only be refused). Bearer callers hold the admin token itself: nothing expires.
 */
export function endWithSession(
  req: Request,
  stream: SseStream,
  { signer, config, reads }: Pick<ConsoleServices, 'signer' | 'config' | 'reads'>,
): void {
  if (authOf(req).kind !== 'session') return;
  let timer: NodeJS.Timeout | undefined;
  const check = async () => {
    // A failed look-up (Postgres away) keeps the stream: its own reads fail the same way.
    const auth = await authenticateLive(req, signer, (sid) => reads.isSessionEnded(sid)).catch(() =>
      authenticate(req, signer),
    );
    if (stream.signal.aborted) return;
    if (auth?.kind !== 'session') {
      stream.send('signed-out', { reason: 'session ended' });
      return stream.close();
    }
    // The cap also keeps the delay a timer can take (a session may last years).
    const untilExpiry = Math.max(auth.session.expiresAtMs - Date.now(), 1);
    timer = setTimeout(() => void check(), Math.min(untilExpiry, config.CONSOLE_SSE_HEARTBEAT_MS));
  };
  void check();
  stream.signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
}
