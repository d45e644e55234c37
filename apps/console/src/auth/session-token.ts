import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Console sessions without server state, so any replica accepts any login: the cookie holds
 * `v1.<expiry>.<session id>.<HMAC>`, never the admin token itself. The HMAC key is derived from
 * the admin token, so rotating the token logs every session out.
 */
export interface Session {
  sid: string;
  expiresAtMs: number;
}

export interface SessionSigner {
  /** True when `presented` is the admin token (constant-time whatever the lengths). */
  tokenMatches(presented: string): boolean;
  issue(nowMs?: number): { value: string; session: Session };
  /** The session of a cookie value, or null when forged, malformed or expired. */
  verify(value: string, nowMs?: number): Session | null;
  /** The CSRF token of a session: forms and fetches must echo it on every POST. */
  csrfToken(sid: string): string;
  csrfMatches(sid: string, presented: string): boolean;
}

export function createSessionSigner(adminToken: string, ttlMs: number): SessionSigner {
  const key = createHmac('sha256', adminToken).update('switchyard-console-session-v1').digest();
  const tokenDigest = sha256(adminToken);
  const mac = (data: string) => createHmac('sha256', key).update(data).digest('base64url');
  const same = (a: string, b: string) => timingSafeEqual(sha256(a), sha256(b));
  return {
    tokenMatches: (presented) => timingSafeEqual(sha256(presented), tokenDigest),
    issue(nowMs = Date.now()) {
      const session = { sid: randomBytes(18).toString('base64url'), expiresAtMs: nowMs + ttlMs };
      const body = `v1.${session.expiresAtMs.toString(36)}.${session.sid}`;
      return { value: `${body}.${mac(body)}`, session };
    },
    verify(value, nowMs = Date.now()) {
      const match = /^v1\.([0-9a-z]{1,12})\.([A-Za-z0-9_-]{24})\.([A-Za-z0-9_-]{43})$/.exec(value);
      if (!match) return null;
      const [, exp = '', sid = '', sig = ''] = match;
      if (!same(sig, mac(`v1.${exp}.${sid}`))) return null;
      const expiresAtMs = parseInt(exp, 36);
      return expiresAtMs > nowMs ? { sid, expiresAtMs } : null;
    },
    csrfToken: (sid) => mac(`csrf.${sid}`),
    csrfMatches: (sid, presented) => same(presented, mac(`csrf.${sid}`)),
  };
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
