import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJwtVerifier, type JwtVerifier } from '../src/auth/jwt-verifier.ts';

// JWT_MAX_LIFETIME_SEC bounds how long a token is a credential (README, "Authentication"): an
// `iat` claimed in the future must not shrink the lifetime measured, or a token issued "ten years
// from now" and expiring fifty minutes after that would pass as a fifty-minute token.
const HOUR = 3600;
let jwks: http.Server;
let privateKey: CryptoKey;
let verify: JwtVerifier;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  privateKey = pair.privateKey;
  const jwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  jwks = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
  verify = createJwtVerifier({
    jwksUrl: `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`,
    tenantClaim: 'tenant',
    roleClaim: 'switchyard_role',
    maxLifetimeSec: HOUR,
  });
});
afterAll(() => {
  jwks?.close();
});

const now = () => Math.floor(Date.now() / 1000);

function token({ iat, exp }: { iat?: number; exp: number }): Promise<string> {
  const jwt = new SignJWT({ tenant: 'acme' })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
    .setSubject('alice')
    .setExpirationTime(exp);
  return (iat === undefined ? jwt : jwt.setIssuedAt(iat)).sign(privateKey);
}

describe('JWT_MAX_LIFETIME_SEC and an iat in the future', () => {
  it('measures the lifetime from now when iat is later: ten years ahead is refused', async () => {
    const tenYears = 10 * 365 * 86_400;
    expect(await verify(await token({ iat: now() + tenYears, exp: now() + tenYears + 50 * 60 }))).toBeNull();
    // Only just ahead, with an expiry within the maximum from now: a clock a little fast, accepted.
    expect(await verify(await token({ iat: now() + 30, exp: now() + 50 * 60 }))).not.toBeNull();
    // Ahead, and expiring past the maximum (and its minute's slack) from now: refused.
    expect(await verify(await token({ iat: now() + 30 * 60, exp: now() + 30 * 60 + 50 * 60 }))).toBeNull();
  });

  it('keeps the rest: exp - iat for a past iat, what is left without iat, a minute of slack', async () => {
    expect(await verify(await token({ iat: now(), exp: now() + HOUR + 30 }))).not.toBeNull();
    expect(await verify(await token({ iat: now(), exp: now() + HOUR + 120 }))).toBeNull();
    expect(await verify(await token({ iat: now() - HOUR, exp: now() + 10 * 60 }))).toBeNull();
    expect(await verify(await token({ exp: now() + HOUR }))).not.toBeNull();
    expect(await verify(await token({ exp: now() + 2 * HOUR }))).toBeNull();
  });
});
