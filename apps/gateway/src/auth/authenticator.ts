import type { IncomingHttpHeaders } from 'node:http';
import type { TenantStatus } from '@switchyard/engine';
import { unauthenticated, unavailable } from '@switchyard/protocol';
import type { Identity } from '../http/request-state.ts';
import type { ApiKeyCache } from './api-key-cache.ts';
import type { LookupTicket } from './auth-failure-throttle.ts';
import type { JwtVerifier } from './jwt-verifier.ts';

export const API_KEY_HEADER = 'x-api-key';

const API_KEY_CREDENTIAL = 'key:';

/** Identity.credentialId of an API key (rate limits, stream limits and revocations name it). */
export function apiKeyCredentialId(keyId: string): string {
  return `${API_KEY_CREDENTIAL}${keyId}`;
}

/** The API key id of a credentialId, or undefined for another kind of credential (a JWT). */
export function apiKeyIdOf(credentialId: string): string | undefined {
  return credentialId.startsWith(API_KEY_CREDENTIAL)
    ? credentialId.slice(API_KEY_CREDENTIAL.length)
    : undefined;
}

/**
 * The `WWW-Authenticate` challenges of every 401 (digest §9 rule 2), one per scheme the cards
 * declare: the API key header and, when JWT is configured, Bearer.
 */
export function authChallenges(jwtEnabled: boolean): string[] {
  return ['ApiKey header="X-API-Key"', ...(jwtEnabled ? ['Bearer realm="switchyard"'] : [])];
}

/**
 * Turns request headers into an Identity (digest §9 rule 2: every request is authenticated).
 * `X-API-Key` wins when both are sent. Every failure is the same Unauthenticated, so a caller
 * learns nothing about which keys exist.
 */
export class Authenticator {
  readonly #apiKeys: ApiKeyCache;
  readonly #jwt: JwtVerifier | undefined;
  readonly #tenants: TenantStatus | undefined;

  constructor({
    apiKeys,
    jwt,
    tenants,
  }: {
    apiKeys: ApiKeyCache;
    jwt?: JwtVerifier | undefined;
    tenants?: TenantStatus;
  }) {
    this.#apiKeys = apiKeys;
    this.#jwt = jwt;
    this.#tenants = tenants;
  }

  /** `beginLookup` runs when an API key must be looked up in the store (AuthFailureThrottle). */
  async authenticate(headers: IncomingHttpHeaders, beginLookup?: () => LookupTicket): Promise<Identity> {
    const apiKey = headers[API_KEY_HEADER];
    if (typeof apiKey === 'string' && apiKey !== '') {
      const found = await this.#apiKeys.authenticate(apiKey.trim(), beginLookup);
      if (!found) throw unauthenticated('Invalid API key');
      return {
        caller: {
          tenantId: found.tenantId,
          principal: found.principal,
          admin: found.role === 'tenant_admin',
        },
        credentialId: apiKeyCredentialId(found.keyId),
        ...(found.expiresAt ? { expiresAt: found.expiresAt.getTime() } : {}),
      };
    }
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '')?.[1];
    if (bearer !== undefined && this.#jwt) {
      let identity: Identity | null;
      try {
        identity = await this.#jwt(bearer);
      } catch (cause) {
        // The issuer's key set could not be fetched: not the caller's fault, try again later.
        throw unavailable(5, cause);
      }
      if (!identity) throw unauthenticated('Invalid bearer token');
      // API keys of a disabled tenant stop working in the key lookup; a token names its tenant in a
      // claim, so the tenant is checked here (same answer as a bad token: nothing is revealed).
      if (this.#tenants && !(await this.#tenants.isActive(identity.caller.tenantId))) {
        throw unauthenticated('Invalid bearer token');
      }
      return identity;
    }
    throw unauthenticated();
  }
}
