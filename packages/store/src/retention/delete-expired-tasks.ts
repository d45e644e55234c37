import type { Db } from '../db.ts';
import { taskKeyIn } from './task-keys.ts';
import { TERMINAL_STATE_LITERALS } from './terminal-states.ts';

export interface ExpiredTasksBatch {
  tasks: number;
  taskMessages: number;
  artifactChunks: number;
  taskEvents: number;
  pushConfigs: number;
  pushDeliveries: number;
}

/**
 * One batch: up to `batchSize` terminal tasks last updated before `cutoff`, deleted with every row
 * that hangs off them, in one transaction so no task is ever half gone. The victims are locked
 * (SKIP LOCKED: a row someone holds is left for the next run) so a late writer waits and then
 * finds no row, which its compare-and-set treats as a conflict.
 */
export async function deleteExpiredTasks(
  db: Db,
  cutoff: Date,
  batchSize: number,
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
      };
    }
    const byTask = taskKeyIn('tenant_id', 'task_id', victims);
    // Deliveries before their configs (foreign key); the cascade would do it too, uncounted.
    const pushDeliveries = await trx.deleteFrom('push_deliveries').where(byTask).executeTakeFirst();
    const pushConfigs = await trx.deleteFrom('push_configs').where(byTask).executeTakeFirst();
    const taskEvents = await trx.deleteFrom('task_events').where(byTask).executeTakeFirst();
    const artifactChunks = await trx.deleteFrom('artifact_chunks').where(byTask).executeTakeFirst();
    const taskMessages = await trx.deleteFrom('task_messages').where(byTask).executeTakeFirst();
    const tasks = await trx
      .deleteFrom('tasks')
      .where(taskKeyIn('tenant_id', 'id', victims))
      .executeTakeFirst();
    return {
      tasks: Number(tasks.numDeletedRows),
      taskMessages: Number(taskMessages.numDeletedRows),
      artifactChunks: Number(artifactChunks.numDeletedRows),
      taskEvents: Number(taskEvents.numDeletedRows),
      pushConfigs: Number(pushConfigs.numDeletedRows),
      pushDeliveries: Number(pushDeliveries.numDeletedRows),
    };
  });
}
