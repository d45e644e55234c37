import type pg from 'pg';
import type { CheckInput, Delivery, Execution, StoredChunk, StoredEvent, StoredTask } from './check-types.ts';
import { EXEC_METADATA_KEY } from './counting-agent.ts';

type Stored = Pick<
  CheckInput,
  'tasks' | 'messageTasks' | 'messageTaskIds' | 'events' | 'chunks' | 'executions' | 'deliveries'
>;

/** Reads what the store holds for the run's tenant, in the checker's terms. */
export async function collectStore(pool: pg.Pool, tenantId: string): Promise<Stored> {
  const q = async <T extends pg.QueryResultRow>(sql: string) => (await pool.query<T>(sql, [tenantId])).rows;
  const tasks = await q<StoredTask>('SELECT id, state, visibility, version FROM tasks WHERE tenant_id = $1');
  const messageTasks: Record<string, string> = {};
  for (const r of await q<{ message_id: string; task_id: string }>(
    'SELECT message_id, task_id FROM idempotency_keys WHERE tenant_id = $1',
  ))
    messageTasks[r.message_id] = r.task_id;
  const messageTaskIds: Record<string, string[]> = {};
  for (const r of await q<{ message_id: string; task_id: string }>(
    `SELECT DISTINCT message->>'messageId' AS message_id, task_id FROM task_messages WHERE tenant_id = $1 AND message->>'role' = 'ROLE_USER'`,
  )) {
    messageTasks[r.message_id] ??= r.task_id;
    (messageTaskIds[r.message_id] ??= []).push(r.task_id);
  }
  const events = (
    await q<{
      task_id: string;
      seq: number;
      kind: string;
      payload: Record<string, Record<string, unknown>>;
      created_at: Date;
    }>('SELECT task_id, seq, kind, payload, created_at FROM task_events WHERE tenant_id = $1')
  ).map((r): StoredEvent => ({
    taskId: r.task_id,
    seq: r.seq,
    kind: r.kind,
    state: stateOf(r.payload),
    exec: execOf(r.payload),
    createdAt: r.created_at.getTime(),
  }));
  const chunks = (
    await q<{ task_id: string; seq: number; artifact_id: string; metadata: Record<string, unknown> | null }>(
      'SELECT task_id, seq, artifact_id, metadata FROM artifact_chunks WHERE tenant_id = $1',
    )
  ).map((r): StoredChunk => ({
    taskId: r.task_id,
    seq: r.seq,
    artifactId: r.artifact_id,
    chunk: typeof r.metadata?.chunk === 'number' ? r.metadata.chunk : null,
    of: typeof r.metadata?.of === 'number' ? r.metadata.of : null,
  }));
  const executions = (
    await pool.query<{
      exec_id: string;
      task_id: string;
      message_id: string;
      attempt: number;
      pid: number;
      at: Date;
    }>('SELECT exec_id, task_id, message_id, attempt, pid, at FROM chaos_executions')
  ).rows.map((r): Execution => ({
    execId: r.exec_id,
    taskId: r.task_id,
    messageId: r.message_id,
    attempt: r.attempt,
    pid: r.pid,
    at: r.at.getTime(),
  }));
  const deliveries = (
    await q<{ task_id: string; config_id: string; seq: number; status: string }>(
      'SELECT task_id, config_id, seq, status FROM push_deliveries WHERE tenant_id = $1',
    )
  ).map((r): Delivery => ({ taskId: r.task_id, configId: r.config_id, seq: r.seq, status: r.status }));
  return { tasks, messageTasks, messageTaskIds, events, chunks, executions, deliveries };
}

function stateOf(payload: Record<string, Record<string, unknown>>): string | null {
  const status = (payload.statusUpdate?.status ?? payload.task?.status) as { state?: string } | undefined;
  return status?.state ?? null;
}

/** The execution id the counting agent put in a status message, an artifact chunk or a reply. */
function execOf(payload: Record<string, Record<string, unknown>>): string | null {
  const metadata =
    (payload.statusUpdate?.status as { message?: { metadata?: Record<string, unknown> } } | undefined)
      ?.message?.metadata ??
    (payload.artifactUpdate?.artifact as { metadata?: Record<string, unknown> } | undefined)?.metadata ??
    (payload.message as { metadata?: Record<string, unknown> } | undefined)?.metadata;
  const exec = metadata?.[EXEC_METADATA_KEY];
  return typeof exec === 'string' ? exec : null;
}

/** Live work left in the store: tasks still runnable and deliveries still pending. */
export async function pendingWork(
  pool: pg.Pool,
  tenantId: string,
): Promise<{ live: number; pushes: number }> {
  const { rows } = await pool.query<{ live: string; pushes: string }>(
    `SELECT
       (SELECT count(*) FROM tasks WHERE tenant_id = $1 AND state IN ('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING')) AS live,
       (SELECT count(*) FROM push_deliveries WHERE tenant_id = $1 AND status = 'pending') AS pushes`,
    [tenantId],
  );
  return { live: Number(rows[0]!.live), pushes: Number(rows[0]!.pushes) };
}
