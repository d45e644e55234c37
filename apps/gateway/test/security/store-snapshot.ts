import type pg from 'pg';

/**
 * Every durable fact a request could change, read with SQL so "nothing changed" is proven on the
 * store itself, not through the API under test. Columns that move on their own while a task runs
 * (lease renewals, timestamps of housekeeping) are left out: a rejected request cannot be blamed
 * for them, and they would make the comparison flaky.
 */
const QUERIES: Record<string, string> = {
  tenants: 'SELECT id, name, disabled_at FROM tenants ORDER BY id',
  apiKeys: 'SELECT id, tenant_id, principal, role, revoked_at FROM api_keys ORDER BY id',
  agents: 'SELECT tenant_id, id, card, executor, settings FROM agents ORDER BY tenant_id, id',
  tasks: `SELECT tenant_id, id, context_id, agent_id, owner, visibility, state, version,
                 status_message, metadata, reply, attempts, last_error
            FROM tasks ORDER BY tenant_id, id`,
  messages: 'SELECT tenant_id, task_id, position, message FROM task_messages ORDER BY 1, 2, 3',
  artifacts: 'SELECT tenant_id, task_id, seq, artifact_id, parts FROM artifact_chunks ORDER BY 1, 2, 3',
  events: 'SELECT tenant_id, task_id, seq, kind, payload FROM task_events ORDER BY 1, 2, 3',
  idempotency: 'SELECT tenant_id, message_id, principal, task_id FROM idempotency_keys ORDER BY 1, 2',
  memory: 'SELECT tenant_id, agent_id, context_id, key, value FROM context_memory ORDER BY 1, 2, 3, 4',
  pushConfigs: `SELECT tenant_id, task_id, id, url, encode(token_enc, 'hex') AS token, auth_scheme,
                       encode(auth_credentials_enc, 'hex') AS credentials
                  FROM push_configs ORDER BY 1, 2, 3`,
  pushDeliveries: `SELECT tenant_id, task_id, config_id, seq, status, attempts
                     FROM push_deliveries ORDER BY 1, 2, 3, 4`,
};

export type StoreSnapshot = Record<string, unknown[]>;

export async function snapshotStore(pool: pg.Pool): Promise<StoreSnapshot> {
  const entries = await Promise.all(
    Object.entries(QUERIES).map(async ([name, sql]) => [name, (await pool.query(sql)).rows] as const),
  );
  return Object.fromEntries(entries);
}

/** Row counts per table: a short message when a snapshot comparison fails. */
export function countsOf(snapshot: StoreSnapshot): Record<string, number> {
  return Object.fromEntries(Object.entries(snapshot).map(([name, rows]) => [name, rows.length]));
}
