import { HttpClient, type FetchLike, type HttpRequest } from '../http/http-client.ts';
import { readText } from '../http/read-body.ts';
import type { RetryOptions } from '../retry/retry-policy.ts';
import { decodeAdminError } from './admin-api-error.ts';
import type {
  AgentInfo,
  AgentRegistrationInput,
  ApiKeyInfo,
  ApiKeyRole,
  CreatedTenant,
  IssuedApiKey,
  TenantInfo,
} from './admin-types.ts';

export interface AdminClientOptions {
  /** The gateway's origin (PUBLIC_URL); the API is under `/admin/v1`. */
  serverUrl: string;
  /** SWITCHYARD_ADMIN_TOKEN, sent as `Authorization: Bearer`. */
  token: string;
  fetch?: FetchLike | undefined;
  retry?: RetryOptions | undefined;
}

/**
 * Switchyard's operator API (not part of A2A). Reads, PUT and DELETE are retried on transient
 * failures; creates (POST) are not, since a lost reply could otherwise mint a second key.
 */
export class AdminClient {
  readonly #base: string;
  readonly #http: HttpClient;

  constructor(options: AdminClientOptions) {
    this.#base = `${options.serverUrl.replace(/\/+$/, '')}/admin/v1`;
    this.#http = new HttpClient({
      headers: { Authorization: `Bearer ${options.token}` },
      fetch: options.fetch,
      retry: options.retry,
      decodeError: decodeAdminError,
    });
  }

  createTenant(input: { id: string; name: string }): Promise<CreatedTenant> {
    return this.#call('POST', ['tenants'], input);
  }

  async listTenants(): Promise<TenantInfo[]> {
    return (await this.#call<{ tenants: TenantInfo[] }>('GET', ['tenants'])).tenants;
  }

  /** The tenant's cap on runs at once: null follows the fleet's TENANT_MAX_RUNNING, 0 is none. */
  setTenantMaxRunning(tenantId: string, maxRunning: number | null): Promise<TenantInfo> {
    return this.#call('PATCH', ['tenants', tenantId], { maxRunning });
  }

  putAgent(
    tenantId: string,
    agentId: string,
    input: AgentRegistrationInput,
  ): Promise<{ agent: AgentInfo; urls: AgentInfo['urls'] }> {
    return this.#call('PUT', ['tenants', tenantId, 'agents', agentId], input);
  }

  async listAgents(tenantId: string): Promise<AgentInfo[]> {
    return (await this.#call<{ agents: AgentInfo[] }>('GET', ['tenants', tenantId, 'agents'])).agents;
  }

  async deleteAgent(tenantId: string, agentId: string): Promise<void> {
    await this.#call('DELETE', ['tenants', tenantId, 'agents', agentId]);
  }

  createApiKey(
    tenantId: string,
    /** `expiresAt`: RFC 3339, in the future; the key never expires without it. */
    input: { principal: string; role: ApiKeyRole; description?: string; expiresAt?: string },
  ): Promise<IssuedApiKey> {
    return this.#call('POST', ['tenants', tenantId, 'api-keys'], input);
  }

  async listApiKeys(tenantId: string): Promise<ApiKeyInfo[]> {
    return (await this.#call<{ keys: ApiKeyInfo[] }>('GET', ['tenants', tenantId, 'api-keys'])).keys;
  }

  /** Issues a new key for the same principal and revokes the old one. */
  rotateApiKey(tenantId: string, keyId: string): Promise<IssuedApiKey> {
    return this.#call(
      'POST',
      ['tenants', tenantId, 'api-keys', `${encodeURIComponent(keyId)}:rotate`],
      undefined,
      { encoded: true },
    );
  }

  async revokeApiKey(tenantId: string, keyId: string): Promise<void> {
    await this.#call('DELETE', ['tenants', tenantId, 'api-keys', keyId]);
  }

  #call<T>(
    method: HttpRequest['method'],
    path: string[],
    body?: unknown,
    flags: { encoded?: boolean } = {},
  ): Promise<T> {
    const segments = path.map((s, i) => (flags.encoded && i === path.length - 1 ? s : encodeURIComponent(s)));
    const url = `${this.#base}/${segments.join('/')}`;
    const request: HttpRequest = {
      method,
      url,
      accept: 'application/json',
      ...(body !== undefined ? { body } : {}),
    };
    return this.#http.retrying(
      async () => {
        const response = await this.#http.fetch(request);
        const text = await readText(response, undefined);
        return (text.trim() === '' ? {} : JSON.parse(text)) as T;
      },
      undefined,
      { retry: method !== 'POST' },
    );
  }
}
