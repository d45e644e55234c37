import type { TaskState } from '@switchyard/protocol';
import type { Db } from '../db.ts';
import { isTaskId } from '../tasks/task-row.ts';
import type { TaskLocation } from './console-types.ts';

/**
 * Which tenants hold a task with this id. The primary key leads with tenant_id, so this is one
 * primary-key probe per tenant (tenants number in the hundreds), never a scan of tasks.
 */
export async function findTaskTenants(db: Db, taskId: string): Promise<TaskLocation[]> {
  if (!isTaskId(taskId)) return [];
  const rows = await db
    .selectFrom('tenants as t')
    .innerJoin('tasks as k', (j) => j.onRef('k.tenant_id', '=', 't.id').on('k.id', '=', taskId.toLowerCase()))
    .select(['k.tenant_id', 'k.id', 'k.agent_id', 'k.context_id', 'k.visibility', 'k.state'])
    .orderBy('k.tenant_id')
    .execute();
  return rows.map((r) => ({
    tenantId: r.tenant_id,
    taskId: r.id,
    agentId: r.agent_id,
    contextId: r.context_id,
    visibility: r.visibility,
    state: r.state as TaskState,
  }));
}
