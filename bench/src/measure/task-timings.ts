import type pg from 'pg';
import { TENANT } from '../platform/bench-environment.ts';

const TERMINAL = ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED'];

/**
 * Polls the store until every task is terminal (or `timeoutMs` passes); returns how many polls it
 * made, since each is a transaction in the measured database.
 */
export async function waitTerminal(pool: pg.Pool, ids: string[], timeoutMs = 180_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let polls = 0;
  for (;;) {
    polls += 1;
    const { rows } = await pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM tasks WHERE tenant_id = $1 AND id = ANY($2::uuid[]) AND state = ANY($3)',
      [TENANT, ids, TERMINAL],
    );
    if (rows[0]!.n >= ids.length || Date.now() > deadline) return polls;
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface TaskTiming {
  id: string;
  state: string;
  /** When the create transaction started (Postgres clock, epoch ms). */
  created: number;
  /** When the last change (COMPLETED for a finished task) was written. */
  updated: number;
  /** When the claim that moved it to WORKING was written (event 2), if it was. */
  working: number | null;
}

/** The store's own timestamps of each task; Postgres runs on this machine, so its clock is ours. */
export async function taskTimings(pool: pg.Pool, ids: string[]): Promise<TaskTiming[]> {
  const { rows } = await pool.query<TaskTiming>(
    `SELECT t.id, t.state,
            extract(epoch FROM t.created_at)::float8 * 1000 AS created,
            extract(epoch FROM t.updated_at)::float8 * 1000 AS updated,
            extract(epoch FROM e.created_at)::float8 * 1000 AS working
       FROM tasks t
       LEFT JOIN task_events e ON e.tenant_id = t.tenant_id AND e.task_id = t.id AND e.seq = 2
      WHERE t.tenant_id = $1 AND t.id = ANY($2::uuid[])`,
    [TENANT, ids],
  );
  return rows;
}
