import type { ColumnType, Generated } from 'kysely';

/**
 * Kysely table types for migrations/000001_initial.sql. Kept by hand next to the frozen SQL and
 * checked against the migrated schema by test/schema-types.test.ts.
 */

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json<T = unknown> = ColumnType<T, string, string>;

export interface TenantsTable {
  id: string;
  name: string;
  webhook_secret_enc: Buffer;
  created_at: Generated<Date>;
  disabled_at: Date | null;
  /** Runs at once across the workers: null follows TENANT_MAX_RUNNING, 0 is no cap (000014). */
  max_running: number | null;
}

export interface ApiKeysTable {
  id: string;
  tenant_id: string;
  principal: string;
  role: 'user' | 'tenant_admin';
  key_hash: Buffer;
  key_prefix: string;
  description: Generated<string>;
  created_at: Generated<Date>;
  expires_at: Date | null;
  revoked_at: Date | null;
}

export interface AgentsTable {
  tenant_id: string;
  id: string;
  card: Json<Record<string, unknown>>;
  executor: string;
  settings: Json<Record<string, unknown>>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface TasksTable {
  tenant_id: string;
  id: string;
  context_id: string;
  agent_id: string;
  owner: string;
  visibility: 'pending' | 'task' | 'message';
  state: string;
  version: number;
  status_message: Json | null;
  status_timestamp: Timestamp;
  metadata: Json | null;
  reply: Json | null;
  lease_owner: string | null;
  lease_expires_at: Date | null;
  attempts: Generated<number>;
  run_after: Generated<Date>;
  last_error: string | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  /** W3C trace carrier ({traceparent, tracestate}) of the creating request (000003). */
  trace_context: Json<{ traceparent?: string; tracestate?: string }> | null;
  /** The client's acceptedOutputModes, when it sent any (000004). */
  accepted_output_modes: Json<string[]> | null;
}

export interface TaskMessagesTable {
  tenant_id: string;
  task_id: string;
  position: number;
  message: Json;
  created_at: Generated<Date>;
}

export interface ArtifactChunksTable {
  tenant_id: string;
  task_id: string;
  seq: number;
  artifact_id: string;
  append: boolean;
  last_chunk: boolean;
  name: string | null;
  description: string | null;
  parts: Json;
  metadata: Json | null;
  extensions: Json | null;
  created_at: Generated<Date>;
}

export interface TaskEventsTable {
  tenant_id: string;
  task_id: string;
  seq: number;
  kind: 'task' | 'message' | 'statusUpdate' | 'artifactUpdate';
  payload: Json;
  created_at: Generated<Date>;
}

export interface IdempotencyKeysTable {
  tenant_id: string;
  message_id: string;
  principal: string;
  task_id: string;
  created_at: Generated<Date>;
}

export interface ContextMemoryTable {
  tenant_id: string;
  agent_id: string;
  /** The principal whose conversation this is (000006). */
  owner: Generated<string>;
  context_id: string;
  key: string;
  value: Json;
  updated_at: Generated<Date>;
}

export interface PushConfigsTable {
  tenant_id: string;
  task_id: string;
  id: string;
  url: string;
  token_enc: Buffer | null;
  auth_scheme: string | null;
  auth_credentials_enc: Buffer | null;
  created_at: Generated<Date>;
  /** The A2A version whose shape this config's webhook bodies take (000007). */
  wire_version: Generated<'1.0' | '0.3'>;
}

export interface PushDeliveriesTable {
  tenant_id: string;
  task_id: string;
  config_id: string;
  seq: number;
  status: Generated<'pending' | 'delivered' | 'dead'>;
  attempts: Generated<number>;
  next_attempt_at: Generated<Date>;
  locked_by: string | null;
  locked_until: Date | null;
  last_error: string | null;
  last_status: number | null;
  created_at: Generated<Date>;
  delivered_at: Date | null;
}

/** A console session signed out before its expiry (000017), kept until that expiry. */
export interface ConsoleEndedSessionsTable {
  sid: string;
  expires_at: Date;
}

export interface Database {
  tenants: TenantsTable;
  api_keys: ApiKeysTable;
  agents: AgentsTable;
  tasks: TasksTable;
  task_messages: TaskMessagesTable;
  artifact_chunks: ArtifactChunksTable;
  task_events: TaskEventsTable;
  idempotency_keys: IdempotencyKeysTable;
  context_memory: ContextMemoryTable;
  push_configs: PushConfigsTable;
  push_deliveries: PushDeliveriesTable;
  console_ended_sessions: ConsoleEndedSessionsTable;
}
