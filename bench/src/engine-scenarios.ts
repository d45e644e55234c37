import type { Caller } from '@switchyard/store';
import type { BenchPlatform } from './bench-platform.ts';
import { timedPool, type BenchResult } from './stats.ts';

const message = (text: string) => ({
  messageId: crypto.randomUUID(),
  role: 'ROLE_USER' as const,
  parts: [{ text }],
});

/** Submit→COMPLETED latency of finished tasks, from the store's own timestamps. */
async function completionLatencies(
  p: BenchPlatform,
  tenantId: string,
  ids: string[],
): Promise<{ latencies: number[]; spanS: number }> {
  const { rows } = await p.dbHandle.pool.query<{ ms: number; created: Date; updated: Date }>(
    `SELECT extract(epoch FROM (updated_at - created_at)) * 1000 AS ms, created_at AS created, updated_at AS updated
       FROM tasks WHERE tenant_id = $1 AND id = ANY($2::uuid[])`,
    [tenantId, ids],
  );
  const first = Math.min(...rows.map((r) => r.created.getTime()));
  const last = Math.max(...rows.map((r) => r.updated.getTime()));
  return { latencies: rows.map((r) => Number(r.ms)), spanS: (last - first) / 1000 };
}

async function waitAllTerminal(p: BenchPlatform, tenantId: string, ids: string[]): Promise<void> {
  for (;;) {
    const { rows } = await p.dbHandle.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM tasks WHERE tenant_id = $1 AND id = ANY($2::uuid[])
         AND state IN ('TASK_STATE_COMPLETED','TASK_STATE_FAILED','TASK_STATE_CANCELED','TASK_STATE_REJECTED')`,
      [tenantId, ids],
    );
    if (rows[0]!.n === ids.length) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The platform end to end in one process: submit (non-blocking) → worker → COMPLETED. */
export async function engineEndToEnd(
  p: BenchPlatform,
  tasks: number,
  concurrency: number,
): Promise<BenchResult[]> {
  const caller: Caller = { tenantId: 'bench-a', principal: 'bench', admin: false };
  const agent = (await p.admin.getAgent('bench-a', 'echo'))!;
  const ids: string[] = [];
  const submit = await timedPool(
    Array.from({ length: tasks }, (_, i) => i),
    concurrency,
    async (i) => {
      const r = await p.service.send(caller, agent, {
        message: message(`t${i}`),
        configuration: { returnImmediately: true },
      });
      if ('task' in r) ids.push(r.task.id);
    },
  );
  await waitAllTerminal(p, 'bench-a', ids);
  const done = await completionLatencies(p, 'bench-a', ids);
  return [
    {
      scenario: 'engine submit',
      unit: 'SendMessage (returnImmediately), in-process',
      ops: tasks,
      seconds: submit.seconds,
      latenciesMs: submit.latenciesMs,
    },
    {
      scenario: 'engine end to end',
      unit: 'task submit → COMPLETED (echo)',
      ops: tasks,
      seconds: done.spanS,
      latenciesMs: done.latencies,
    },
  ];
}

/** One tenant floods, another submits a few: both tenants' submit→done latency. */
export async function tenantFlood(p: BenchPlatform, flood: number, quiet: number): Promise<BenchResult[]> {
  const a: Caller = { tenantId: 'bench-a', principal: 'flooder', admin: false };
  const b: Caller = { tenantId: 'bench-b', principal: 'quiet', admin: false };
  const agentA = (await p.admin.getAgent('bench-a', 'quick'))!;
  const agentB = (await p.admin.getAgent('bench-b', 'quick'))!;
  const floodIds: string[] = [];
  const quietIds: string[] = [];
  const floodDone = timedPool(
    Array.from({ length: flood }, (_, i) => i),
    16,
    async (i) => {
      const r = await p.service.send(a, agentA, {
        message: message(`f${i}`),
        configuration: { returnImmediately: true },
      });
      if ('task' in r) floodIds.push(r.task.id);
    },
  );
  // The quiet tenant trickles in while the flood is queued.
  await new Promise((r) => setTimeout(r, 500));
  for (let i = 0; i < quiet; i++) {
    const r = await p.service.send(b, agentB, {
      message: message(`q${i}`),
      configuration: { returnImmediately: true },
    });
    if ('task' in r) quietIds.push(r.task.id);
    await new Promise((res) => setTimeout(res, 20));
  }
  await floodDone;
  await waitAllTerminal(p, 'bench-b', quietIds);
  await waitAllTerminal(p, 'bench-a', floodIds);
  const fa = await completionLatencies(p, 'bench-a', floodIds);
  const qb = await completionLatencies(p, 'bench-b', quietIds);
  return [
    {
      scenario: 'flood: busy tenant',
      unit: 'task submit → COMPLETED',
      ops: floodIds.length,
      seconds: fa.spanS,
      latenciesMs: fa.latencies,
    },
    {
      scenario: 'flood: quiet tenant',
      unit: 'task submit → COMPLETED',
      ops: quietIds.length,
      seconds: qb.spanS,
      latenciesMs: qb.latencies,
      notes: 'submitted while the flood was queued',
    },
  ];
}
