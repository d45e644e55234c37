import { TaskState } from '@switchyard/protocol';
import { describe, expect, it } from 'vitest';
import type { TaskRecord } from '../src/task-store.ts';
import { createdTask, lapseLease, newTask, statusEvent, tenant, useTaskTestEnv } from './task-fixtures.ts';

// A cancel keeps the lease its run held; the run releases it once its agent has stopped, and a
// lease never released is handed to one notifier, who tells the agent (take-cancel-notice.ts).
const env = useTaskTestEnv();

/** A task claimed by `workerId` (a run that may be dead), then canceled as CancelTask writes it. */
async function canceledWhileLeased(t: string, workerId = 'w1'): Promise<TaskRecord & { leaseOwner: string }> {
  const task = await createdTask(env.store, newTask(t));
  const claimed = await env.store.claimTask({ tenantId: t, taskId: task.id, workerId, leaseMs: 60_000 });
  const canceled = await env.store.changeTask({
    tenantId: t,
    taskId: task.id,
    expectedVersion: 'any',
    fromStates: [TaskState.SUBMITTED, TaskState.WORKING],
    patch: { state: TaskState.CANCELED, statusMessage: null },
    event: statusEvent(task, TaskState.CANCELED),
  });
  expect(canceled.leaseOwner).toBe(claimed!.task.leaseOwner);
  return { ...canceled, leaseOwner: canceled.leaseOwner! };
}

const take = (task: TaskRecord, leaseOwner: string, notifier: string, unheardAfterMs = 0) =>
  env.store.takeCancelNotice({
    tenantId: task.tenantId,
    taskId: task.id,
    leaseOwner,
    notifier,
    leaseMs: 60_000,
    unheardAfterMs,
  });

describe('takeCancelNotice', () => {
  it('takes a canceled task’s lease only once it lapsed, and past the grace', async () => {
    const task = await canceledWhileLeased(tenant());
    expect(await take(task, task.leaseOwner, 'n1/a')).toBe(false);
    await lapseLease(env.db, task.tenantId, task.id);
    expect(await take(task, task.leaseOwner, 'n1/a', 60_000)).toBe(false);
    expect(await take(task, task.leaseOwner, 'n1/a')).toBe(true);
    const after = await env.store.getTaskRecord(task.tenantId, task.id);
    expect(after).toMatchObject({ state: TaskState.CANCELED, leaseOwner: 'n1/a', version: task.version });
    expect(after!.leaseExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 30_000);
  });

  it('of notifiers racing on one lease, exactly one takes it', async () => {
    const task = await canceledWhileLeased(tenant());
    await lapseLease(env.db, task.tenantId, task.id);
    const taken = await Promise.all(
      Array.from({ length: 10 }, (_, k) => take(task, task.leaseOwner, `n${k}/a`)),
    );
    expect(taken.filter(Boolean)).toHaveLength(1);
  });

  it('a run that released the lease (it heard the cancel) leaves nothing to take; a run that comes back after the take releases nothing', async () => {
    const heard = await canceledWhileLeased(tenant());
    const release = (task: TaskRecord, leaseOwner: string) =>
      env.store.releaseLease({ tenantId: task.tenantId, taskId: task.id, leaseOwner, refundAttempt: false });
    expect(await release(heard, heard.leaseOwner)).toBe(true);
    await lapseLease(env.db, heard.tenantId, heard.id);
    expect(await take(heard, heard.leaseOwner, 'n1/a')).toBe(false);

    const unheard = await canceledWhileLeased(tenant());
    await lapseLease(env.db, unheard.tenantId, unheard.id);
    expect(await take(unheard, unheard.leaseOwner, 'n1/a')).toBe(true);
    expect(await release(unheard, unheard.leaseOwner)).toBe(false);
    // The notifier's lease lapses if it dies while telling the agent: the next notifier takes it.
    await lapseLease(env.db, unheard.tenantId, unheard.id);
    expect(await take(unheard, 'n1/a', 'n2/a')).toBe(true);
    expect(await release(unheard, 'n2/a')).toBe(true);
    expect((await env.store.getTaskRecord(unheard.tenantId, unheard.id))?.leaseOwner).toBeNull();
  });

  it('takes no live or completed task’s lease', async () => {
    const t = tenant();
    const live = await createdTask(env.store, newTask(t));
    const claimed = await env.store.claimTask({
      tenantId: t,
      taskId: live.id,
      workerId: 'w1',
      leaseMs: 60_000,
    });
    await lapseLease(env.db, t, live.id);
    expect(await take(live, claimed!.task.leaseOwner!, 'n1/a')).toBe(false);
    const completed = await env.store.changeTask({
      tenantId: t,
      taskId: live.id,
      expectedVersion: claimed!.task.version,
      fromStates: [TaskState.WORKING],
      patch: { state: TaskState.COMPLETED, statusMessage: null },
      event: statusEvent(live, TaskState.COMPLETED),
    });
    expect(completed.leaseOwner).toBe(claimed!.task.leaseOwner);
    expect(await take(live, claimed!.task.leaseOwner!, 'n1/a')).toBe(false);
  });
});

describe('releaseLease on a canceled task', () => {
  it('a hand-back (refundAttempt) leaves the lease, the mark that the agent never heard; the run’s own release clears it', async () => {
    const task = await canceledWhileLeased(tenant());
    const input = { tenantId: task.tenantId, taskId: task.id, leaseOwner: task.leaseOwner };
    expect(await env.store.releaseLease({ ...input, refundAttempt: true })).toBe(false);
    expect((await env.store.getTaskRecord(task.tenantId, task.id))?.leaseOwner).toBe(task.leaseOwner);
    expect(await env.store.releaseLease({ ...input, refundAttempt: false })).toBe(true);
    expect((await env.store.getTaskRecord(task.tenantId, task.id))?.leaseOwner).toBeNull();
  });
});
