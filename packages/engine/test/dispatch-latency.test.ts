import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState } from '@switchyard/protocol';
import { createMetrics, METRIC_NAMES } from '@switchyard/telemetry';
import { waitFor } from '@switchyard/testing';
import { alice, mallory, startPlatform, userMessage, type Platform } from './platform-fixture.ts';

// switchyard_dispatch_latency_seconds from a real worker: a run that waited in the queue while
// no worker ran is measured from when it became due (the task's creation, on Postgres's clock).
let p: Platform;
beforeAll(async () => {
  p = await startPlatform();
  await p.slowAgent('quick', { delayMs: 1 });
});
afterAll(() => p.close());

const sample = (body: string, series: string) => {
  const line = body.split('\n').find((l) => l.startsWith(`${series}{`) && l.includes('agent="quick"'));
  return line ? Number(line.split(' ').at(-1)) : undefined;
};

describe('dispatch latency', () => {
  it('counts each run claimed once, from when it became due to its claim', async () => {
    const agent = (await p.admin.getAgent('acme', 'quick'))!;
    const sent = await p.service.send(alice, agent, {
      message: userMessage('waits for a worker'),
      configuration: { returnImmediately: true },
    });
    if (!('task' in sent)) throw new Error('expected a task');
    // No worker yet: the run is due and waits in the queue.
    await new Promise((r) => setTimeout(r, 1200));
    const metrics = createMetrics({ service: 'worker', defaultMetrics: false });
    const worker = p.startWorker({ metrics });
    await waitFor(
      async () => (await p.store.getTaskRecord('acme', sent.task.id))?.state === TaskState.COMPLETED,
    );

    const body = (await metrics.text()).body;
    expect(sample(body, `${METRIC_NAMES.dispatchLatency}_count`)).toBe(1);
    expect(sample(body, `${METRIC_NAMES.dispatchLatency}_sum`)).toBeGreaterThanOrEqual(1.2);
    await worker.stop();
  });

  it("leaves out runs parked behind their tenant's run cap", async () => {
    await p.slowAgent('capped', { delayMs: 300 }, 'evil');
    const agent = (await p.admin.getAgent('evil', 'capped'))!;
    const metrics = createMetrics({ service: 'worker', defaultMetrics: false });
    const worker = p.startWorker({ metrics, maxRunningPerTenant: 1, concurrency: 4 });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const sent = await p.service.send(mallory, agent, {
        message: userMessage(`capped ${i}`),
        configuration: { returnImmediately: true },
      });
      if (!('task' in sent)) throw new Error('expected a task');
      ids.push(sent.task.id);
    }
    await waitFor(
      async () =>
        (await Promise.all(ids.map((id) => p.store.getTaskRecord('evil', id)))).every(
          (r) => r?.state === TaskState.COMPLETED,
        ),
      { timeoutMs: 20_000 },
    );
    const body = (await metrics.text()).body;
    const line = (series: string, labels: string) =>
      Number(
        body
          .split('\n')
          .find((l) => l.startsWith(`${series}{`) && l.includes(labels))
          ?.split(' ')
          .at(-1) ?? 0,
      );
    const parked = line(METRIC_NAMES.runsParked, 'tenant="evil"');
    expect(parked).toBeGreaterThan(0);
    // A job may be parked more than once; each run is counted at most once, and a parked one never.
    expect(line(`${METRIC_NAMES.dispatchLatency}_count`, 'agent="capped"')).toBeLessThan(3);
    expect(line(`${METRIC_NAMES.dispatchLatency}_count`, 'agent="capped"')).toBeGreaterThanOrEqual(1);
    await worker.stop();
  });
});
