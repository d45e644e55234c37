import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { TERMINAL_STATE_LITERALS } from './terminal-states.ts';

/**
 * One batch of expired event-log rows. An event expires when it is older than `cutoff` AND its
 * task has been terminal since before `cutoff`: a live task's log must stay whole for
 * Last-Event-ID resume, and a task that ran for days and just finished must not lose the start of
 * its log while a subscriber may still resume from there. Events a pending push delivery still
 * has to send are kept until it is sent or dead-lettered. Keyed delete, bounded by `batchSize`.
 */
export async function deleteExpiredEvents(db: Db, cutoff: Date, batchSize: number): Promise<number> {
  const result = await db
    .deleteFrom('task_events')
    .where((eb) =>
      eb(
        eb.refTuple('tenant_id', 'task_id', 'seq'),
        'in',
        eb
          .selectFrom('task_events as e')
          .innerJoin('tasks as t', (j) =>
            j.onRef('t.tenant_id', '=', 'e.tenant_id').onRef('t.id', '=', 'e.task_id'),
          )
          .select(['e.tenant_id', 'e.task_id', 'e.seq'])
          .where('e.created_at', '<', cutoff)
          .where('t.state', 'in', TERMINAL_STATE_LITERALS)
          .where('t.updated_at', '<', cutoff)
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('push_deliveries as d')
                  .select(sql`1`.as('one'))
                  .whereRef('d.tenant_id', '=', 'e.tenant_id')
                  .whereRef('d.task_id', '=', 'e.task_id')
                  .whereRef('d.seq', '=', 'e.seq')
                  .where('d.status', '=', sql.lit('pending')),
              ),
            ),
          )
          .limit(batchSize)
          .$asTuple('tenant_id', 'task_id', 'seq'),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
