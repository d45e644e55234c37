import type { SelectType } from 'kysely';
import type { Database } from './database.ts';

/**
 * database.ts at runtime: TypeScript types are erased, so test/schema-types.test.ts compares these
 * lists with the migrated schema (STYLE.md rule 3). The compiler keeps the lists and the types in
 * step both ways: `satisfies` refuses a name that is not a column of the type, and the checks below
 * refuse a column of the type that is missing from the list.
 */
export const SCHEMA_COLUMNS = {
  tenants: ['id', 'name', 'webhook_secret_enc', 'created_at', 'disabled_at', 'max_running'],
  api_keys: [
    'id',
    'tenant_id',
    'principal',
    'role',
    'key_hash',
    'key_prefix',
    'description',
    'created_at',
    'expires_at',
    'revoked_at',
  ],
  agents: ['tenant_id', 'id', 'card', 'executor', 'settings', 'created_at', 'updated_at'],
  tasks: [
    'tenant_id',
    'id',
    'context_id',
    'agent_id',
    'owner',
    'visibility',
    'state',
    'version',
    'status_message',
    'status_timestamp',
    'metadata',
    'reply',
    'lease_owner',
    'lease_expires_at',
    'attempts',
    'run_after',
    'last_error',
    'created_at',
    'updated_at',
    'trace_context',
    'accepted_output_modes',
  ],
  task_messages: ['tenant_id', 'task_id', 'position', 'message', 'created_at'],
  artifact_chunks: [
    'tenant_id',
    'task_id',
    'seq',
    'artifact_id',
    'append',
    'last_chunk',
    'name',
    'description',
    'parts',
    'metadata',
    'extensions',
    'created_at',
  ],
  task_events: ['tenant_id', 'task_id', 'seq', 'kind', 'payload', 'created_at'],
  idempotency_keys: ['tenant_id', 'message_id', 'principal', 'task_id', 'created_at'],
  context_memory: ['tenant_id', 'agent_id', 'owner', 'context_id', 'key', 'value', 'updated_at'],
  push_configs: [
    'tenant_id',
    'task_id',
    'id',
    'url',
    'token_enc',
    'auth_scheme',
    'auth_credentials_enc',
    'created_at',
    'wire_version',
  ],
  push_deliveries: [
    'tenant_id',
    'task_id',
    'config_id',
    'seq',
    'status',
    'attempts',
    'next_attempt_at',
    'locked_by',
    'locked_until',
    'last_error',
    'last_status',
    'created_at',
    'delivered_at',
  ],
  console_ended_sessions: ['sid', 'expires_at'],
} as const satisfies { [T in keyof Database]: readonly (keyof Database[T])[] };

/**
 * Nullable columns. A column typed `unknown` (untyped JSON) admits null either way, so the
 * compiler can only check that it may be listed; the live-schema test decides for those.
 */
export const NULLABLE_COLUMNS = {
  tenants: ['disabled_at', 'max_running'],
  api_keys: ['expires_at', 'revoked_at'],
  agents: [],
  tasks: [
    'status_message',
    'metadata',
    'reply',
    'lease_owner',
    'lease_expires_at',
    'last_error',
    'trace_context',
    'accepted_output_modes',
  ],
  task_messages: [],
  artifact_chunks: ['name', 'description', 'metadata', 'extensions'],
  task_events: [],
  idempotency_keys: [],
  context_memory: [],
  push_configs: ['token_enc', 'auth_scheme', 'auth_credentials_enc'],
  push_deliveries: ['locked_by', 'locked_until', 'last_error', 'last_status', 'delivered_at'],
  console_ended_sessions: [],
} as const satisfies { [T in keyof Database]: readonly MayBeNull<Database[T]>[] };

/** Columns whose selected type admits null (including `unknown`). */
type MayBeNull<R> = { [K in keyof R]: null extends SelectType<R[K]> ? K : never }[keyof R];
/** Columns whose selected type is known and admits null: these must be listed as nullable. */
type MustBeNull<R> = {
  [K in keyof R]: unknown extends SelectType<R[K]> ? never : null extends SelectType<R[K]> ? K : never;
}[keyof R];

type Unlisted<
  Lists extends { [T in keyof Database]: readonly unknown[] },
  Required extends { [T in keyof Database]: unknown },
> = {
  [T in keyof Database]: Exclude<Required[T], Lists[T][number]>;
}[keyof Database];

/** `true` only when every column of database.ts is in SCHEMA_COLUMNS and every nullable one in NULLABLE_COLUMNS. */
export type SchemaListsComplete = [
  Unlisted<typeof SCHEMA_COLUMNS, { [T in keyof Database]: keyof Database[T] }>,
  Unlisted<typeof NULLABLE_COLUMNS, { [T in keyof Database]: MustBeNull<Database[T]> }>,
] extends [never, never]
  ? true
  : never;

// Fails to compile (true is not assignable to never) when a list misses a column.
export const SCHEMA_LISTS_COMPLETE: SchemaListsComplete = true;
