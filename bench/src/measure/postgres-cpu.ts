import type pg from 'pg';
import type { PlatformProcess } from '../platform/cluster.ts';
import { round } from '../stats.ts';
import { startCpuMeter, type ServiceProcess } from './cpu-meter.ts';
import { idleRates } from './cpu-per-task.ts';

export interface PostgresCpu {
  windowSeconds: number;
  /** Backends connected to the benchmark's database seen during the window. */
  backends: number;
  /** Their CPU time over the window, as a percentage of one core. */
  percentOfOneCore: number;
  transactionsPerSecond: number;
  /**
   * CPU seconds per second per process that the idle platform uses anyway (timers, reapers,
   * pollers), by role and for Postgres: subtracted from the loaded runs' per-task CPU.
   */
  idleCpuPerSecond: Record<string, number>;
}

/** CPU the idle platform costs Postgres (and itself): no tasks, every worker slot waiting. */
export async function measurePostgresCpu(
  admin: pg.Pool,
  database: string,
  windowMs: number,
  processes: PlatformProcess[],
  services: ServiceProcess[] = [],
): Promise<PostgresCpu> {
  const xact0 = await commits(admin, database);
  const meter = startCpuMeter(admin, database, processes, services);
  await new Promise((r) => setTimeout(r, windowMs));
  const usage = await meter.stop();
  const xact1 = await commits(admin, database);
  return {
    windowSeconds: round(usage.seconds, 1),
    backends: usage.postgresBackends,
    percentOfOneCore: round((usage.postgres / usage.seconds) * 100, 2),
    transactionsPerSecond: round((xact1 - xact0) / usage.seconds, 1),
    idleCpuPerSecond: idleRates(usage, processes),
  };
}

/** Committed transactions of one database so far (pg_stat_database, flushed by backends within ~1 s). */
export async function commits(admin: pg.Pool, database: string): Promise<number> {
  const { rows } = await admin.query<{ n: string }>(
    'SELECT xact_commit AS n FROM pg_stat_database WHERE datname = $1',
    [database],
  );
  return Number(rows[0]?.n ?? 0);
}
