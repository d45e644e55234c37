import {
  createRemoteJWKSet,
  errors as joseErrors,
  jwtVerify,
  type JWTPayload,
  type JWTVerifyOptions,
  type JWTVerifyResult,
} from 'jose';
import type { Identity } from '../http/request-state.ts';

export interface JwtOptions {
  jwksUrl: string;
  issuer?: string | undefined;
  audience?: string | undefined;
  /** Claim naming the tenant. */
  tenantClaim: string;
  /** Claim whose value `tenant_admin` grants tenant-admin visibility. */
  roleClaim: string;
  /**
   * The longest lifetime a token may have, in seconds: `exp - iat` (an `iat` in the future counts
   * as now), or without `iat` what it still has to live. The gateway cannot revoke a JWT, so a
   * token minted for years would be a credential for years.
   */
  maxLifetimeSec: number;
}

/** Slack for the issuer's clock: a token minted for exactly the maximum must not fail by a second. */
const CLOCK_TOLERANCE_SEC = 60;

/**
 * The token's whole lifetime when it says when it was issued, else the rest of its life. It is
 * measured from the earlier of `iat` and now: a token is a credential from the moment it is
 * presented, so an `iat` claimed in the future (ten years ahead, with an `exp` fifty minutes after
 * it) must not shorten the lifetime it is measured by.
 */
function lifetimeMs(payload: JWTPayload, expiresAt: number): number {
  const now = Date.now();
  const start = typeof payload.iat === 'number' ? Math.min(payload.iat * 1000, now) : now;
  return expiresAt - start;
}

/**
 * Whether jose failed on the issuer's key set rather than on the token: a timeout, an answer other
 * than 200, a body that is not JSON (the plain JOSEError jose's remote key set throws for those
 * two), or a malformed key set. Every error the token itself causes has a code of its own. The
 * caller gets Unavailable and retries; a 401 would tell it to throw away a good token.
 */
function keySetUnavailable(err: joseErrors.JOSEError): boolean {
  return (
    err instanceof joseErrors.JWKSTimeout ||
    err instanceof joseErrors.JWKSInvalid ||
    err.code === joseErrors.JOSEError.code
  );
}

export type JwtVerifier = (token: string) => Promise<Identity | null>;

/**
 * A token without a `kid` matches every key of its algorithm in the issuer's set, and while an
 * issuer rotates its keys the set holds two: jose then names the candidates rather than choose,
 * and each is tried in turn (jose's documented way). Only a bad signature moves on to the next.
 */
async function verifyWithEach(
  token: string,
  candidates: joseErrors.JWKSMultipleMatchingKeys,
  checks: JWTVerifyOptions,
): Promise<JWTVerifyResult> {
  for await (const key of candidates) {
    try {
      return await jwtVerify(token, key, checks);
    } catch (err) {
      if (err instanceof joseErrors.JWSSignatureVerificationFailed) continue;
      throw err;
    }
  }
  throw new joseErrors.JWSSignatureVerificationFailed();
}

/**
 * Bearer JWTs signed by a key from the issuer's JWKS (jose caches and refreshes the key set).
 * A token without a tenant or subject identifies nobody: null, which the caller turns into 401.
 */
export function createJwtVerifier(options: JwtOptions): JwtVerifier {
  const jwks = createRemoteJWKSet(new URL(options.jwksUrl));
  const checks = {
    ...(options.issuer ? { issuer: options.issuer } : {}),
    ...(options.audience ? { audience: options.audience } : {}),
    // A token without an expiry would be a credential forever (it cannot be revoked here).
    requiredClaims: ['exp'],
  };
  return async (token) => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, jwks, checks).catch((err: unknown) =>
        err instanceof joseErrors.JWKSMultipleMatchingKeys
          ? verifyWithEach(token, err, checks)
          : Promise.reject(err),
      ));
    } catch (err) {
      if (err instanceof joseErrors.JOSEError && !keySetUnavailable(err)) return null;
      throw err;
    }
    // `exp` is required (jwtVerify above).
    const expiresAt = (payload.exp as number) * 1000;
    if (lifetimeMs(payload, expiresAt) > (options.maxLifetimeSec + CLOCK_TOLERANCE_SEC) * 1000) return null;
    const tenantId = payload[options.tenantClaim];
    if (
      typeof tenantId !== 'string' ||
      tenantId === '' ||
      typeof payload.sub !== 'string' ||
      payload.sub === ''
    )
      return null;
    return {
      caller: { tenantId, principal: payload.sub, admin: payload[options.roleClaim] === 'tenant_admin' },
      // Subjects are unique per issuer and tenant only: one tenant's "alice" must not spend another's budget.
      credentialId: `jwt:${tenantId}:${payload.sub}`,
      expiresAt,
    };
  };
}
