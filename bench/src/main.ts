// The benchmark command: `pnpm bench [--smoke | --quick]`. Starts the real gateway, worker and
// pusher processes on a fresh database, drives them over HTTP from a separate load-generator
// process, measures the raw Postgres and BullMQ ceilings in the same run, prints a table with the
// issue's targets, and writes JSON and an SVG chart to bench/results/.
import { parseArgs } from 'node:util';
import { ensureTemplateDatabase, resolveTestServices } from '@switchyard/testing';
import { MODES } from './modes.ts';
import { printReport } from './report/print-report.ts';
import { writeResults } from './report/write-results.ts';
import { runBench } from './run-bench.ts';

const { values } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    quick: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});
const mode = MODES[values.smoke ? 'smoke' : values.quick ? 'quick' : 'full'];

const services = await resolveTestServices();
process.env.DATABASE_URL = services.databaseUrl;
process.env.REDIS_URL = services.redisUrl;
try {
  await ensureTemplateDatabase();
  const report = await runBench(mode);
  const files = await writeResults(report);
  // --json: the report alone on stdout (the smoke test reads it); otherwise the tables.
  if (values.json) console.log(JSON.stringify(report));
  else printReport(report);
  console.error(`results: ${files.json}\nchart:   ${files.svg}`);
} finally {
  await services.stop();
}
process.exit(0);
