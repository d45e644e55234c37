import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createDb } from '../src/db.ts';
import type { CreateTaskInput, CreateTaskResult, TaskRecord } from '../src/task-store.ts';
import { createTask } from '../src/tasks/create-task.ts';
import { createTaskBatch } from '../src/tasks/create-tasks.ts';
import { newTask, useTaskTestEnv, tenant, userMessage } from './task-fixtures.ts';

const env = useTaskTestEnv();

/** The k-th kind of send: with or without metadata, trace context, output modes; pending or not. */
function send(tenantId: string, k: number, messageId = randomUUID()): CreateTaskInput {
  return newTask(tenantId, {
    message: userMessage(`send ${k}`, { messageId }),
    visibility: k % 2 === 0 ? 'task' : 'pending',
    ...(k % 3 === 0 ? { metadata: { k } } : {}),
    ...(k % 4 === 0 ? { traceContext: { traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01` } } : {}),
    ...(k % 5 === 0 ? { acceptedOutputModes: ['text/plain'] } : {}),
  });
}

/** The batch's answers, none of them an error. */
async function answers(batch: Promise<Array<CreateTaskResult | Error>>): Promise<CreateTaskResult[]> {
  return (await batch).map((r) => {
    if (r instanceof Error) throw r;
    return r;
  });
}

/** What a create wrote for a task, with its ids and times taken out. */
async function written(tenantId: string, taskId: string) {
  const row = await env.db
    .selectFrom('tasks')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', taskId)
    .executeTakeFirstOrThrow();
  const messages = await env.db
    .selectFrom('task_messages')
    .select(['position', 'message'])
    .where('tenant_id', '=', tenantId)
    .where('task_id', '=', taskId)
    .execute();
  const events = await env.db
    .selectFrom('task_events')
    .select(['seq', 'kind', 'payload'])
    .where('tenant_id', '=', tenantId)
    .where('task_id', '=', taskId)
    .execute();
  const key = await env.db
    .selectFrom('idempotency_keys')
    .select(['principal', 'task_id'])
    .where('tenant_id', '=', tenantId)
    .where('task_id', '=', taskId)
    .execute();
  const { tenant_id: _t, created_at: _c, updated_at: _u, status_timestamp: _s, run_after: _r, ...rest } = row;
  return JSON.parse(
    JSON.stringify({ rest, messages, events, key }, (k, v: unknown) =>
      // Ids differ by design; status times are each statement's own clock (status-time.ts).
      k === 'messageId' || k === 'contextId' || k === 'context_id' || k === 'timestamp' ? 'X' : v,
    ).replaceAll(taskId, 'TASK'),
  ) as unknown;
}

describe('sends in batches (group commit of one gateway’s concurrent sends)', () => {
  it('writes for each send exactly what createTask writes for it alone', async () => {
    const [alone, batched] = [tenant(), tenant()];
    const a = Array.from({ length: 12 }, (_, k) => send(alone, k));
    const b = Array.from({ length: 12 }, (_, k) => send(batched, k));
    const soloResults = [];
    for (const input of a) soloResults.push(await createTask(env.db, undefined, input));
    const batchResults = await answers(createTaskBatch(env.db, b));
    for (let k = 0; k < 12; k++) {
      const norm = (r: (typeof batchResults)[number]) => {
        if (!r.created) return r;
        const t: Partial<TaskRecord> = { ...r.task };
        for (const f of [
          'tenantId',
          'id',
          'contextId',
          'statusTimestamp',
          'createdAt',
          'updatedAt',
          'runAfter',
        ] as const)
          delete t[f];
        return { created: true, task: t };
      };
      expect(norm(batchResults[k]!)).toEqual(norm(soloResults[k]!));
      expect(batchResults[k]).toMatchObject({ created: true, task: { id: b[k]!.id } });
      expect(await written(batched, b[k]!.id)).toEqual(await written(alone, a[k]!.id));
    }
  });

  it('a messageId seen before, or earlier in the same batch, answers with the first send’s task', async () => {
    const t = tenant();
    const seen = randomUUID();
    const first = await createTask(env.db, undefined, send(t, 0, seen));
    const twice = randomUUID();
    const results = await answers(
      createTaskBatch(env.db, [
        send(t, 1, seen),
        send(t, 2, twice),
        send(t, 3),
        { ...send(t, 4, twice), owner: 'bob' },
      ]),
    );
    const second = results[1]!;
    if (!first.created || !second.created) throw new Error('expected new tasks');
    expect(results[0]).toEqual({ created: false, taskId: first.task.id, principal: 'alice' });
    expect(results[2]).toMatchObject({ created: true });
    expect(results[3]).toEqual({ created: false, taskId: second.task.id, principal: 'alice' });
    const tasks = await env.db.selectFrom('tasks').select('id').where('tenant_id', '=', t).execute();
    expect(tasks).toHaveLength(3);
  });

  it('retried sends racing through the store: one task per messageId, every caller told which', async () => {
    const t = tenant();
    const ids = Array.from({ length: 10 }, () => randomUUID());
    const results = await Promise.all(
      [...ids, ...ids, ...ids].map((messageId, k) => env.store.createTask(send(t, k, messageId))),
    );
    const created = results.filter((r) => r.created);
    expect(created).toHaveLength(10);
    const taskOf = new Map<string, string>();
    [...ids, ...ids, ...ids].forEach((messageId, k) => {
      const r = results[k]!;
      const taskId = r.created ? r.task.id : r.taskId;
      expect(taskOf.get(messageId) ?? taskId).toBe(taskId);
      taskOf.set(messageId, taskId);
    });
    const rows = await env.db.selectFrom('tasks').select('id').where('tenant_id', '=', t).execute();
    expect(rows).toHaveLength(10);
  });

  it('two gateways’ batches with the same retried sends in opposite orders: no deadlock, one task each', async () => {
    const pools = [0, 1].map(() => new pg.Pool({ connectionString: env.testDb.url, max: 2 }));
    try {
      const dbs = pools.map((pool) => createDb(pool));
      const t = tenant();
      for (let round = 0; round < 5; round++) {
        const messageIds = Array.from({ length: 20 }, () => randomUUID());
        const [a, b] = await Promise.all([
          answers(
            createTaskBatch(
              dbs[0]!,
              messageIds.map((m, k) => send(t, k, m)),
            ),
          ),
          answers(
            createTaskBatch(
              dbs[1]!,
              [...messageIds].reverse().map((m, k) => send(t, k, m)),
            ),
          ),
        ]);
        const bByMessage = new Map([...messageIds].reverse().map((m, k) => [m, b[k]!]));
        messageIds.forEach((m, k) => {
          const pair = [a[k]!, bByMessage.get(m)!];
          expect(pair.filter((r) => r.created)).toHaveLength(1);
          const ids = pair.map((r) => (r.created ? r.task.id : r.taskId));
          expect(ids[0]).toBe(ids[1]);
        });
      }
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });

  it('refuses a batch that mixes tenants or carries a push config', async () => {
    const t = tenant();
    await expect(createTaskBatch(env.db, [send(t, 1), send(tenant(), 2)])).rejects.toThrow(/one tenant/);
    await expect(
      createTaskBatch(env.db, [
        send(t, 1),
        { ...send(t, 2), pushConfig: { url: 'https://hooks.example/1' } },
      ]),
    ).rejects.toThrow(/push config/);
  });
});
