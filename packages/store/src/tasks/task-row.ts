import type { Message, TaskState } from '@switchyard/protocol';
import type { Selectable } from 'kysely';
import type { TasksTable } from '../database.ts';
import type { TaskRecord } from '../task-store.ts';

export type TaskRow = Selectable<TasksTable>;

/** The engine's view of a `tasks` row (jsonb columns arrive parsed from pg). */
export function toTaskRecord(row: TaskRow): TaskRecord {
  return {
    tenantId: row.tenant_id,
    id: row.id,
    contextId: row.context_id,
    agentId: row.agent_id,
    owner: row.owner,
    visibility: row.visibility,
    state: row.state as TaskState,
    version: row.version,
    statusMessage: (row.status_message ?? null) as Message | null,
    statusTimestamp: row.status_timestamp,
    metadata: (row.metadata ?? null) as Record<string, unknown> | null,
    reply: (row.reply ?? null) as Message | null,
    leaseOwner: row.lease_owner,
    leaseExpiresAt: row.lease_expires_at,
    attempts: row.attempts,
    runAfter: row.run_after,
    lastError: row.last_error,
    acceptedOutputModes: row.accepted_output_modes ?? null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Task ids are uuids in the schema, but ids reach reads straight from clients: anything else would
 * make Postgres raise `invalid input syntax for type uuid` instead of "not found" (§3 rule 6).
 */
export function isTaskId(id: string): boolean {
  return UUID.test(id);
}

/** jsonb parameters go over the wire as JSON text (the Kysely `Json` column insert type). */
export function jsonb(value: unknown): string {
  return JSON.stringify(value ?? null);
}
