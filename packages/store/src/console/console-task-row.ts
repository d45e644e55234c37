import type { Message, TaskState } from '@switchyard/protocol';
import type { Selectable } from 'kysely';
import type { TasksTable } from '../database.ts';
import type { ConsoleTaskRow } from './console-types.ts';

/** The tasks columns a console list reads: never reply or metadata (they can be large). */
export const CONSOLE_TASK_COLUMNS = [
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
  'attempts',
  'lease_owner',
  'last_error',
  'created_at',
  'updated_at',
] as const;

type Row = Pick<Selectable<TasksTable>, (typeof CONSOLE_TASK_COLUMNS)[number]>;

export function toConsoleTaskRow(row: Row): ConsoleTaskRow {
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
    attempts: row.attempts,
    leaseOwner: row.lease_owner,
    lastError: row.last_error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
