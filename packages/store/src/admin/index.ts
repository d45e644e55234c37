export type {
  AdminStore,
  AgentInput,
  AgentRecord,
  ApiKeyIdentity,
  ApiKeyRecord,
  ApiKeyRole,
  DeleteAgentResult,
  IssuedApiKey,
  NewApiKey,
  NewTenant,
  TenantRecord,
  TenantWithSecret,
} from './admin-store.ts';
export { ApiKeyConflictError, TenantExistsError } from './admin-errors.ts';
export { PostgresAdminStore, type PostgresAdminStoreOptions } from './postgres-admin-store.ts';
export { MASKED_CREDENTIALS, redactAgent } from './redact-agent.ts';
