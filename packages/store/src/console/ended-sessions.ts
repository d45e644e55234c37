import { sql } from 'kysely';
import type { Db } from '../db.ts';

/**
 * Records a console session as signed out until `expiresAt` (when its cookie would stop working
 * anyway), and forgets the sign-outs whose sessions have expired since: the table holds only
 * sessions that could still be presented.
 */
export async function endConsoleSession(db: Db, sid: string, expiresAt: Date): Promise<void> {
  await db
    .insertInto('console_ended_sessions')
    .values({ sid, expires_at: expiresAt })
    .onConflict((oc) => oc.column('sid').doNothing())
    .execute();
  await db
    .deleteFrom('console_ended_sessions')
    .where('expires_at', '<', sql<Date>`now()`)
    .execute();
}

/** Whether the session was signed out (one primary-key probe). */
export async function isConsoleSessionEnded(db: Db, sid: string): Promise<boolean> {
  const row = await db
    .selectFrom('console_ended_sessions')
    .select('sid')
    .where('sid', '=', sid)
    .executeTakeFirst();
  return row !== undefined;
}
