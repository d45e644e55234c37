import { sql } from 'kysely';
import type { Db } from '../db.ts';

/** Readiness: true when Postgres answers a trivial query. */
export async function pingDatabase(db: Db): Promise<boolean> {
  try {
    await sql`SELECT 1`.execute(db);
    return true;
  } catch {
    // Readiness reports the failure as a failing check; the caller logs nothing per probe.
    return false;
  }
}
