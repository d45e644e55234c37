import type { BenchPlatform } from './bench-platform.ts';
import { httpScenarios, pushScenario } from './http-scenarios.ts';
import type { BenchResult } from './stats.ts';

/** Through the real HTTP stack (gateway), SSE fan-out, and push delivery. */
export async function extraScenarios(p: BenchPlatform, n: (x: number) => number): Promise<BenchResult[]> {
  console.error('HTTP and SSE…');
  const http = await httpScenarios(p, n);
  console.error('push…');
  return [...http, await pushScenario(p, n)];
}
