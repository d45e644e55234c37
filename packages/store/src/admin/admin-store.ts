/**
 * Tenants, agents and API keys: the control-plane records the gateway authenticates against and the
 * admin CLI and console manage. Lookups for unknown ids answer null (or false) rather than throw, so
 * callers decide what "not found" means at their edge.
 */

export type ApiKeyRole = 'user' | 'tenant_admin';

export interface TenantRecord {
  id: string;
  name: string;
  createdAt: Date;
  /** A disabled tenant's keys stop authenticating; its data stays. */
  disabledAt: Date | null;
  /**
   * Its runs at once across the workers: null follows the fleet's TENANT_MAX_RUNNING, 0 is no
   * cap, N caps at N.
   */
  maxRunning: number | null;
}

export interface TenantWithSecret {
  tenant: TenantRecord;
  /** Standard Webhooks signing secret (`whsec_` + base64 of 32 random bytes), decrypted. */
  webhookSecret: string;
}

export interface NewTenant {
  /** Lowercase slug, `^[a-z0-9][a-z0-9-]{0,62}$` (checked by the schema). */
  id: string;
  name: string;
}

export interface AgentRecord {
  tenantId: string;
  id: string;
  /** The card as the operator wrote it; the gateway fills in interfaces and security. */
  card: Record<string, unknown>;
  /** Which bundled executor module runs this agent. */
  executor: string;
  settings: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

export interface AgentInput {
  tenantId: string;
  id: string;
  card: Record<string, unknown>;
  executor: string;
  /** Default `{}`. */
  settings?: Record<string, unknown>;
}

/**
 * What deleteAgent did: deleted the registration, found none, or refused because the agent still
 * has live (non-terminal) tasks, counted up to a cap (`atLeast` when there are more).
 */
export type DeleteAgentResult = 'deleted' | 'absent' | { liveTasks: number; atLeast: boolean };

/** An API key as listed: never its hash or plaintext. */
export interface ApiKeyRecord {
  id: string;
  tenantId: string;
  principal: string;
  role: ApiKeyRole;
  /** The first 10 characters of the key, enough for an operator to recognise it. */
  keyPrefix: string;
  description: string;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

export interface NewApiKey {
  tenantId: string;
  principal: string;
  role: ApiKeyRole;
  description?: string;
  expiresAt?: Date;
  /**
   * A fixed key (demo seeding). Creating the same key again for the same tenant and principal
   * returns the existing record; the same key under anyone else is refused.
   */
  plaintext?: string;
}

export interface IssuedApiKey {
  key: ApiKeyRecord;
  /** Shown once: only its SHA-256 is stored. */
  plaintext: string;
}

/** Who an API key speaks for. */
export interface ApiKeyIdentity {
  keyId: string;
  tenantId: string;
  principal: string;
  role: ApiKeyRole;
  /** When the key stops working, if it expires: a cache must not trust it past then. */
  expiresAt?: Date;
}

export interface AdminStore {
  /** Throws `TenantExistsError` when the id is taken. */
  createTenant(input: NewTenant): Promise<TenantWithSecret>;
  /** Creates the tenant unless it exists (an existing tenant keeps its name and secret). */
  ensureTenant(input: NewTenant): Promise<TenantWithSecret>;
  getTenant(tenantId: string): Promise<TenantRecord | null>;
  listTenants(): Promise<TenantRecord[]>;
  /** Disabling is reversible; it refuses the tenant's keys at once. False for an unknown tenant. */
  setTenantDisabled(tenantId: string, disabled: boolean): Promise<boolean>;
  /** Sets the tenant's cap on runs at once (see TenantRecord.maxRunning); null for an unknown tenant. */
  setTenantMaxRunning(tenantId: string, maxRunning: number | null): Promise<TenantRecord | null>;
  /** The new secret, effective immediately; null for an unknown tenant. */
  rotateWebhookSecret(tenantId: string): Promise<string | null>;
  getWebhookSecret(tenantId: string): Promise<string | null>;

  upsertAgent(input: AgentInput): Promise<AgentRecord>;
  getAgent(tenantId: string, agentId: string): Promise<AgentRecord | null>;
  listAgents(tenantId: string): Promise<AgentRecord[]>;
  /** Refused (nothing deleted) while the agent has tasks that are not terminal. */
  deleteAgent(tenantId: string, agentId: string): Promise<DeleteAgentResult>;

  /** Throws `ApiKeyConflictError` when a provided plaintext belongs to another tenant or principal. */
  createApiKey(input: NewApiKey): Promise<IssuedApiKey>;
  /** Null for an unknown, revoked or expired key, or a key of a disabled tenant. */
  authenticateApiKey(plaintext: string): Promise<ApiKeyIdentity | null>;
  /** The ids among `keyIds` that still authenticate (not revoked or expired, tenant enabled). */
  liveApiKeyIds(keyIds: readonly string[]): Promise<Set<string>>;
  /** Idempotent (the first revocation time is kept); false for an unknown key. */
  revokeApiKey(tenantId: string, keyId: string): Promise<boolean>;
  /** Revokes the unrevoked key of this value in any tenant, enabled or not; null when none. */
  revokeApiKeyByValue(plaintext: string): Promise<{ tenantId: string; keyId: string } | null>;
  /** Sets a key's description; false for an unknown key. */
  describeApiKey(tenantId: string, keyId: string, description: string): Promise<boolean>;
  /** Revokes a live key and issues its replacement atomically; null when the key is not live. */
  rotateApiKey(tenantId: string, keyId: string): Promise<IssuedApiKey | null>;
  listApiKeys(tenantId: string): Promise<ApiKeyRecord[]>;
}
