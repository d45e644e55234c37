import { describe, expect, it } from 'vitest';
import type { AgentRegistration, TaskService } from '@switchyard/engine';
import type { ListTasksResponse } from '@switchyard/protocol';
import type { CardBuilder } from '../src/cards/card-builder.ts';
import { LIST_TASKS_PER_TENANT, ListTaskSlots } from '../src/a2a/list-slots.ts';
import { A2AOperations, type OperationContext } from '../src/a2a/operations.ts';

// Found in audit: sixteen ListTasks at once from one tenant (each counting 300,000 matches) held
// the Postgres pool every tenant shares; another tenant's GetTask went from 5 ms to 1.8 s.
const ctx = (tenantId: string, signal = new AbortController().signal): OperationContext => ({
  caller: { tenantId, principal: 'p', admin: false },
  agent: { id: 'echo' } as AgentRegistration,
  signal,
  trace: {},
});
const PAGE: ListTasksResponse = { tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 };
const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A service whose ListTasks answers only when the test releases it. */
function heldService() {
  const held: Array<() => void> = [];
  const service = {
    listTasks: () => new Promise<ListTasksResponse>((resolve) => held.push(() => resolve(PAGE))),
  } as unknown as TaskService;
  return { service, held };
}

describe('ListTasks calls running at once', () => {
  it(`are ${LIST_TASKS_PER_TENANT} per tenant at most; the rest wait their turn, other tenants do not`, async () => {
    const { service, held } = heldService();
    const ops = new A2AOperations({ service, cards: {} as CardBuilder, listSlots: new ListTaskSlots() });
    const calls = Array.from({ length: LIST_TASKS_PER_TENANT + 2 }, () => ops.listTasks(ctx('alpha'), {}));
    await tick();
    expect(held).toHaveLength(LIST_TASKS_PER_TENANT);
    const other = ops.listTasks(ctx('beta'), {});
    await tick();
    expect(held).toHaveLength(LIST_TASKS_PER_TENANT + 1);
    held.shift()?.();
    await tick();
    // One finished: one waiting call of alpha's took its place.
    expect(held).toHaveLength(LIST_TASKS_PER_TENANT + 1);
    while (held.length > 0) {
      held.shift()?.();
      await tick();
    }
    await Promise.all([...calls, other]);
  });

  it('refuse past the waiting limit, let a caller who left go, and give places back on failure', async () => {
    const { service, held } = heldService();
    const ops = new A2AOperations({ service, cards: {} as CardBuilder, listSlots: new ListTaskSlots(1, 1) });
    const first = ops.listTasks(ctx('alpha'), {});
    const gone = new AbortController();
    const waiting = ops.listTasks(ctx('alpha', gone.signal), {});
    await expect(ops.listTasks(ctx('alpha'), {})).rejects.toMatchObject({ kind: 'ResourceExhausted' });
    gone.abort();
    await expect(waiting).rejects.toMatchObject({ kind: 'Unavailable' });
    const next = ops.listTasks(ctx('alpha'), {});
    held.shift()?.();
    await first;
    await tick();
    held.shift()?.();
    await next;
    const failing = new A2AOperations({
      service: { listTasks: () => Promise.reject(new Error('store down')) } as unknown as TaskService,
      cards: {} as CardBuilder,
      listSlots: new ListTaskSlots(1, 0),
    });
    await expect(failing.listTasks(ctx('alpha'), {})).rejects.toThrow('store down');
    await expect(failing.listTasks(ctx('alpha'), {})).rejects.toThrow('store down');
  });
});
