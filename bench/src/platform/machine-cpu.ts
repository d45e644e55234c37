import { readFileSync } from 'node:fs';

/** The machine's CPU time since boot from /proc/stat (Linux), in clock ticks: busy and all. */
export function readMachineTicks(): { busy: number; total: number } {
  // cpu  user nice system idle iowait irq softirq steal guest guest_nice
  const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1, 9);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = fields.map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const busy = user + nice + system + irq + softirq + steal;
  return { busy, total: busy + idle + iowait };
}

/**
 * The share of all the machine's cores that was busy between two readings (every process: the
 * platform, Postgres, Redis and the load generator).
 */
export const busyShare = (a: { busy: number; total: number }, b: { busy: number; total: number }): number =>
  b.total > a.total ? (b.busy - a.busy) / (b.total - a.total) : 0;

/**
 * Microseconds since boot during which at least one runnable task waited for a CPU (Linux
 * pressure stall information, `some` line of /proc/pressure/cpu), or null where PSI is missing.
 */
export function readCpuWaitMicros(): number | null {
  try {
    const some = readFileSync('/proc/pressure/cpu', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('some '));
    const total = /total=(\d+)/.exec(some ?? '')?.[1];
    return total === undefined ? null : Number(total);
  } catch {
    return null;
  }
}
