import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { decodeDeadLetterCursor, encodeDeadLetterCursor } from './dead-letter-cursor.ts';
import { toDeliveryRecord } from './delivery-rows.ts';
import type { DeadLetterPage, ListDeadLettersInput } from './outbox-store.ts';

/** A tenant's dead letters, newest first, by keyset over the partial push_deliveries_dead index. */
export async function listDeadLetters(db: Db, input: ListDeadLettersInput): Promise<DeadLetterPage> {
  const after = input.cursor === undefined ? null : decodeDeadLetterCursor(input.cursor);
  let query = db
    .selectFrom('push_deliveries')
    .selectAll()
    .select(
      sql<string>`to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`.as(
        'created_at_text',
      ),
    )
    .where('tenant_id', '=', input.tenantId)
    // A literal, not a parameter, so the partial index push_deliveries_dead always applies.
    .where('status', '=', sql.lit('dead'));
  if (after) {
    query = query.where(
      sql<boolean>`(created_at, task_id, config_id, seq) < (${after.createdAt}::timestamptz, ${after.taskId}::uuid, ${after.configId}, ${after.seq})`,
    );
  }
  // One extra row tells whether another page exists.
  const rows = await query
    .orderBy('created_at', 'desc')
    .orderBy('task_id', 'desc')
    .orderBy('config_id', 'desc')
    .orderBy('seq', 'desc')
    .limit(input.limit + 1)
    .execute();
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  const nextCursor =
    rows.length > input.limit && last
      ? encodeDeadLetterCursor({
          createdAt: last.created_at_text,
          taskId: last.task_id,
          configId: last.config_id,
          seq: last.seq,
        })
      : null;
  return { deliveries: page.map(({ created_at_text: _, ...row }) => toDeliveryRecord(row)), nextCursor };
}
