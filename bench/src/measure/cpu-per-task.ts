import type { PlatformProcess } from '../platform/cluster.ts';
import { round } from '../stats.ts';
import type { CpuUsage } from './cpu-meter.ts';

/** CPU seconds by key: each role, 'postgres', and 'postgres for <role>' (the backends serving it). */
function flatten(u: CpuUsage): Record<string, number> {
  return {
    ...u.byRole,
    postgres: u.postgres,
    ...Object.fromEntries(Object.entries(u.postgresByClient).map(([k, v]) => [`postgres for ${k}`, v])),
  };
}

/** How many processes a key's idle CPU scales with ('postgres': all of them; 'other': none). */
function processCount(key: string, processes: PlatformProcess[]): number {
  const role = key === 'postgres' ? undefined : key.replace(/^postgres for /, '');
  if (role === 'other') return 1;
  return Math.max(1, processes.filter((p) => role === undefined || p.role === role).length);
}

/** CPU seconds per second per process of what the idle platform uses (timers, reapers, pollers). */
export function idleRates(u: CpuUsage, processes: PlatformProcess[]): Record<string, number> {
  return Object.fromEntries(
    Object.entries(flatten(u)).map(([k, v]) => [k, v / u.seconds / processCount(k, processes)]),
  );
}

/** CPU milliseconds per task by key, what the same processes use idle over as long removed. */
export function cpuMsPerTask(
  u: CpuUsage,
  tasks: number,
  processes: PlatformProcess[],
  idle: Record<string, number>,
): Record<string, number> {
  return Object.fromEntries(
    Object.entries(flatten(u)).map(([k, v]) => {
      const net = Math.max(0, v - (idle[k] ?? 0) * processCount(k, processes) * u.seconds);
      return [k, round((net * 1000) / tasks, 2)];
    }),
  );
}
