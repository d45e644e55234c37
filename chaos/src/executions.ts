import type pg from 'pg';

/**
 * The counting agent's own record of every execution it starts (the "no-op agent counts
 * executions in its own table"). It lives beside the platform's tables in the run's database but
 * is no part of the platform schema: the checker matches every extra row to an injected fault.
 */
export const CREATE_EXECUTIONS_TABLE = `
CREATE TABLE IF NOT EXISTS chaos_executions (
  exec_id    text PRIMARY KEY,
  task_id    uuid NOT NULL,
  message_id text NOT NULL,
  attempt    integer NOT NULL,
  pid        integer NOT NULL,
  worker_id  text NOT NULL,
  at         timestamptz NOT NULL DEFAULT clock_timestamp()
)`;

export interface ExecutionRow {
  execId: string;
  taskId: string;
  messageId: string;
  attempt: number;
  pid: number;
  workerId: string;
}

export async function insertExecution(pool: pg.Pool, row: ExecutionRow): Promise<void> {
  // clock_timestamp(), not now(): the same clock as task_events.created_at, read at the insert.
  await pool.query(
    `INSERT INTO chaos_executions (exec_id, task_id, message_id, attempt, pid, worker_id)
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (exec_id) DO NOTHING`,
    [row.execId, row.taskId, row.messageId, row.attempt, row.pid, row.workerId],
  );
}
