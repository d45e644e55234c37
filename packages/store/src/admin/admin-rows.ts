import type { Selectable } from 'kysely';
import type { AgentsTable, ApiKeysTable, TenantsTable } from '../database.ts';
import type { AgentRecord, ApiKeyRecord, TenantRecord } from './admin-store.ts';

/** The api_keys columns safe to read back: never key_hash. */
export const API_KEY_COLUMNS = [
  'id',
  'tenant_id',
  'principal',
  'role',
  'key_prefix',
  'description',
  'created_at',
  'expires_at',
  'revoked_at',
] as const;

export const TENANT_COLUMNS = ['id', 'name', 'created_at', 'disabled_at', 'max_running'] as const;

export function toTenantRecord(
  row: Pick<Selectable<TenantsTable>, (typeof TENANT_COLUMNS)[number]>,
): TenantRecord {
  return {
    id: row.id,
    name: row.name,
    createdAt: row.created_at,
    disabledAt: row.disabled_at,
    maxRunning: row.max_running,
  };
}

export function toAgentRecord(row: Selectable<AgentsTable>): AgentRecord {
  return {
    tenantId: row.tenant_id,
    id: row.id,
    card: row.card,
    executor: row.executor,
    settings: row.settings,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toApiKeyRecord(
  row: Pick<Selectable<ApiKeysTable>, (typeof API_KEY_COLUMNS)[number]>,
): ApiKeyRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    principal: row.principal,
    role: row.role,
    keyPrefix: row.key_prefix,
    description: row.description,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
  };
}
