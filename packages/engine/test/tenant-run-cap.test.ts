import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState } from '@switchyard/protocol';
import type { Caller } from '@switchyard/store';
import { createMetrics, METRIC_NAMES } from '@switchyard/telemetry';
import { waitFor } from '@switchyard/testing';
import { startPlatform, userMessage, type Platform } from './platform-fixture.ts';

// The per-tenant run cap end to end: real sends, two workers, the store's view of what runs.
let p: Platform;
const flooder: Caller = { tenantId: 'acme', principal: 'flooder', admin: false };
const quiet: Caller = { tenantId: 'evil', principal: 'quiet', admin: false };

beforeAll(async () => {
  p = await startPlatform();
  await p.slowAgent('long', { delayMs: 400 }, 'acme');
  await p.slowAgent('quick', { delayMs: 5 }, 'evil');
  await p.slowAgent('long', { delayMs: 400 }, 'evil');
});
afterAll(() => p.close());

async function send(caller: Caller, agentId: string): Promise<string> {
  const agent = (await p.admin.getAgent(caller.tenantId, agentId))!;
  const r = await p.service.send(caller, agent, {
    message: userMessage('work'),
    configuration: { returnImmediately: true },
  });
  if (!('task' in r)) throw new Error('expected a task');
  return r.task.id;
}

describe('TENANT_MAX_RUNNING', () => {
  it("keeps a flooding tenant to its cap across workers while another tenant's task runs at once", async () => {
    const metrics = [1, 2].map(() => createMetrics({ service: 'worker', defaultMetrics: false }));
    const workers = metrics.map((m) => p.startWorker({ concurrency: 4, maxRunningPerTenant: 2, metrics: m }));
    try {
      const flood: string[] = [];
      for (let i = 0; i < 8; i++) flood.push(await send(flooder, 'long'));
      const records = () => Promise.all(flood.map((id) => p.store.getTaskRecord('acme', id)));
      let most = 0;
      let quietDone = false;
      let floodLeftWhenQuietDone = 0;
      const quietTask = await send(quiet, 'quick');
      await waitFor(
        async () => {
          const all = await records();
          most = Math.max(most, all.filter((r) => r?.state === TaskState.WORKING).length);
          if (!quietDone && (await p.store.getTaskRecord('evil', quietTask))?.state === TaskState.COMPLETED) {
            quietDone = true;
            floodLeftWhenQuietDone = all.filter((r) => r?.state !== TaskState.COMPLETED).length;
          }
          return all.every((r) => r?.state === TaskState.COMPLETED);
        },
        { intervalMs: 20, timeoutMs: 30_000, what: 'the flood to finish' },
      );
      // Eight slots in all, two for the flooder: the quiet tenant did not queue behind its backlog.
      expect(most).toBeLessThanOrEqual(2);
      expect(quietDone).toBe(true);
      expect(floodLeftWhenQuietDone).toBeGreaterThanOrEqual(4);
      // Parked and promoted, never claimed twice: one run each.
      expect((await records()).map((r) => r!.attempts)).toEqual(flood.map(() => 1));
      // Eight slots took the flood's eight jobs at once: at least six were parked, and counted.
      const parked = await Promise.all(
        metrics.map(async (m) => {
          const line = (await m.text()).body
            .split('\n')
            .find((l) => l.startsWith(`${METRIC_NAMES.runsParked}{`));
          return line?.includes('tenant="acme"') ? Number(line.split(' ').at(-1)) : 0;
        }),
      );
      expect(parked[0]! + parked[1]!).toBeGreaterThanOrEqual(6);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
  });

  it("follows a tenant's own cap over the fleet's: lower for one, none for another", async () => {
    await p.admin.setTenantMaxRunning('acme', 1);
    await p.admin.setTenantMaxRunning('evil', 0);
    const workers = [
      p.startWorker({ concurrency: 4, maxRunningPerTenant: 2 }),
      p.startWorker({ concurrency: 4, maxRunningPerTenant: 2 }),
    ];
    try {
      const sent: Array<[string, string]> = [];
      for (let i = 0; i < 4; i++) {
        sent.push(['acme', await send(flooder, 'long')]);
        sent.push(['evil', await send(quiet, 'long')]);
      }
      const most = new Map<string, number>();
      await waitFor(
        async () => {
          const all = await Promise.all(sent.map(([t, id]) => p.store.getTaskRecord(t, id)));
          for (const tenant of ['acme', 'evil']) {
            const working = all.filter(
              (r, i) => sent[i]![0] === tenant && r?.state === TaskState.WORKING,
            ).length;
            most.set(tenant, Math.max(most.get(tenant) ?? 0, working));
          }
          return all.every((r) => r?.state === TaskState.COMPLETED);
        },
        { intervalMs: 20, timeoutMs: 30_000, what: 'every task to finish' },
      );
      expect(most.get('acme')).toBe(1);
      // No cap of its own (0) beats the fleet's 2: its four ran together.
      expect(most.get('evil')).toBeGreaterThan(2);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      await p.admin.setTenantMaxRunning('acme', null);
      await p.admin.setTenantMaxRunning('evil', null);
    }
  });
});
