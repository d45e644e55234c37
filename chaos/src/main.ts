// The fault-injection suite's command: `pnpm chaos [--duration 60s] [--seed N] [--json FILE]`.
// Prints the checker's report; exits 1 when it found a violation.
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { formatReport } from './report.ts';
import { abortRuns, runChaos } from './run-chaos.ts';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '60s' },
    seed: { type: 'string' },
    clients: { type: 'string', default: '6' },
    json: { type: 'string' },
    quiet: { type: 'boolean', default: false },
  },
});

function parseDuration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  if (!m) throw new Error(`--duration: expected e.g. 60s, 2m or 30000ms, got ${text}`);
  const n = Number(m[1]);
  return m[2] === 'ms' ? n : m[2] === 'm' ? n * 60_000 : n * 1000;
}

// The private Postgres is a daemon (pg_ctl): an interrupted run must still stop it.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`${signal}: stopping the run's processes and servers`);
    void abortRuns().finally(() => process.exit(130));
  });
}

const seed = values.seed === undefined ? Math.floor(Math.random() * 1_000_000) : Number(values.seed);
const started = Date.now();
const report = await runChaos({
  durationMs: parseDuration(values.duration),
  seed,
  clients: Number(values.clients),
  log: values.quiet
    ? undefined
    : (line) => console.error(`[chaos +${((Date.now() - started) / 1000).toFixed(1)}s] ${line}`),
});
console.log(formatReport(report));
if (values.json) await writeFile(values.json, JSON.stringify(report, null, 2));
process.exit(report.violations.length === 0 ? 0 : 1);
