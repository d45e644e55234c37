import { randomUUID } from 'node:crypto';
import { TaskState } from '@switchyard/protocol';
import { describe, expect, it } from 'vitest';
import { ConflictError } from '../src/errors.ts';
import type { ChangeTaskInput, TaskRecord } from '../src/task-store.ts';
import { changeTask } from '../src/tasks/change-task.ts';
import { claimTasks } from '../src/tasks/claim-task.ts';
import { endRunBatch, endRuns, isRunEnding } from '../src/tasks/end-runs.ts';
import { agentMessage, createdTask, newTask, useTaskTestEnv, statusEvent, tenant } from './task-fixtures.ts';

const env = useTaskTestEnv();

const WORKER = 'w1';

/** Tasks of a tenant, claimed by WORKER: half made visible at creation, a third with a webhook. */
async function runningTasks(tenantId: string, count: number): Promise<TaskRecord[]> {
  const tasks = [];
  for (let k = 0; k < count; k++)
    tasks.push(
      await createdTask(
        env.store,
        newTask(tenantId, {
          visibility: k % 2 === 0 ? 'task' : 'pending',
          ...(k % 3 === 0 ? { pushConfig: { id: 'c1', url: 'https://hooks.example/1' } } : {}),
        }),
      ),
    );
  const claims = await claimTasks(
    env.db,
    tasks.map((t) => ({ tenantId, taskId: t.id, workerId: WORKER, leaseMs: 60_000 })),
  );
  return claims.map((c) => c!.task);
}

/** The k-th kind of ending a worker writes: with or without a last chunk, message, visibility. */
function ending(task: TaskRecord, k: number): ChangeTaskInput {
  const state = [TaskState.COMPLETED, TaskState.FAILED, TaskState.INPUT_REQUIRED][k % 3]!;
  const message = k % 2 === 0 ? agentMessage(`ending ${k}`) : null;
  const chunk =
    k % 4 < 2
      ? {
          artifactId: `a${k}`,
          append: false,
          lastChunk: true,
          name: k % 8 === 0 ? 'named' : undefined,
          parts: [{ text: `chunk ${k}` }],
          ...(k % 8 === 0 ? { metadata: { k }, extensions: ['https://ext.example/x'] } : {}),
        }
      : undefined;
  return {
    tenantId: task.tenantId,
    taskId: task.id,
    expectedVersion: task.version,
    fromStates: [TaskState.WORKING],
    leaseOwner: task.leaseOwner!,
    patch: {
      state,
      statusMessage: message,
      clearLease: true,
      ...(task.visibility === 'pending' ? { visibility: 'task' as const } : {}),
    },
    event: statusEvent(task, state, message ?? undefined),
    ...(chunk
      ? {
          precededBy: {
            artifactChunk: chunk,
            event: {
              artifactUpdate: {
                taskId: task.id,
                contextId: task.contextId,
                artifact: { artifactId: chunk.artifactId, parts: chunk.parts },
                lastChunk: true,
              },
            },
          },
        }
      : {}),
  };
}

/** Everything a change writes for a task, with the task's own id and times taken out. */
async function written(tenantId: string, taskId: string) {
  const where = { tenant_id: tenantId, task_id: taskId };
  const strip = <T extends Record<string, unknown>>(rows: T[]) =>
    rows.map(({ tenant_id: _t, task_id: _i, created_at: _c, ...rest }) => rest);
  const [task] = await env.db
    .selectFrom('tasks')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', taskId)
    .execute();
  const {
    tenant_id: _t,
    id: _i,
    context_id: _c,
    created_at: _ca,
    updated_at: _u,
    status_timestamp: _s,
    run_after: _r,
    ...row
  } = task!;
  const sameTask = (v: unknown) =>
    JSON.parse(JSON.stringify(v).replaceAll(taskId, 'TASK').replaceAll(task!.context_id, 'CTX'));
  const events = await env.db
    .selectFrom('task_events')
    .select(['seq', 'kind', 'payload'])
    .where('tenant_id', '=', where.tenant_id)
    .where('task_id', '=', where.task_id)
    .orderBy('seq')
    .execute();
  const chunks = await env.db
    .selectFrom('artifact_chunks')
    .selectAll()
    .where('tenant_id', '=', where.tenant_id)
    .where('task_id', '=', where.task_id)
    .orderBy('seq')
    .execute();
  const deliveries = await env.db
    .selectFrom('push_deliveries')
    .select(['config_id', 'seq', 'status'])
    .where('tenant_id', '=', where.tenant_id)
    .where('task_id', '=', where.task_id)
    .orderBy('seq')
    .execute();
  // Message ids and status timestamps are made afresh by each ending(): equal in kind, not value.
  return stripTimestamps(sameTask({ row, events, chunks: strip(chunks), deliveries }));
}

function stripTimestamps(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v, (k, x: unknown) => (k === 'timestamp' || k === 'messageId' ? 'T' : x)));
}

