import { taskNotFound } from '@switchyard/protocol';
import type { Caller, TaskRecord, TaskStore } from '@switchyard/store';

/**
 * The one access rule (ARCHITECTURE.md §3 rule 6, digest §9 rule 4): a caller sees a task of its
 * tenant, addressed through the agent that owns it, that is a visible Task, and that it owns
 * (tenant admins see all of their tenant's). Anything else is TaskNotFound, never a hint that the
 * task exists.
 */
export function canSee(record: TaskRecord, caller: Caller, agentId: string): boolean {
  return (
    record.tenantId === caller.tenantId &&
    record.agentId === agentId &&
    record.visibility === 'task' &&
    (caller.admin || record.owner === caller.principal)
  );
}

export async function loadVisibleRecord(
  store: TaskStore,
  caller: Caller,
  agentId: string,
  taskId: string,
): Promise<TaskRecord> {
  const record = await store.getTaskRecord(caller.tenantId, taskId);
  if (!record || !canSee(record, caller, agentId)) throw taskNotFound(taskId);
  return record;
}
