import { isDeepStrictEqual } from 'node:util';
import { TaskState } from '@switchyard/protocol';
import {
  countDeadLettersByTenant,
  countQueuedByTenant,
  findTaskTenants,
  PostgresConsoleStore,
} from '@switchyard/store';
import { waitFor } from '@switchyard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTimeline } from '../src/timeline/load-timeline.ts';
import { startConsoleHarness, type ConsoleHarness } from './support/console-harness.ts';

// The console's store queries (packages/store/src/console) on a real platform: tasks created the
// way clients create them and run by a real in-process worker.
let h: ConsoleHarness;
let reads: PostgresConsoleStore;

beforeAll(async () => {
  h = await startConsoleHarness();
  reads = new PostgresConsoleStore({ db: h.kdb });
  h.startWorker();
});
afterAll(async () => {
  await h.close();
});

async function settled(tenantId: string, taskId: string, state: string) {
  return waitFor(
    async () => {
      const r = await h.tasks.getTaskRecord(tenantId, taskId);
      return r?.state === state ? r : null;
    },
    { what: `task ${taskId} ${state}` },
  );
}

describe('history, chunks and the timeline', () => {
  let taskId: string;
  beforeAll(async () => {
    taskId = (await h.send('acme', 'invoice-reconciler', 'reconcile the sample invoices')).id;
    await settled('acme', taskId, TaskState.INPUT_REQUIRED);
  });

  it('lists history messages with their storage time, after a position', async () => {
    const all = await reads.listTaskMessages('acme', taskId);
    expect(all.map((m) => [m.position, m.message.role])).toEqual([[0, 'ROLE_USER']]);
    expect(all[0]?.createdAt).toBeInstanceOf(Date);
    expect(await reads.listTaskMessages('acme', taskId, { afterPosition: 0 })).toEqual([]);
    expect(await reads.listTaskMessages('globex', taskId)).toEqual([]);
    expect(await reads.listTaskMessages('acme', 'not-a-uuid')).toEqual([]);
  });

  it('lists artifact chunks in seq order', async () => {
    const chunks = await reads.listArtifactChunks('acme', taskId);
    expect(chunks.length).toBe(3);
    expect(chunks.map((c) => c.append)).toEqual([false, true, true]);
    expect(chunks.at(-1)?.lastChunk).toBe(true);
    expect([...chunks.map((c) => c.seq)].sort((a, b) => a - b)).toEqual(chunks.map((c) => c.seq));
  });

  it('composes the timeline from the log, the history and the chunks', async () => {
    const timeline = await loadTimeline(h.console.services, 'acme', taskId);
    const kinds = timeline?.entries.map((e) => e.kind) ?? [];
    expect(kinds.slice(0, 2)).toEqual(['created', 'message']);
    expect(kinds.filter((k) => k === 'artifact')).toHaveLength(3);
    expect(timeline?.entries.at(-1)?.state).toBe(TaskState.INPUT_REQUIRED);
    expect(timeline?.lastSeq).toBe(timeline?.record.version);
    const keys = timeline?.entries.map((e) => e.key) ?? [];
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("lists the question a continuation moved into the history once, as the task's status", async () => {
    const asked = (await h.send('acme', 'invoice-reconciler', 'reconcile them again')).id;
    await settled('acme', asked, TaskState.INPUT_REQUIRED);
    await h.send('acme', 'invoice-reconciler', 'yes', { taskId: asked });
    await settled('acme', asked, TaskState.COMPLETED);
    const history = await reads.listTaskMessages('acme', asked);
    expect(history.map((m) => m.message.role)).toEqual(['ROLE_USER', 'ROLE_AGENT', 'ROLE_USER']);
    const timeline = await loadTimeline(h.console.services, 'acme', asked);
    // The question shows as the INPUT_REQUIRED status entry, not again as a history message.
    const messages = (timeline?.entries ?? []).filter((e) => e.kind === 'message');
    expect(messages.map((e) => e.role)).toEqual(['ROLE_USER', 'ROLE_USER']);
    const question = history[1]!.message.parts;
    expect(
      (timeline?.entries ?? []).filter((e) => e.kind === 'status' && isDeepStrictEqual(e.parts, question)),
    ).toHaveLength(1);
  });

  it('shows one version of a task that moves on while the page loads', async () => {
    const task = await h.send('acme', 'gated', 'step while I look');
    await settled('acme', task.id, TaskState.WORKING);
    const services = h.console.services;
    // The row is read, then the task takes a step (a chunk and a status event) before the log and
    // the chunks are read: the interleaving a busy machine produces.
    const staleRow: typeof services.tasks.getTaskRecord = async (tenantId, taskId) => {
      const row = await services.tasks.getTaskRecord(tenantId, taskId);
      h.gated.open(taskId);
      const version = async () => (await services.tasks.getTaskRecord(tenantId, taskId))?.version ?? 0;
      await waitFor(async () => (await version()) > (row?.version ?? 0));
      return row;
    };
    const tasks = new Proxy(services.tasks, {
      get: (store, name) => {
        if (name === 'getTaskRecord') return staleRow;
        const value: unknown = Reflect.get(store, name);
        return typeof value === 'function' ? value.bind(store) : value;
      },
    });
    const timeline = await loadTimeline({ ...services, tasks }, 'acme', task.id);
    const record = timeline?.record;
    expect(record?.state).toBe(TaskState.WORKING);
    expect(timeline?.lastSeq).toBe(record?.version);
    expect(timeline?.entries.filter((e) => e.kind === 'artifact')).toEqual([]);
    expect(timeline?.entries.every((e) => e.seq === undefined || e.seq <= (record?.version ?? 0))).toBe(true);
    h.gated.finish(task.id);
    await settled('acme', task.id, TaskState.COMPLETED);
  });

  it('still shows stored chunks and says so when retention pruned the event log', async () => {
    const other = (await h.send('acme', 'invoice-reconciler', 'again')).id;
    await settled('acme', other, TaskState.INPUT_REQUIRED);
    // What retention's delete-expired-events does to an old log (test-only SQL).
    await h.db.pool.query('DELETE FROM task_events WHERE tenant_id = $1 AND task_id = $2', ['acme', other]);
    const timeline = await loadTimeline(h.console.services, 'acme', other);
    const kinds = timeline?.entries.map((e) => e.kind);
    expect(kinds?.[0]).toBe('gap');
    expect(kinds?.filter((k) => k === 'artifact')).toHaveLength(3);
    expect(kinds).toContain('message');
  });
});

describe('context threads', () => {
  it('lists the tasks of one context, oldest first, every visibility', async () => {
    const contextId = `thread-${crypto.randomUUID()}`;
    const a = await h.send('acme', 'echo', 'first', { contextId });
    const b = await h.send('acme', 'echo', 'second', { contextId });
    await h.send('acme', 'echo', 'elsewhere');
    const tasks = await reads.listContextTasks('acme', contextId, 10);
    expect(tasks.map((t) => t.id)).toEqual([a.id, b.id]);
    expect(await reads.listContextTasks('globex', contextId, 10)).toEqual([]);
    expect(await reads.listContextTasks('acme', contextId, 1)).toHaveLength(1);
  });
});

describe('lookups and counts', () => {
  it('finds which tenant holds a task id', async () => {
    const task = await h.send('globex', 'echo', 'where am I');
    const found = await findTaskTenants(h.kdb, task.id);
    expect(found).toEqual([
      expect.objectContaining({ tenantId: 'globex', taskId: task.id, agentId: 'echo', visibility: 'task' }),
    ]);
    expect(await findTaskTenants(h.kdb, task.id.toUpperCase())).toHaveLength(1);
    expect(await findTaskTenants(h.kdb, crypto.randomUUID())).toEqual([]);
    expect(await findTaskTenants(h.kdb, 'nope')).toEqual([]);
  });

  it('counts dead letters per tenant, capped', async () => {
    for (let i = 0; i < 3; i++)
      await h.send('globex', 'echo', `push ${i}`, { pushUrl: 'http://127.0.0.1:9/hook' });
    const claimed = await waitFor(async () => {
      const c = await h.outbox.claimDueDeliveries({ workerId: 'test', limit: 100, lockMs: 60_000 });
      return c.length > 0 ? c : null;
    });
    for (const d of claimed) await h.outbox.markFailed({ ...d, workerId: 'test', error: 'gone', dead: true });
    const dead = claimed.filter((d) => d.tenantId === 'globex').length;
    expect(dead).toBeGreaterThanOrEqual(3);
    const counts = await countDeadLettersByTenant(h.kdb, 2);
    expect(counts.find((c) => c.tenantId === 'globex')?.deadLetters).toEqual({ count: 2, capped: true });
    expect(counts.find((c) => c.tenantId === 'acme')?.deadLetters).toEqual({ count: 0, capped: false });
    const exact = await countDeadLettersByTenant(h.kdb);
    expect(exact.find((c) => c.tenantId === 'globex')?.deadLetters).toEqual({ count: dead, capped: false });
  });

  it('counts the tasks waiting for a worker per tenant, from the store, capped', async () => {
    // Committed but never enqueued (as when Redis lost the job): waiting, whatever the queue holds.
    // (The reaper would dispatch them only after its grace period, seconds away.)
    const queued = async (cap?: number) =>
      (await countQueuedByTenant(h.kdb, cap)).find((c) => c.tenantId === 'globex')?.queued;
    const before = (await queued())!.count;
    for (let i = 0; i < 3; i++) {
      const id = crypto.randomUUID();
      const contextId = crypto.randomUUID();
      await h.tasks.createTask({
        tenantId: 'globex',
        id,
        contextId,
        agentId: 'echo',
        owner: 'alice',
        visibility: 'task',
        message: {
          messageId: crypto.randomUUID(),
          role: 'ROLE_USER',
          parts: [{ text: 'wait' }],
          taskId: id,
          contextId,
        },
        event: {
          task: {
            id,
            contextId,
            status: { state: TaskState.SUBMITTED, timestamp: new Date().toISOString() },
          },
        },
      });
    }
    expect(await queued()).toEqual({ count: before + 3, capped: false });
    expect(await queued(before + 2)).toEqual({ count: before + 2, capped: true });
    // One tenant's alone, as the JSON API reads it after a change to that tenant.
    expect(await countQueuedByTenant(h.kdb, undefined, 'globex')).toEqual([
      { tenantId: 'globex', queued: { count: before + 3, capped: false } },
    ]);
    expect(await countQueuedByTenant(h.kdb, undefined, 'nobody')).toEqual([]);
  });

  it('answers readiness pings', async () => {
    expect(await reads.ping()).toBe(true);
  });
});
