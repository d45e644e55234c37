import type pg from 'pg';
import type { PlatformProcess } from '../platform/cluster.ts';
import { readCpuTicks, TICKS_PER_SECOND } from '../platform/proc-stats.ts';
import { socketOwners } from '../platform/socket-owner.ts';
import { busyShare, readCpuWaitMicros, readMachineTicks } from '../platform/machine-cpu.ts';

/** A server process the platform uses on this machine (Redis), metered beside the platform's own. */
export interface ServiceProcess {
  role: string;
  pid: number;
}

export interface CpuUsage {
  seconds: number;
  /** CPU seconds used per platform role (all processes of the role together), and per service. */
  byRole: Record<string, number>;
  /** CPU seconds used by the Postgres backends connected to the benchmark's database. */
  postgres: number;
  /** The same, by the role of the process each backend serves ('other': the benchmark itself). */
  postgresByClient: Record<string, number>;
  postgresBackends: number;
  /** The share of all the machine's cores busy over the window, whatever used them. */
  machineBusy: number;
  /** The share of the window in which some runnable task waited for a CPU (PSI); null without PSI. */
  cpuWaitShare: number | null;
}

/**
 * CPU time from /proc over a window: the platform processes, and the Postgres backends of the
 * benchmark's database (found in pg_stat_activity through `admin`, a connection to another
 * database, sampled every 250 ms so short-lived backends are counted too). CPU time, unlike wall
 * time, hardly depends on what else runs on the machine.
 */
export function startCpuMeter(
  admin: pg.Pool,
  database: string,
  processes: PlatformProcess[],
  services: ServiceProcess[] = [],
) {
  const start = performance.now();
  const services0 = new Map(services.map((s) => [s, readCpuTicks(s.pid) ?? 0]));
  const machine0 = readMachineTicks();
  const wait0 = readCpuWaitMicros();
  const platform0 = new Map(processes.map((p) => [p, readCpuTicks(p.pid) ?? 0]));
  const backends = new Map<number, { ticks: number; client: string }>();
  const byClient: Record<string, number> = {};
  let backendTicks = 0;
  const sample = async () => {
    const { rows } = await admin.query<{ pid: number; port: number | null }>(
      'SELECT pid, client_port AS port FROM pg_stat_activity WHERE datname = $1',
      [database],
    );
    const fresh = rows.filter((r) => !backends.has(r.pid) && r.port !== null).map((r) => r.port!);
    const owners = fresh.length ? socketOwners(processes, fresh) : new Map<number, PlatformProcess>();
    for (const { pid, port } of rows) {
      const now = readCpuTicks(pid);
      if (now === null) continue;
      const before = backends.get(pid);
      const client = before?.client ?? (port !== null ? owners.get(port)?.role : undefined) ?? 'other';
      if (before !== undefined) {
        backendTicks += now - before.ticks;
        byClient[client] = (byClient[client] ?? 0) + now - before.ticks;
      }
      backends.set(pid, { ticks: now, client });
    }
  };
  let running = true;
  const loop = (async () => {
    while (running) {
      await sample();
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  return {
    async stop(): Promise<CpuUsage> {
      running = false;
      await loop;
      await sample();
      const byRole: Record<string, number> = {};
      for (const [p, t0] of platform0) {
        const t1 = readCpuTicks(p.pid) ?? t0;
        byRole[p.role] = (byRole[p.role] ?? 0) + (t1 - t0) / TICKS_PER_SECOND;
      }
      for (const [s, t0] of services0) {
        byRole[s.role] = (byRole[s.role] ?? 0) + ((readCpuTicks(s.pid) ?? t0) - t0) / TICKS_PER_SECOND;
      }
      const seconds = (performance.now() - start) / 1000;
      const wait1 = readCpuWaitMicros();
      return {
        seconds,
        byRole,
        postgres: backendTicks / TICKS_PER_SECOND,
        postgresByClient: Object.fromEntries(
          Object.entries(byClient).map(([k, v]) => [k, v / TICKS_PER_SECOND]),
        ),
        postgresBackends: backends.size,
        machineBusy: busyShare(machine0, readMachineTicks()),
        cpuWaitShare: wait0 === null || wait1 === null ? null : (wait1 - wait0) / (seconds * 1e6),
      };
    },
  };
}
