import { describe, expect, it } from 'vitest';
import { createSessionSigner } from '../src/auth/session-token.ts';

const TOKEN = 'session-test-admin-token-0123456789';
const HOUR = 3_600_000;

describe('console sessions', () => {
  const signer = createSessionSigner(TOKEN, HOUR);

  it('issues a signed value that verifies and never contains the admin token', () => {
    const { value, session } = signer.issue(1_000);
    expect(value).not.toContain(TOKEN);
    expect(signer.verify(value, 2_000)).toEqual(session);
    expect(session.expiresAtMs).toBe(1_000 + HOUR);
  });

  it('refuses expired, tampered and foreign values', () => {
    const { value } = signer.issue(1_000);
    expect(signer.verify(value, 1_000 + HOUR)).toBeNull();
    const parts = value.split('.');
    const longer = [
      parts[0],
      (Number.parseInt(parts[1] ?? '0', 36) + HOUR).toString(36),
      parts[2],
      parts[3],
    ].join('.');
    expect(signer.verify(longer, 2_000)).toBeNull();
    expect(signer.verify(value.slice(0, -1) + (value.endsWith('A') ? 'B' : 'A'), 2_000)).toBeNull();
    expect(signer.verify('garbage', 2_000)).toBeNull();
    expect(signer.verify(TOKEN, 2_000)).toBeNull();
    // Rotating the admin token logs every session out.
    expect(createSessionSigner('another-admin-token-0123456789', HOUR).verify(value, 2_000)).toBeNull();
  });

  it('binds the CSRF token to the session', () => {
    const a = signer.issue().session;
    const b = signer.issue().session;
    expect(signer.csrfMatches(a.sid, signer.csrfToken(a.sid))).toBe(true);
    expect(signer.csrfMatches(a.sid, signer.csrfToken(b.sid))).toBe(false);
    expect(signer.csrfMatches(a.sid, '')).toBe(false);
  });

  it('compares the admin token exactly', () => {
    expect(signer.tokenMatches(TOKEN)).toBe(true);
    expect(signer.tokenMatches(`${TOKEN} `)).toBe(false);
    expect(signer.tokenMatches('')).toBe(false);
  });
});
