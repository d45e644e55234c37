import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
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
   * The longest a token may still have to live when it is presented, in seconds. The gateway
   * cannot revoke a JWT, so a token minted for years would be a credential for years; one whose
   * `exp` lies further ahead is refused.
   */
  maxLifetimeSec: number;
}

export type JwtVerifier = (token: string) => Promise<Identity | null>;

/**
 * Bearer JWTs signed by a key from the issuer's JWKS (jose caches and refreshes the key set).
 * A token without a tenant or subject identifies nobody: null, which the caller turns into 401.
 */
export function createJwtVerifier(options: JwtOptions): JwtVerifier {
  const jwks = createRemoteJWKSet(new URL(options.jwksUrl));
  return async (token) => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, jwks, {
        ...(options.issuer ? { issuer: options.issuer } : {}),
        ...(options.audience ? { audience: options.audience } : {}),
        // A token without an expiry would be a credential forever (it cannot be revoked here).
        requiredClaims: ['exp'],
      }));
    } catch (err) {
      if (err instanceof joseErrors.JOSEError && !(err instanceof joseErrors.JWKSTimeout)) return null;
      throw err;
    }
    // `exp` is required (jwtVerify above).
    const expiresAt = (payload.exp as number) * 1000;
    if (expiresAt - Date.now() > options.maxLifetimeSec * 1000) return null;
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
