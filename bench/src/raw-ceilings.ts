import { Queue, Worker } from 'bullmq';
import type pg from 'pg';
import type { Redis } from 'ioredis';
import { timedPool, type BenchResult } from './stats.ts';

/** The ceiling for task writes: bare compare-and-set UPDATEs on a small table, no events. */
export async function rawPostgresCas(pool: pg.Pool, ops: number, concurrency: number): Promise<BenchResult> {
  await pool.query('CREATE TABLE IF NOT EXISTS bench_cas (id int PRIMARY KEY, version int NOT NULL)');
  await pool.query('TRUNCATE bench_cas');
  const rows = concurrency * 4;
  await pool.query('INSERT INTO bench_cas SELECT g, 1 FROM generate_series(1, $1) g', [rows]);
  const versions = new Map<number, number>();
  for (let i = 1; i <= rows; i++) versions.set(i, 1);
  const items = Array.from({ length: ops }, (_, i) => (i % rows) + 1);
  const { seconds, latenciesMs } = await timedPool(items, concurrency, async (id) => {
    // Read-free CAS as the store does it: the writer knows the version it last wrote.
    for (;;) {
      const v = versions.get(id)!;
      const r = await pool.query(
        'UPDATE bench_cas SET version = version + 1 WHERE id = $1 AND version = $2',
        [id, v],
      );
      if (r.rowCount === 1) {
        versions.set(id, v + 1);
        return;
      }
      const { rows: cur } = await pool.query<{ version: number }>(
        'SELECT version FROM bench_cas WHERE id = $1',
        [id],
      );
      versions.set(id, cur[0]!.version);
    }
  });
  return { scenario: 'raw Postgres CAS', unit: 'UPDATE … WHERE version', ops, seconds, latenciesMs };
}

/** The ceiling for dispatch: bare BullMQ add → processed by a no-op worker. */
export async function rawBullmq(
  connection: Redis,
  prefix: string,
  ops: number,
  concurrency: number,
): Promise<BenchResult> {
  const name = `bench-raw-${Date.now()}`;
  const queue = new Queue(name, { connection, prefix: `{${prefix}}` });
  const addedAt = new Map<string, number>();
  const latenciesMs: number[] = [];
  let done = 0;
  let finish!: () => void;
  const finished = new Promise<void>((r) => (finish = r));
  const worker = new Worker(
    name,
    async (job) => {
      latenciesMs.push(performance.now() - addedAt.get(job.id!)!);
      if (++done === ops) finish();
    },
    { connection: connection.duplicate({ maxRetriesPerRequest: null }), prefix: `{${prefix}}`, concurrency },
  );
  const start = performance.now();
  await timedPool(
    Array.from({ length: ops }, (_, i) => i),
    concurrency,
    async (i) => {
      const id = `j${i}`;
      addedAt.set(id, performance.now());
      await queue.add('noop', { i }, { jobId: id, removeOnComplete: true, priority: 1 + (i % 100) });
    },
  );
  await finished;
  const seconds = (performance.now() - start) / 1000;
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  return { scenario: 'raw BullMQ', unit: 'add → processed (prioritized)', ops, seconds, latenciesMs };
}
