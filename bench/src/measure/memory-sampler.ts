import type { PlatformProcess } from '../platform/cluster.ts';
import { readMemory } from '../platform/proc-stats.ts';

export interface ProcessMemory {
  name: string;
  role: string;
  /** Highest resident size seen while the benchmark ran (VmHWM, the kernel's own high-water mark). */
  peakRssBytes: number;
  /** Resident size at the last sample. */
  lastRssBytes: number;
}

/** Follows every platform process's resident memory until it stops; the kernel keeps the peak. */
export function memorySampler() {
  const seen = new Map<string, ProcessMemory>();
  const procs: PlatformProcess[] = [];
  const sample = () => {
    for (const p of procs) {
      const m = readMemory(p.pid);
      if (!m) continue;
      const prev = seen.get(p.name);
      seen.set(p.name, {
        name: p.name,
        role: p.role,
        peakRssBytes: Math.max(prev?.peakRssBytes ?? 0, m.peak, m.rss),
        lastRssBytes: m.rss,
      });
    }
  };
  const timer = setInterval(sample, 500);
  return {
    watch(p: PlatformProcess) {
      procs.push(p);
    },
    /** Takes a last sample of a process about to stop. */
    sample,
    stop(): ProcessMemory[] {
      clearInterval(timer);
      sample();
      return [...seen.values()];
    },
  };
}
