import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { BenchReport } from './bench-report.ts';
import { renderChart } from './chart.ts';

const DIR = new URL('../../results/', import.meta.url);

/** bench/results/bench-<mode>-<time>.json and .svg; returns both paths. */
export async function writeResults(r: BenchReport): Promise<{ json: string; svg: string }> {
  await mkdir(DIR, { recursive: true });
  const base = `bench-${r.mode}-${r.startedAt.replace(/[:.]/g, '-')}`;
  const json = fileURLToPath(new URL(`${base}.json`, DIR));
  const svg = fileURLToPath(new URL(`${base}.svg`, DIR));
  await writeFile(json, `${JSON.stringify(r, null, 2)}\n`);
  await writeFile(svg, await renderChart(r));
  return { json, svg };
}
