import * as vega from 'vega';
import * as vegaLite from 'vega-lite';
import type { BenchReport } from './bench-report.ts';
import { rows } from './rows.ts';

/** Two panels: each path's rate beside the ceilings, and its latency percentiles. */
export async function renderChart(r: BenchReport): Promise<string> {
  const data = rows(r).map((x) => ({ ...x, path: x.path.trim() }));
  const latencies = data.flatMap((x) =>
    Number.isNaN(x.p50)
      ? []
      : (['p50', 'p95', 'p99'] as const).map((p) => ({
          path: x.path,
          percentile: p,
          ms: Math.max(0.01, x[p]),
        })),
  );
  const spec: vegaLite.TopLevelSpec = {
    title: `Switchyard benchmark (${r.mode}, ${r.startedAt})`,
    vconcat: [
      {
        title: 'rate (log scale)',
        data: { values: data },
        mark: 'bar',
        width: 500,
        encoding: {
          y: { field: 'path', type: 'nominal', sort: null, title: null },
          x: { field: 'rate', type: 'quantitative', scale: { type: 'log' }, title: 'per second' },
          tooltip: [{ field: 'unit' }],
        },
      },
      {
        title: 'latency percentiles (ms, log scale)',
        data: { values: latencies },
        mark: 'point',
        width: 500,
        encoding: {
          y: { field: 'path', type: 'nominal', sort: null, title: null },
          x: { field: 'ms', type: 'quantitative', scale: { type: 'log' }, title: 'ms' },
          color: { field: 'percentile', type: 'nominal' },
        },
      },
    ],
  };
  return new vega.View(vega.parse(vegaLite.compile(spec).spec), { renderer: 'none' }).toSVG();
}
