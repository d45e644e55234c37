import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { eventOf, REPLAYED } from './replay-dead-letter.ts';

/** Dead letters looked at per statement: each batch is a short statement of its own. */
const REPLAY_BATCH = 1000;

interface Position {
  createdAt: string;
  taskId: string;
  configId: string;
  seq: number;
}

/**
 * Every dead delivery of one tenant whose event is still in the log back to pending (see
 * replayDeadLetter), in batches along the dead index (tenant_id, created_at): one UPDATE of a
 * whole backlog held its row locks, and the pusher's claims of them, for as long as it ran, and
 * past the statement timeout it would fail having replayed nothing. The walk goes on after the
 * last dead letter it looked at, so one whose event is gone (it stays dead) is looked at once.
 */
export async function replayAllDeadLetters(db: Db, tenantId: string, batch = REPLAY_BATCH): Promise<number> {
  let replayed = 0;
  let after: Position | undefined;
  for (;;) {
    const keys = await db
      .selectFrom('push_deliveries')
      .select(['task_id', 'config_id', 'seq'])
      // ISO 8601 in UTC to the microsecond: the position is exact, unlike a Date.
      .select(sql<string>`to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`.as('at'))
      .where('tenant_id', '=', tenantId)
      // A literal, not a parameter, so the partial index push_deliveries_dead always applies.
      .where('status', '=', sql.lit('dead'))
      .$if(after !== undefined, (q) =>
        q.where(
          sql<boolean>`(created_at, task_id, config_id, seq) > (${after?.createdAt}::timestamptz, ${after?.taskId}::uuid, ${after?.configId}, ${after?.seq})`,
        ),
      )
      .orderBy('created_at')
      .orderBy('task_id')
      .orderBy('config_id')
      .orderBy('seq')
      .limit(batch)
      .execute();
    if (keys.length === 0) return replayed;
    const result = await db
      .updateTable('push_deliveries')
      .set(REPLAYED)
      .where('tenant_id', '=', tenantId)
      .where(
        sql<boolean>`(task_id, config_id, seq) IN (SELECT * FROM unnest(${keys.map((k) => k.task_id)}::uuid[], ${keys.map((k) => k.config_id)}::text[], ${keys.map((k) => k.seq)}::int[]))`,
      )
      // Still dead: a single replay or another replay-all may have taken it meanwhile.
      .where('status', '=', sql.lit('dead'))
      .where(({ exists, selectFrom }) => exists(eventOf(selectFrom)))
      .executeTakeFirst();
    replayed += Number(result.numUpdatedRows);
    if (keys.length < batch) return replayed;
    const last = keys.at(-1)!;
    after = { createdAt: last.at, taskId: last.task_id, configId: last.config_id, seq: last.seq };
  }
}
