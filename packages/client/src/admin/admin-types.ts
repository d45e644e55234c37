/** Shapes of the admin API (apps/gateway/src/admin): dates arrive as ISO strings. */
export interface TenantInfo {
  id: string;
  name: string;
  createdAt: string;
  disabledAt: string | null;
  /** Its runs at once across the workers: null follows the fleet's setting, 0 is no cap. */
  maxRunning?: number | null;
}

export interface CreatedTenant {
  tenant: TenantInfo;
  /** Standard Webhooks signing secret; shown once. */
  webhookSecret: string;
}

export interface AgentUrls {
  card: string;
  jsonRpc: string;
  rest: string;
}

export interface AgentInfo {
  tenantId: string;
  id: string;
  card: Record<string, unknown>;
  executor: string;
  settings: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  urls?: AgentUrls;
}

export interface AgentRegistrationInput {
  /** The card template: name, description, version, skills, … (the gateway adds interfaces and security). */
  card: Record<string, unknown>;
  /** A bundled executor: echo, invoice-reconciler, booking or slow. */
  executor: string;
  settings?: Record<string, unknown>;
}

export type ApiKeyRole = 'user' | 'tenant_admin';

export interface ApiKeyInfo {
  id: string;
  tenantId: string;
  principal: string;
  role: ApiKeyRole;
  keyPrefix: string;
  description: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

export interface IssuedApiKey {
  key: ApiKeyInfo;
  /** Shown once. */
  plaintext: string;
}
