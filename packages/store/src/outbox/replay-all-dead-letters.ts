import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { eventOf } from './replay-dead-letter.ts';

/**
 * Every dead delivery of one tenant whose event is still in the log back to pending (see
 * replayDeadLetter); uses the dead index.
 */
export async function replayAllDeadLetters(db: Db, tenantId: string): Promise<number> {
  const result = await db
    .updateTable('push_deliveries')
    .set({
      status: 'pending',
      attempts: 0,
      next_attempt_at: sql<Date>`now()`,
      locked_by: null,
      locked_until: null,
    })
    .where('tenant_id', '=', tenantId)
    // A literal, not a parameter, so the partial index push_deliveries_dead always applies.
    .where('status', '=', sql.lit('dead'))
    .where(({ exists, selectFrom }) => exists(eventOf(selectFrom)))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
