import { TaskState, type StreamResponse } from '@switchyard/protocol';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { TaskRecord } from '../src/task-store.ts';
import { claimTasks } from '../src/tasks/claim-task.ts';
import { endRunBatch } from '../src/tasks/end-runs.ts';
import { agentMessage, createdTask, lapseLease, newTask, useTaskTestEnv, tenant } from './task-fixtures.ts';

// One transition, one timestamp, from the database clock: a status change stores the commit's
// time as the row's status time and writes the same time into its event, so GetTask, ListTasks,
// streams and webhooks agree (the row used to take the database's clock and the event the
// writer's, a millisecond or so apart), and a writer whose clock runs behind cannot date a status
// before the one it follows. Each event here comes stamped a few seconds in the past, as from
// such a writer; the stored one must carry the database's time instead.

const env = useTaskTestEnv();

let offset = 0;
/** A distinct past instant per call, as its ISO form. */
const past = () => new Date(Date.now() - 5_000 - ++offset * 7).toISOString();

const statusAt = (
  task: Pick<TaskRecord, 'id' | 'contextId'>,
  state: TaskState,
  at: string,
): StreamResponse => ({
  statusUpdate: {
    taskId: task.id,
    contextId: task.contextId,
    status: { state, message: agentMessage(state), timestamp: at },
  },
});

async function rowAndEvent(tenantId: string, taskId: string) {
  const record = (await env.store.getTaskRecord(tenantId, taskId))!;
  const events = await env.store.readEvents(tenantId, taskId, 0, 100);
  const last = events.at(-1)!.payload;
  const eventAt = last.statusUpdate?.status.timestamp ?? last.task?.status.timestamp;
  return { row: record.statusTimestamp.toISOString(), event: eventAt };
}

/** The database's clock now, to the millisecond. */
async function dbNow(): Promise<number> {
  const { rows } = await sql<{ t: Date }>`SELECT now() AS t`.execute(env.db);
  return rows[0]!.t.getTime();
}

/** The row and its event agree, on a time the database's clock gave between `from` and now. */
async function expectDatabaseTime(tenantId: string, taskId: string, from: number) {
  const { row, event } = await rowAndEvent(tenantId, taskId);
  expect(event).toBe(row);
  const at = Date.parse(row);
  expect(at).toBeGreaterThanOrEqual(from - 1);
  expect(at).toBeLessThanOrEqual(await dbNow());
}

function createdAt(tenantId: string, at: string) {
  const input = newTask(tenantId);
  input.event = {
    task: { id: input.id, contextId: input.contextId, status: { state: TaskState.SUBMITTED, timestamp: at } },
  };
  return input;
}

describe('a status change and its event carry one timestamp', () => {
  it('on a create, alone, batched with others, and with a webhook', async () => {
    const t = tenant();
    const from = await dbNow();
    const stamps = [past(), past(), past()];
    const batched = await Promise.all(stamps.map((at) => createdTask(env.store, createdAt(t, at))));
    const withHook = await createdTask(env.store, {
      ...createdAt(t, stamps[0]!),
      pushConfig: { url: 'https://hooks.example/a' },
    });
    for (const task of [...batched, withHook]) await expectDatabaseTime(t, task.id, from);
  });

  it('on a change, and on run endings written together', async () => {
    const t = tenant();
    const tasks = await Promise.all([1, 2, 3].map(() => createdTask(env.store, newTask(t))));
    const claims = await claimTasks(
      env.db,
      tasks.map((task) => ({ tenantId: t, taskId: task.id, workerId: 'w1', leaseMs: 60_000 })),
    );
    const running = claims.map((c) => c!.task);
    const from = await dbNow();
    const progress = past();
    const changed = await env.store.changeTask({
      tenantId: t,
      taskId: running[0]!.id,
      expectedVersion: running[0]!.version,
      leaseOwner: running[0]!.leaseOwner!,
      patch: { statusMessage: agentMessage('halfway') },
      event: statusAt(running[0]!, TaskState.WORKING, progress),
    });
    await expectDatabaseTime(t, changed.id, from);
    const endings = [changed, running[1]!, running[2]!].map((task) => ({ task, at: past() }));
    const results = await endRunBatch(
      env.db,
      endings.map(({ task, at }) => ({
        tenantId: t,
        taskId: task.id,
        expectedVersion: task.version,
        fromStates: [TaskState.WORKING],
        leaseOwner: task.leaseOwner!,
        patch: { state: TaskState.COMPLETED, statusMessage: agentMessage('done'), clearLease: true },
        event: statusAt(task, TaskState.COMPLETED, at),
      })),
    );
    expect(results.every((r) => !(r instanceof Error))).toBe(true);
    for (const { task } of endings) await expectDatabaseTime(t, task.id, from);
  });

  it('when the reaper fails a task whose lease lapsed', async () => {
    const t = tenant();
    const task = await createdTask(env.store, newTask(t));
    const [claim] = await claimTasks(env.db, [
      { tenantId: t, taskId: task.id, workerId: 'w1', leaseMs: 60_000 },
    ]);
    await lapseLease(env.db, t, task.id);
    const from = await dbNow();
    const at = past();
    const outcome = await env.store.recoverLapsedLease({
      tenantId: t,
      taskId: task.id,
      leaseOwner: claim!.task.leaseOwner!,
      maxAttempts: 1,
      backoffMs: () => 0,
      failEvent: (seen) => ({
        statusMessage: agentMessage('the worker stopped responding'),
        event: statusAt(seen, TaskState.FAILED, at),
      }),
    });
    expect(outcome.outcome).toBe('failed');
    await expectDatabaseTime(t, task.id, from);
  });

  it('leaves the time of an event whose change sets no new status as it was given', async () => {
    const t = tenant();
    const task = await createdTask(env.store, newTask(t, { visibility: 'pending' }));
    // The upgrade of a pending request announces the status it has, with that status's own time.
    const own = task.statusTimestamp.toISOString();
    await env.store.changeTask({
      tenantId: t,
      taskId: task.id,
      expectedVersion: task.version,
      patch: { visibility: 'task' },
      event: statusAt(task, TaskState.SUBMITTED, own),
    });
    expect(await rowAndEvent(t, task.id)).toEqual({ row: own, event: own });
  });
});