describe('endRuns: a worker’s run endings in one statement', () => {
  it('writes for each ending exactly what changeTask writes for it alone', async () => {
    const [alone, batched] = [tenant(), tenant()];
    const a = await runningTasks(alone, 16);
    const b = await runningTasks(batched, 16);
    const soloRecords = [];
    for (const [k, task] of a.entries()) soloRecords.push(await changeTask(env.db, ending(task, k)));
    const batchRecords = await endRuns(
      env.db,
      b.map((task, k) => ending(task, k)),
    );
    for (let k = 0; k < 16; k++) {
      const record = batchRecords[k] as TaskRecord;
      expect(record).not.toBeInstanceOf(Error);
      const norm = (r: TaskRecord) => ({
        ...r,
        tenantId: '',
        id: '',
        contextId: '',
        statusTimestamp: 0,
        updatedAt: 0,
        createdAt: 0,
        runAfter: 0,
        statusMessage: r.statusMessage ? 'set' : null,
      });
      expect(norm(record)).toEqual(norm(soloRecords[k]!));
      expect(await written(batched, b[k]!.id)).toEqual(await written(alone, a[k]!.id));
    }
  });

  it('answers a ConflictError where its own guard fails, and writes the rest', async () => {
    const t = tenant();
    const tasks = await runningTasks(t, 5);
    const inputs = tasks.map((task, k) => ending(task, k));
    inputs[1] = { ...inputs[1]!, expectedVersion: tasks[1]!.version - 1 }; // stale version
    // Another claim's lease token (a stale run of the same worker counts as another owner).
    inputs[2] = { ...inputs[2]!, leaseOwner: `${WORKER}/someone-else` };
    const results = await endRunBatch(env.db, [
      inputs[0]!,
      inputs[1]!,
      inputs[2]!,
      inputs[3]!,
      { ...inputs[4]!, taskId: 'not-a-uuid' },
      { ...inputs[4]!, taskId: randomUUID() },
    ]);
    expect(
      results.map((r) =>
        r instanceof Error ? (r instanceof ConflictError ? 'conflict' : r.message) : r.state,
      ),
    ).toEqual([TaskState.COMPLETED, 'conflict', 'conflict', TaskState.COMPLETED, 'conflict', 'conflict']);
    expect((await env.store.getTaskRecord(t, tasks[1]!.id))?.state).toBe(TaskState.WORKING);
    expect((await env.store.getTaskRecord(t, tasks[2]!.id))?.state).toBe(TaskState.WORKING);
  });

  it('runs a second ending of a task after the batch, alone, where it conflicts as it would in turn', async () => {
    const t = tenant();
    const [task] = await runningTasks(t, 1);
    const results = await endRunBatch(env.db, [ending(task!, 0), ending(task!, 1)]);
    expect(results[0]).toMatchObject({ state: TaskState.COMPLETED });
    expect(results[1]).toBeInstanceOf(ConflictError);
  });

  it('refuses changes that are not run endings of one tenant', async () => {
    const t = tenant();
    const [task] = await runningTasks(t, 1);
    const end = ending(task!, 0);
    expect(isRunEnding(end)).toBe(true);
    expect(isRunEnding({ ...end, patch: { ...end.patch, metadata: {} } })).toBe(false);
    expect(isRunEnding({ ...end, expectedVersion: 'any' })).toBe(false);
    expect(isRunEnding({ ...end, patch: { ...end.patch, statusMessage: undefined } })).toBe(false);
    await expect(
      endRuns(env.db, [end, { ...end, taskId: randomUUID(), tenantId: tenant() }]),
    ).rejects.toThrow(/run ending/);
  });

  it('an ending Postgres refuses fails alone; the endings that shared its statement are written', async () => {
    const t = tenant();
    const tasks = await runningTasks(t, 6);
    const inputs = tasks.map((task, k) => ending(task, k));
    // jsonb holds no U+0000: an agent's status message with one cannot be stored.
    inputs[3] = { ...inputs[3]!, patch: { ...inputs[3]!.patch, statusMessage: agentMessage('nul \u0000') } };
    const outcomes = await Promise.allSettled(inputs.map((input) => env.store.changeTask(input)));
    expect(outcomes.map((o) => o.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    expect((await env.store.getTaskRecord(t, tasks[3]!.id))?.state).toBe(TaskState.WORKING);
  });

  it('endings racing cancels through the store: each task ends once, its log without gaps', async () => {
    const t = tenant();
    const tasks = await runningTasks(t, 24);
    const outcomes = await Promise.allSettled(
      tasks.flatMap((task, k) => [
        env.store.changeTask(ending(task, 0)),
        ...(k % 2 === 0
          ? [
              env.store.changeTask({
                tenantId: t,
                taskId: task.id,
                expectedVersion: 'any',
                fromStates: [TaskState.SUBMITTED, TaskState.WORKING, TaskState.INPUT_REQUIRED],
                patch: { state: TaskState.CANCELED, clearLease: true },
                event: statusEvent(task, TaskState.CANCELED),
              }),
            ]
          : []),
      ]),
    );
    for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(ConflictError);
    for (const [k, task] of tasks.entries()) {
      const record = await env.store.getTaskRecord(t, task.id);
      expect([TaskState.COMPLETED, TaskState.CANCELED]).toContain(record!.state);
      if (k % 2 === 1) expect(record!.state).toBe(TaskState.COMPLETED);
      const seqs = (await env.store.readEvents(t, task.id, 0)).map((e) => e.seq);
      expect(seqs).toEqual(Array.from({ length: record!.version }, (_, i) => i + 1));
    }
  });
});
