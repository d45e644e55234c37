import { TaskState, type StreamResponse } from '@switchyard/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskRecord } from '../src/task-store.ts';
import { claimTasks } from '../src/tasks/claim-task.ts';
import { endRunBatch } from '../src/tasks/end-runs.ts';
import {
  agentMessage,
  createdTask,
  lapseLease,
  newTask,
  openTaskTestEnv,
  tenant,
  type TaskTestEnv,
} from './task-fixtures.ts';

// One transition, one timestamp: the row's status time is the one its event carries, so GetTask,
// ListTasks, streams and webhooks agree (the row used to take the database's clock and the event
// the writer's, a millisecond or so apart). Each event here is stamped a few seconds in the past,
// at an odd millisecond, so a row that took now() instead would show.

let env: TaskTestEnv;
beforeAll(async () => {
  env = await openTaskTestEnv();
});
afterAll(async () => {
  await env.testDb.drop();
});

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
    const stamps = [past(), past(), past()];
    const batched = await Promise.all(stamps.map((at) => createdTask(env.store, createdAt(t, at))));
    const withHook = await createdTask(env.store, {
      ...createdAt(t, stamps[0]!),
      pushConfig: { url: 'https://hooks.example/a' },
    });
    for (const [k, task] of batched.entries())
      expect(await rowAndEvent(t, task.id)).toEqual({ row: stamps[k], event: stamps[k] });
    expect(await rowAndEvent(t, withHook.id)).toEqual({ row: stamps[0], event: stamps[0] });
  });

  it('on a change, and on run endings written together', async () => {
    const t = tenant();
    const tasks = await Promise.all([1, 2, 3].map(() => createdTask(env.store, newTask(t))));
    const claims = await claimTasks(
      env.db,
      tasks.map((task) => ({ tenantId: t, taskId: task.id, workerId: 'w1', leaseMs: 60_000 })),
    );
    const running = claims.map((c) => c!.task);
    const progress = past();
    const changed = await env.store.changeTask({
      tenantId: t,
      taskId: running[0]!.id,
      expectedVersion: running[0]!.version,
      leaseOwner: running[0]!.leaseOwner!,
      patch: { statusMessage: agentMessage('halfway') },
      event: statusAt(running[0]!, TaskState.WORKING, progress),
    });
    expect(await rowAndEvent(t, changed.id)).toEqual({ row: progress, event: progress });
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
    for (const { task, at } of endings) expect(await rowAndEvent(t, task.id)).toEqual({ row: at, event: at });
  });

  it('when the reaper fails a task whose lease lapsed', async () => {
    const t = tenant();
    const task = await createdTask(env.store, newTask(t));
    const [claim] = await claimTasks(env.db, [
      { tenantId: t, taskId: task.id, workerId: 'w1', leaseMs: 60_000 },
    ]);
    await lapseLease(env.db, t, task.id);
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
    expect(await rowAndEvent(t, task.id)).toEqual({ row: at, event: at });
  });

  it('takes the database clock for an event without a usable time', async () => {
    const t = tenant();
    const input = newTask(t);
    input.event = {
      task: {
        id: input.id,
        contextId: input.contextId,
        status: { state: TaskState.SUBMITTED, timestamp: 'not a time' },
      },
    };
    const before = Date.now();
    const task = await createdTask(env.store, input);
    expect(task.statusTimestamp.getTime()).toBeGreaterThanOrEqual(before - 1_000);
  });
});
