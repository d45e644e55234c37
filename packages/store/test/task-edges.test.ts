import { canTransition, TaskState } from '@switchyard/protocol';
import { describe, expect, it } from 'vitest';
import { ConflictError } from '../src/errors.ts';
import { eventSeqs, newTask, statusEvent, taskInState, tenant, useTaskTestEnv } from './task-fixtures.ts';

const env = useTaskTestEnv();

/** Every state a task can be in (UNSPECIFIED is never one, and never a target either). */
const STATES = Object.values(TaskState);
const REAL = STATES.filter((s) => s !== TaskState.UNSPECIFIED);
const pairs = REAL.flatMap((from) => STATES.map((to) => [from, to] as const));
const illegal = pairs.filter(([from, to]) => !canTransition(from, to));
const legal = pairs.filter(([from, to]) => canTransition(from, to));

describe('the store holds the transition table itself (ARCHITECTURE §3 rule 2)', () => {
  it.each(illegal)(
    'refuses %s → %s at the right version, whatever guard the caller gave',
    async (from, to) => {
      const t = tenant();
      const task = await taskInState(env.store, newTask(t), from);
      const attempt = (fromStates?: TaskState[]) =>
        env.store.changeTask({
          tenantId: t,
          taskId: task.id,
          expectedVersion: task.version,
          ...(fromStates ? { fromStates } : {}),
          patch: { state: to },
          event: statusEvent(task, to),
        });
      await expect(attempt()).rejects.toBeInstanceOf(ConflictError);
      await expect(attempt([from])).rejects.toBeInstanceOf(ConflictError);
      const after = await env.store.getTaskRecord(t, task.id);
      expect(after).toMatchObject({ state: from, version: task.version });
      expect(await eventSeqs(env.db, t, task.id)).toHaveLength(task.version);
    },
  );

  it.each(legal)('takes %s → %s', async (from, to) => {
    const t = tenant();
    const task = await taskInState(env.store, newTask(t), from);
    const changed = await env.store.changeTask({
      tenantId: t,
      taskId: task.id,
      expectedVersion: task.version,
      patch: { state: to },
      event: statusEvent(task, to),
    });
    expect(changed).toMatchObject({ state: to, version: task.version + 1 });
  });

  it('refuses an illegal edge in a run ending too (the batched statement)', async () => {
    const t = tenant();
    const task = await taskInState(env.store, newTask(t), TaskState.SUBMITTED);
    const claimed = await env.store.claimTask({
      tenantId: t,
      taskId: task.id,
      workerId: 'w1',
      leaseMs: 60_000,
    });
    const lease = claimed!.task.leaseOwner!;
    const version = claimed!.task.version;
    await expect(
      env.store.changeTask({
        tenantId: t,
        taskId: task.id,
        expectedVersion: version,
        fromStates: [TaskState.WORKING],
        leaseOwner: lease,
        patch: { state: TaskState.SUBMITTED, statusMessage: null, clearLease: true },
        event: statusEvent(task, TaskState.SUBMITTED),
      }),
    ).rejects.toBeInstanceOf(ConflictError);
    expect(await env.store.getTaskRecord(t, task.id)).toMatchObject({ state: TaskState.WORKING, version });
  });
});
