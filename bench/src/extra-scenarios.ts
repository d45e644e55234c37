import type { BenchPlatform } from './bench-platform.ts';
import type { BenchResult } from './stats.ts';

/** HTTP, SSE fan-out and push scenarios (added as the gateway and pusher land). */
export async function extraScenarios(_p: BenchPlatform, _n: (x: number) => number): Promise<BenchResult[]> {
  return [];
}
