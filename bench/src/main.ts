// The benchmark command: `pnpm bench` (or `node bench/src/main.ts [--quick]`). Reports throughput and
// latency percentiles of the platform side by side with the raw ceilings (bare Postgres CAS, bare
// BullMQ) measured in the same run on the same machine. Results also go to bench/results/.
import { mkdir, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { resolveTestServices, ensureTemplateDatabase } from '@switchyard/testing';
import { startBenchPlatform } from './bench-platform.ts';
import { engineEndToEnd, tenantFlood } from './engine-scenarios.ts';
import { rawBullmq, rawPostgresCas } from './raw-ceilings.ts';
import { extraScenarios } from './extra-scenarios.ts';
import { summarize, type BenchResult } from './stats.ts';

const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
const scale = values.quick ? 0.2 : 1;
const n = (x: number) => Math.max(10, Math.round(x * scale));

const services = await resolveTestServices();
process.env.DATABASE_URL = services.databaseUrl;
process.env.REDIS_URL = services.redisUrl;
await ensureTemplateDatabase();

const results: BenchResult[] = [];
const platform = await startBenchPlatform({ pollIntervalMs: 500 });
try {
  console.error('raw ceilings…');
  results.push(await rawPostgresCas(platform.dbHandle.pool, n(20_000), 16));
  results.push(await rawBullmq(platform.redisHandle.connect(), platform.redisHandle.prefix, n(20_000), 16));
  console.error('engine end to end…');
  platform.startWorker(32);
  results.push(...(await engineEndToEnd(platform, n(3000), 16)));
  console.error('tenant flood…');
  results.push(...(await tenantFlood(platform, n(5000), n(50))));
  results.push(...(await extraScenarios(platform, n)));
} finally {
  await platform.close();
  await services.stop();
}

const table = results.map(summarize);
console.table(table);
await mkdir(new URL('../results/', import.meta.url), { recursive: true });
const file = new URL(
  `../results/bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`,
  import.meta.url,
);
await writeFile(
  file,
  JSON.stringify({ at: new Date().toISOString(), quick: values.quick, results: table }, null, 2),
);
console.error(`results written to ${file.pathname}`);
process.exit(0);
