import pg from 'pg';
import { TENANT } from '../platform/bench-environment.ts';
import { clientLoops } from './client-loop.ts';
import type { Measured } from '../measure/measured.ts';
import type { CpuUsage } from '../measure/cpu-meter.ts';
import { round } from '../stats.ts';

const CAS = `UPDATE tasks SET version = version + 1, updated_at = now(), status_timestamp = now()
              WHERE tenant_id = $1 AND id = $2 AND version = $3`;

// The statement shape the store's changeTask uses: the guarded UPDATE and the event insert in one
// statement (one round trip, one implicit transaction).
const CAS_AND_EVENT = `WITH upd AS (${CAS} RETURNING tenant_id, id, version)
  INSERT INTO task_events (tenant_id, task_id, seq, kind, payload)
  SELECT tenant_id, id, version, 'statusUpdate', $4::jsonb FROM upd`;

const EVENT = JSON.stringify({
  statusUpdate: { taskId: 'x', contextId: 'raw', status: { state: 'TASK_STATE_WORKING' } },
});

/**
 * The write ceilings on the real `tasks` table (same indexes, partitions and row width as the
 * platform's): bare compare-and-set UPDATEs, and compare-and-set plus the event insert. Each client
 * owns its rows and knows their versions (the store's read-free CAS), so every UPDATE matches.
 */
export async function rawPostgres(
  databaseUrl: string,
  opsTotal: number,
  clients: number,
  /** Meters Postgres CPU during each run, so a task's Postgres CPU can be set beside a bare write's. */
  meter: () => { stop(): Promise<CpuUsage> },
): Promise<{ cas: Measured; casEvent: Measured; postgresCpuMsPerOp: { cas: number; casEvent: number } }> {
  // Unnamed statements, so each is planned with its values: for these single-row statements that
  // is the fastest way to run them (a generic plan locks every partition), so this is the ceiling.
  const pool = new pg.Pool({ connectionString: databaseUrl, max: clients });
  try {
    const { rows } = await pool.query<{ id: string }>(
      `INSERT INTO tasks (tenant_id, id, context_id, agent_id, owner, visibility, state, version, status_timestamp)
       SELECT $1, gen_random_uuid(), 'raw', 'echo', 'raw-ceiling', 'task', 'TASK_STATE_WORKING', 1, now()
         FROM generate_series(1, $2) RETURNING id`,
      [TENANT, clients * 4],
    );
    const ids = rows.map((r) => r.id);
    const versions = new Map(ids.map((id) => [id, 1]));
    const perClient = Math.max(1, Math.round(opsTotal / clients));
    const run = async (sql: string, withEvent: boolean) => {
      const m = meter();
      const r = await clientLoops(clients, perClient, async (c, i) => {
        const id = ids[c * 4 + (i % 4)]!;
        const v = versions.get(id)!;
        const res = await pool.query(sql, withEvent ? [TENANT, id, v, EVENT] : [TENANT, id, v]);
        if (res.rowCount !== 1) throw new Error('raw CAS matched no row');
        versions.set(id, v + 1);
      });
      const cpu = await m.stop();
      const ops = clients * perClient;
      return {
        ops,
        seconds: r.seconds,
        latencyMs: r.latencyMs,
        cpuMs: round((cpu.postgres * 1000) / ops, 3),
      };
    };
    const cas = await run(CAS, false);
    const casEvent = await run(CAS_AND_EVENT, true);
    await pool.query('DELETE FROM task_events WHERE tenant_id = $1 AND task_id = ANY($2::uuid[])', [
      TENANT,
      ids,
    ]);
    await pool.query('DELETE FROM tasks WHERE tenant_id = $1 AND id = ANY($2::uuid[])', [TENANT, ids]);
    return { cas, casEvent, postgresCpuMsPerOp: { cas: cas.cpuMs, casEvent: casEvent.cpuMs } };
  } finally {
    await pool.end();
  }
}