describe("each task's status times strictly increase", () => {
  /** The row's status time moved an hour ahead: as if the status before was committed by a
   * transaction that started after this one's (a cancel waits for the row lock, then writes). */
  async function statusAheadByAnHour(tenantId: string, taskId: string): Promise<number> {
    const { rows } = await sql<{ t: Date }>`
      UPDATE tasks SET status_timestamp = date_trunc('milliseconds', now()) + interval '1 hour'
       WHERE tenant_id = ${tenantId} AND id = ${taskId} RETURNING status_timestamp AS t`.execute(env.db);
    return rows[0]!.t.getTime();
  }

  it('a cancel (any version) after a status stamped later than its own start is a millisecond after it', async () => {
    const t = tenant();
    const task = await createdTask(env.store, newTask(t));
    const before = await statusAheadByAnHour(t, task.id);
    await env.store.changeTask({
      tenantId: t,
      taskId: task.id,
      expectedVersion: 'any',
      fromStates: [TaskState.SUBMITTED],
      patch: { state: TaskState.CANCELED },
      event: statusAt(task, TaskState.CANCELED, past()),
    });
    const { row, event } = await rowAndEvent(t, task.id);
    expect(Date.parse(row)).toBe(before + 1);
    expect(event).toBe(row);
  });

  it('so do a claim, a run ending and a lapsed-lease failure', async () => {
    const t = tenant();
    const task = await createdTask(env.store, newTask(t));
    let before = await statusAheadByAnHour(t, task.id);
    const [claim] = await claimTasks(env.db, [
      { tenantId: t, taskId: task.id, workerId: 'w', leaseMs: 60_000 },
    ]);
    expect(claim!.task.statusTimestamp.getTime()).toBe(before + 1);
    before = await statusAheadByAnHour(t, task.id);
    const [ended] = await endRunBatch(env.db, [
      {
        tenantId: t,
        taskId: task.id,
        expectedVersion: claim!.task.version,
        fromStates: [TaskState.WORKING],
        leaseOwner: claim!.task.leaseOwner!,
        patch: { state: TaskState.INPUT_REQUIRED, statusMessage: agentMessage('which?'), clearLease: true },
        event: statusAt(claim!.task, TaskState.INPUT_REQUIRED, past()),
      },
    ]);
    expect((ended as TaskRecord).statusTimestamp.getTime()).toBe(before + 1);
    const second = await createdTask(env.store, newTask(t));
    const [held] = await claimTasks(env.db, [
      { tenantId: t, taskId: second.id, workerId: 'w', leaseMs: 60_000 },
    ]);
    await lapseLease(env.db, t, second.id);
    before = await statusAheadByAnHour(t, second.id);
    const outcome = await env.store.recoverLapsedLease({
      tenantId: t,
      taskId: second.id,
      leaseOwner: held!.task.leaseOwner!,
      maxAttempts: 1,
      backoffMs: () => 0,
      failEvent: (seen) => {
        const message = agentMessage('gone');
        return { statusMessage: message, event: statusAt(seen, TaskState.FAILED, past()) };
      },
    });
    expect(outcome.outcome).toBe('failed');
    expect((await env.store.getTaskRecord(t, second.id))!.statusTimestamp.getTime()).toBe(before + 1);
  });
});
