import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { taskKeyIn, type TaskKey } from './task-keys.ts';
import { TERMINAL_STATE_LITERALS } from './terminal-states.ts';

export interface ExpiredTasksBatch {
  tasks: number;
  taskMessages: number;
  artifactChunks: number;
  taskEvents: number;
  pushConfigs: number;
  pushDeliveries: number;
  /** Whether expired tasks may be left: the batch was full, or cut short by its row budget. */
  more: boolean;
}

/**
 * One batch: up to `batchSize` terminal tasks last updated before `cutoff`, deleted with every row
 * that hangs off them, in one transaction so no task is ever half gone. The victims are locked
 * (SKIP LOCKED: a row someone holds is left for the next run) so a late writer waits and then
 * finds no row, which its compare-and-set treats as a conflict. The batch keeps only as many of
 * them, oldest first, as fit `rowBudget` events and chunks (at least one): the rest are left for
 * the next batch.
 */
export async function deleteExpiredTasks(
  db: Db,
  cutoff: Date,
  batchSize: number,
  rowBudget = Number.POSITIVE_INFINITY,
): Promise<ExpiredTasksBatch> {
  return db.transaction().execute(async (trx) => {
    const victims = await trx
      .selectFrom('tasks')
      .select(['tenant_id', 'id'])
      .where('state', 'in', TERMINAL_STATE_LITERALS)
      .where('updated_at', '<', cutoff)
      .orderBy('updated_at')
      .limit(batchSize)
      .forUpdate()
      .skipLocked()
      .execute();
    if (victims.length === 0) {
      return {
        tasks: 0,
        taskMessages: 0,
        artifactChunks: 0,
        taskEvents: 0,
        pushConfigs: 0,
        pushDeliveries: 0,
        more: false,
      };
    }
    const taken = await withinRowBudget(trx, victims, rowBudget);
    const byTask = taskKeyIn('tenant_id', 'task_id', taken);
    // Deliveries before their configs (foreign key); the cascade would do it too, uncounted.
    const pushDeliveries = await trx.deleteFrom('push_deliveries').where(byTask).executeTakeFirst();
    const pushConfigs = await trx.deleteFrom('push_configs').where(byTask).executeTakeFirst();
    const taskEvents = await trx.deleteFrom('task_events').where(byTask).executeTakeFirst();
    const artifactChunks = await trx.deleteFrom('artifact_chunks').where(byTask).executeTakeFirst();
    const taskMessages = await trx.deleteFrom('task_messages').where(byTask).executeTakeFirst();
    const tasks = await trx
      .deleteFrom('tasks')
      .where(taskKeyIn('tenant_id', 'id', taken))
      .executeTakeFirst();
    return {
      tasks: Number(tasks.numDeletedRows),
      taskMessages: Number(taskMessages.numDeletedRows),
      artifactChunks: Number(artifactChunks.numDeletedRows),
      taskEvents: Number(taskEvents.numDeletedRows),
      pushConfigs: Number(pushConfigs.numDeletedRows),
      pushDeliveries: Number(pushDeliveries.numDeletedRows),
      more: victims.length === batchSize || taken.length < victims.length,
    };
  });
}

/** The victims, in order, whose events and chunks together fit `rowBudget`; the first always. */
async function withinRowBudget(db: Db, victims: TaskKey[], rowBudget: number): Promise<TaskKey[]> {
  if (!Number.isFinite(rowBudget) || victims.length === 1) return victims;
  const byTask = taskKeyIn('tenant_id', 'task_id', victims);
  const { rows } = await sql<{ tenant_id: string; task_id: string; n: string }>`
    SELECT tenant_id, task_id, count(*) AS n FROM (
      SELECT tenant_id, task_id FROM task_events WHERE ${byTask}
      UNION ALL
      SELECT tenant_id, task_id FROM artifact_chunks WHERE ${byTask}
    ) rows GROUP BY tenant_id, task_id`.execute(db);
  const counts = new Map(rows.map((r) => [`${r.tenant_id} ${r.task_id}`, Number(r.n)]));
  let total = 0;
  const taken: TaskKey[] = [];
  for (const victim of victims) {
    total += counts.get(`${victim.tenant_id} ${victim.id}`) ?? 0;
    if (taken.length > 0 && total > rowBudget) break;
    taken.push(victim);
  }
  return taken;
}
