import type { Db } from '../db.ts';
import type { SecretBox } from '../secret-box.ts';
import type {
  AdminStore,
  AgentInput,
  AgentRecord,
  ApiKeyIdentity,
  ApiKeyRecord,
  DeleteAgentResult,
  IssuedApiKey,
  NewApiKey,
  NewTenant,
  TenantRecord,
  TenantWithSecret,
} from './admin-store.ts';
import { authenticateApiKey, liveApiKeyIds } from './authenticate-api-key.ts';
import { createApiKey } from './create-api-key.ts';
import { createTenant } from './create-tenant.ts';
import { deleteAgent } from './delete-agent.ts';
import { ensureTenant } from './ensure-tenant.ts';
import { getAgent } from './get-agent.ts';
import { getTenant } from './get-tenant.ts';
import { getWebhookSecret } from './get-webhook-secret.ts';
import { listAgents } from './list-agents.ts';
import { listApiKeys } from './list-api-keys.ts';
import { listTenants } from './list-tenants.ts';
import { describeApiKey } from './describe-api-key.ts';
import { revokeApiKey, revokeApiKeyByValue } from './revoke-api-key.ts';
import { rotateApiKey } from './rotate-api-key.ts';
import { rotateWebhookSecret } from './rotate-webhook-secret.ts';
import { setTenantDisabled } from './set-tenant-disabled.ts';
import { setTenantMaxRunning } from './set-tenant-max-running.ts';
import { upsertAgent } from './upsert-agent.ts';

export interface PostgresAdminStoreOptions {
  db: Db;
  /** Seals webhook signing secrets at rest. */
  secrets: SecretBox;
}

/** `AdminStore` on Postgres: each method is one operation file. */
export class PostgresAdminStore implements AdminStore {
  readonly #db: Db;
  readonly #secrets: SecretBox;

  constructor({ db, secrets }: PostgresAdminStoreOptions) {
    this.#db = db;
    this.#secrets = secrets;
  }

  createTenant(input: NewTenant): Promise<TenantWithSecret> {
    return createTenant(this.#db, this.#secrets, input);
  }
  ensureTenant(input: NewTenant): Promise<TenantWithSecret> {
    return ensureTenant(this.#db, this.#secrets, input);
  }
  getTenant(tenantId: string): Promise<TenantRecord | null> {
    return getTenant(this.#db, tenantId);
  }
  listTenants(): Promise<TenantRecord[]> {
    return listTenants(this.#db);
  }
  setTenantDisabled(tenantId: string, disabled: boolean): Promise<boolean> {
    return setTenantDisabled(this.#db, tenantId, disabled);
  }
  setTenantMaxRunning(tenantId: string, maxRunning: number | null): Promise<TenantRecord | null> {
    return setTenantMaxRunning(this.#db, tenantId, maxRunning);
  }
  rotateWebhookSecret(tenantId: string): Promise<string | null> {
    return rotateWebhookSecret(this.#db, this.#secrets, tenantId);
  }
  getWebhookSecret(tenantId: string): Promise<string | null> {
    return getWebhookSecret(this.#db, this.#secrets, tenantId);
  }

  upsertAgent(input: AgentInput): Promise<AgentRecord> {
    return upsertAgent(this.#db, input);
  }
  getAgent(tenantId: string, agentId: string): Promise<AgentRecord | null> {
    return getAgent(this.#db, tenantId, agentId);
  }
  listAgents(tenantId: string): Promise<AgentRecord[]> {
    return listAgents(this.#db, tenantId);
  }
  deleteAgent(tenantId: string, agentId: string): Promise<DeleteAgentResult> {
    return deleteAgent(this.#db, tenantId, agentId);
  }

  createApiKey(input: NewApiKey): Promise<IssuedApiKey> {
    return createApiKey(this.#db, input);
  }
  authenticateApiKey(plaintext: string): Promise<ApiKeyIdentity | null> {
    return authenticateApiKey(this.#db, plaintext);
  }
  liveApiKeyIds(keyIds: readonly string[]): Promise<Set<string>> {
    return liveApiKeyIds(this.#db, keyIds);
  }
  revokeApiKey(tenantId: string, keyId: string): Promise<boolean> {
    return revokeApiKey(this.#db, tenantId, keyId);
  }
  revokeApiKeyByValue(plaintext: string): Promise<{ tenantId: string; keyId: string } | null> {
    return revokeApiKeyByValue(this.#db, plaintext);
  }
  describeApiKey(tenantId: string, keyId: string, description: string): Promise<boolean> {
    return describeApiKey(this.#db, tenantId, keyId, description);
  }
  rotateApiKey(tenantId: string, keyId: string): Promise<IssuedApiKey | null> {
    return rotateApiKey(this.#db, tenantId, keyId);
  }
  listApiKeys(tenantId: string): Promise<ApiKeyRecord[]> {
    return listApiKeys(this.#db, tenantId);
  }
}
