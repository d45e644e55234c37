import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { msFromNow } from '../tasks/sql-time.ts';
import { NOT_PENDING } from './not-pending.ts';
import type { MarkFailedInput } from './outbox-store.ts';
import { asCte, gapAfter, releaseAfterGap, releaseNext } from './park-waiting.ts';

const MAX_ERROR_LENGTH = 1000;

/**
 * A failed attempt, guarded like markDelivered. Either back to pending `retryInMs` after the
 * database's now() (the pusher computes backoff and jitter) or dead. Dead unblocks the later deliveries of the same
 * config: the per-task order only waits on pending rows, and the next one, if parked behind this
 * one (park-waiting.ts), is made due at once (releaseNext).
 *
 * Dead after a whole budget (`laterAttemptsFloor`), it leaves the config's later pending
 * deliveries one attempt each: see spendLaterAttempts.
 *
 * Back to pending, it also moves the later pending deliveries of the same config that were due
 * before its retry time to that time: none of them can go before it, and left due they sat at the
 * front of every pusher's claim (oldest due first), read and refused on each claim while the
 * receiver was down. When this one is delivered or dies, they are due at once.
 */
export async function markFailed(db: Db, input: MarkFailedInput): Promise<boolean> {
  const common = {
    last_error: input.error.slice(0, MAX_ERROR_LENGTH),
    last_status: input.status ?? null,
    locked_by: null,
    locked_until: null,
  };
  const failed = db
    .updateTable('push_deliveries')
    .set(
      input.dead ? { ...common, status: 'dead' } : { ...common, next_attempt_at: msFromNow(input.retryInMs) },
    )
    .where('tenant_id', '=', input.tenantId)
    .where('task_id', '=', input.taskId)
    .where('config_id', '=', input.configId)
    .where('seq', '=', input.seq)
    .where('locked_by', '=', input.workerId)
    .where('status', '=', 'pending');
  if (input.dead) {
    const dead = await db
      .with('failed', () => failed.returning(['task_id', 'config_id', 'seq']))
      .with('released', () => asCte(releaseNext('failed', input.tenantId)))
      .selectFrom('failed as r')
      .select(gapAfter('r', input.tenantId).as('gap'))
      .execute();
    if (dead[0]?.gap) await releaseAfterGap(db, input);
    // A statement of its own: releaseNext may have updated the next row in the one above, and
    // a row updated twice in one statement keeps one of the two. A crash in between leaves the
    // backlog its full budgets, which is only slower.
    if (dead.length > 0 && input.laterAttemptsFloor !== undefined)
      await spendLaterAttempts(db, input, input.laterAttemptsFloor);
    return dead.length > 0;
  }
  const rows = await db
    .with('failed', () => failed.returning('seq'))
    .with('later', (qc) =>
      qc
        .updateTable('push_deliveries')
        .set({ next_attempt_at: msFromNow(input.retryInMs) })
        .where('tenant_id', '=', input.tenantId)
        .where('task_id', '=', input.taskId)
        .where('config_id', '=', input.configId)
        .where('seq', '>', input.seq)
        // Only rows due before the retry are rewritten (each rewrite is a new row version).
        .where('next_attempt_at', '<', msFromNow(input.retryInMs))
        // Pending, spelled so push_deliveries_pending_order serves the range.
        .where('status', 'not in', NOT_PENDING)
        .where(({ exists, selectFrom }) => exists(selectFrom('failed').select('seq')))
        .returning('seq'),
    )
    .selectFrom('failed')
    .select('seq')
    .execute();
  return rows.length > 0;
}

async function spendLaterAttempts(db: Db, key: MarkFailedInput, floor: number): Promise<void> {
  await db
    .updateTable('push_deliveries')
    .set((eb) => ({ attempts: eb.fn('greatest', ['attempts', eb.val(floor)]) }))
    .where('tenant_id', '=', key.tenantId)
    .where('task_id', '=', key.taskId)
    .where('config_id', '=', key.configId)
    .where('seq', '>', key.seq)
    .where('attempts', '<', floor)
    // Not a row a pusher has claimed since releaseNext made it due: its attempt is under way.
    .where((eb) => eb.or([eb('locked_by', 'is', null), eb('locked_until', '<', sql<Date>`now()`)]))
    // Pending, spelled so push_deliveries_pending_order serves the range.
    .where('status', 'not in', NOT_PENDING)
    .execute();
}
