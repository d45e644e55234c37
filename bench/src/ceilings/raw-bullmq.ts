import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { Measured } from '../measure/measured.ts';

/**
 * The dispatch ceiling: bare BullMQ add → processed by a no-op handler, prioritized like the
 * platform's fair dispatch queue, `concurrency` adds in flight and as many jobs processed at once.
 * Latency is add → handler start.
 */
export async function rawBullmq(
  redisUrl: string,
  prefix: string,
  ops: number,
  concurrency: number,
): Promise<Measured> {
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const name = `bench-raw-${Date.now()}`;
  const queue = new Queue(name, { connection, prefix: `{${prefix}}` });
  const addedAt = new Map<string, number>();
  const latencyMs: number[] = [];
  let finish!: () => void;
  const finished = new Promise<void>((r) => (finish = r));
  const worker = new Worker(
    name,
    async (job) => {
      latencyMs.push(performance.now() - addedAt.get(job.id!)!);
      if (latencyMs.length === ops) finish();
    },
    { connection: connection.duplicate(), prefix: `{${prefix}}`, concurrency },
  );
  const start = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < ops) {
        const id = `j${next++}`;
        addedAt.set(id, performance.now());
        await queue.add('noop', {}, { jobId: id, removeOnComplete: true, priority: 1 + (next % 100) });
      }
    }),
  );
  await finished;
  const seconds = (performance.now() - start) / 1000;
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  connection.disconnect();
  return { ops, seconds, latencyMs };
}
