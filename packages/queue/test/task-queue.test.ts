import { afterAll, describe, expect, it } from 'vitest';
import { createTestRedis } from '@switchyard/testing';
import { createQueueKeys, TaskQueue } from '../src/index.ts';

const redis = createTestRedis();
afterAll(() => redis.cleanup());

describe('TaskQueue backlog counter (fairness)', () => {
  it("counts a tenant's waiting dispatches in one script, sets the counter's TTL, and prioritises by it", async () => {
    const connection = redis.connect();
    const keys = createQueueKeys(redis.prefix);
    const queue = new TaskQueue({ connection, keys });
    // A second queue on the same connection must not redefine the script.
    const again = new TaskQueue({ connection, keys });
    for (let i = 1; i <= 3; i++) {
      await queue.enqueue({ tenantId: 'busy', taskId: `t${i}`, version: 1, attempts: 0 });
    }
    await again.enqueue({ tenantId: 'quiet', taskId: 'q1', version: 1, attempts: 0 });
    expect(await connection.get(keys.tenantBacklog('busy'))).toBe('3');
    const ttl = await connection.ttl(keys.tenantBacklog('busy'));
    expect(ttl).toBeGreaterThan(3500);
    expect(ttl).toBeLessThanOrEqual(3600);
    const jobs = await queue.queue.getJobs(['prioritized']);
    const priorities = Object.fromEntries(jobs.map((j) => [j.data.taskId, j.opts.priority]));
    expect(priorities).toEqual({ t1: 1, t2: 2, t3: 3, q1: 1 });
    await queue.started('busy');
    expect(await connection.get(keys.tenantBacklog('busy'))).toBe('2');
    await queue.close();
    await again.close();
  });

  it('keeps the counters on an auto-pipelined connection of their own, exact under concurrent sends', async () => {
    const connection = redis.connect();
    const counters = redis.connect({ enableAutoPipelining: true });
    const keys = createQueueKeys(`${redis.prefix}-pipelined`);
    const queue = new TaskQueue({ connection, counters, keys });
    // Issued in one turn: the increments share pipelines, and each still gets its own depth.
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        queue.enqueue({ tenantId: 'busy', taskId: `t${i}`, version: 1, attempts: 0 }),
      ),
    );
    expect(await connection.get(keys.tenantBacklog('busy'))).toBe('20');
    const jobs = await queue.queue.getJobs(['prioritized']);
    expect(jobs.map((j) => j.opts.priority).sort((a, b) => a! - b!)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    // BullMQ's connection never carried the counter script.
    expect('syBacklogIncr' in connection).toBe(false);
    await Promise.all([queue.started('busy'), queue.started('busy')]);
    expect(await counters.get(keys.tenantBacklog('busy'))).toBe('18');
    await queue.close();
  });
});
