import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJwtVerifier, type JwtVerifier } from '../src/auth/jwt-verifier.ts';

// Found in review: a token without `kid` matched both keys of an issuer's set during a key
// rotation, jose declined to choose (JWKSMultipleMatchingKeys), and every such token was a 401.
const ISSUER = 'https://issuer.test';
const AUDIENCE = 'switchyard-test';
let jwks: http.Server;
let verify: JwtVerifier;
let oldKey: CryptoKey;
let newKey: CryptoKey;

beforeAll(async () => {
  const [a, b] = await Promise.all([generateKeyPair('ES256'), generateKeyPair('ES256')]);
  [oldKey, newKey] = [a.privateKey, b.privateKey];
  const keys = [
    { ...(await exportJWK(a.publicKey)), kid: 'old', alg: 'ES256', use: 'sig' },
    { ...(await exportJWK(b.publicKey)), kid: 'new', alg: 'ES256', use: 'sig' },
  ];
  jwks = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys }));
  });
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
  verify = createJwtVerifier({
    jwksUrl: `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`,
    issuer: ISSUER,
    audience: AUDIENCE,
    tenantClaim: 'tenant',
    roleClaim: 'role',
    maxLifetimeSec: 3600,
  });
});
afterAll(() => jwks?.close());

const token = (key: CryptoKey, header: { kid?: string } = {}) =>
  new SignJWT({ tenant: 'acme' })
    .setProtectedHeader({ alg: 'ES256', ...header })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject('alice')
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(key);

describe('a JWT without kid, while the issuer publishes two keys', () => {
  it.each([
    ['the first key', () => oldKey],
    ['the second key', () => newKey],
  ])('is verified when signed by %s', async (_which, key) => {
    expect(await verify(await token(key()))).toMatchObject({
      caller: { tenantId: 'acme', principal: 'alice' },
    });
  });

  it('is refused when signed by neither', async () => {
    const stranger = (await generateKeyPair('ES256')).privateKey;
    expect(await verify(await token(stranger))).toBeNull();
  });

  it('is refused when its claims fail, whichever key signed it', async () => {
    const wrongAudience = await new SignJWT({ tenant: 'acme' })
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer(ISSUER)
      .setAudience('someone-else')
      .setSubject('alice')
      .setExpirationTime('5m')
      .sign(newKey);
    expect(await verify(wrongAudience)).toBeNull();
  });

  it('with a kid, is verified by that key alone', async () => {
    expect(await verify(await token(newKey, { kid: 'new' }))).not.toBeNull();
    expect(await verify(await token(newKey, { kid: 'old' }))).toBeNull();
  });
});
