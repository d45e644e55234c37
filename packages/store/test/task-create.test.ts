import { randomUUID } from 'node:crypto';
import { TaskState, formatTimestamp } from '@switchyard/protocol';
import { describe, expect, it } from 'vitest';
import { deliverySeqs, eventSeqs, newTask, useTaskTestEnv, tenant, userMessage } from './task-fixtures.ts';

const env = useTaskTestEnv();

describe('createTask', () => {
  it('creates the task at version 1 in SUBMITTED with its message at position 0 and event 1', async () => {
    const t = tenant();
    const input = newTask(t, { metadata: { source: 'test' } });
    const result = await env.store.createTask(input);
    expect(result.created).toBe(true);
    if (!result.created) return;
    expect(result.task).toMatchObject({
      tenantId: t,
      id: input.id,
      contextId: input.contextId,
      agentId: 'echo',
      owner: 'alice',
      visibility: 'task',
      state: TaskState.SUBMITTED,
      version: 1,
      statusMessage: null,
      metadata: { source: 'test' },
      leaseOwner: null,
      attempts: 0,
    });
    expect(result.task.statusTimestamp).toBeInstanceOf(Date);
    expect(await env.store.getHistory(t, input.id)).toEqual([input.message]);
    const events = await env.store.readEvents(t, input.id, 0);
    // Event 1 is the send's, with its status time from the database, the row's (status-time.ts).
    const status = { ...input.event.task!.status, timestamp: formatTimestamp(result.task.statusTimestamp) };
    expect(events.map((e) => [e.seq, e.payload])).toEqual([[1, { task: { ...input.event.task!, status } }]]);
  });

  it('a retried messageId (ARCHITECTURE §3 rule 5) returns the earlier task and creates nothing', async () => {
    const t = tenant();
    const first = newTask(t);
    await env.store.createTask(first);
    const retry = newTask(t, { message: first.message, owner: 'bob' });
    const result = await env.store.createTask(retry);
    expect(result).toEqual({ created: false, taskId: first.id, principal: 'alice' });
    expect(await env.store.getTaskRecord(t, retry.id)).toBeNull();
    expect(await eventSeqs(env.db, t, first.id)).toEqual([1]);
  });

  it('20 concurrent sends with one messageId create exactly one task', async () => {
    const t = tenant();
    const message = userMessage('once');
    const inputs = Array.from({ length: 20 }, () => newTask(t, { message }));
    const results = await Promise.all(inputs.map((i) => env.store.createTask(i)));
    const created = results.filter((r) => r.created);
    expect(created).toHaveLength(1);
    const winner = created[0]!.created ? created[0]!.task.id : '';
    for (const r of results) if (!r.created) expect(r.taskId).toBe(winner);
    const rows = await env.db.selectFrom('tasks').select('id').where('tenant_id', '=', t).execute();
    expect(rows.map((r) => r.id)).toEqual([winner]);
  });

  it('messageId uniqueness is per tenant: the same id in another tenant is a new task', async () => {
    const message = userMessage('same id');
    const a = await env.store.createTask(newTask(tenant(), { message }));
    const b = await env.store.createTask(newTask(tenant(), { message }));
    expect(a.created && b.created).toBe(true);
  });

  it('stores the push config given with the send, sealed, and queues a delivery for event 1 of a visible task', async () => {
    const t = tenant();
    const input = newTask(t, {
      pushConfig: {
        url: 'https://hooks.example/a',
        token: 'tok-1',
        authentication: { scheme: 'Bearer', credentials: 'cred-1' },
      },
    });
    await env.store.createTask(input);
    const row = await env.db
      .selectFrom('push_configs')
      .selectAll()
      .where('tenant_id', '=', t)
      .where('task_id', '=', input.id)
      .executeTakeFirstOrThrow();
    expect(row.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(row.url).toBe('https://hooks.example/a');
    expect(row.token_enc?.toString('utf8')).not.toContain('tok-1');
    expect(env.secrets.open(row.token_enc!)).toBe('tok-1');
    expect(env.secrets.open(row.auth_credentials_enc!)).toBe('cred-1');
    expect(await deliverySeqs(env.db, t, input.id)).toEqual([{ config_id: row.id, seq: 1 }]);
  });

  it('keeps a given push config id and queues no delivery while the task is pending', async () => {
    const t = tenant();
    const input = newTask(t, {
      visibility: 'pending',
      pushConfig: { id: 'cfg-1', url: 'https://hooks.example/b' },
    });
    await env.store.createTask(input);
    const ids = await env.db.selectFrom('push_configs').select('id').where('tenant_id', '=', t).execute();
    expect(ids).toEqual([{ id: 'cfg-1' }]);
    expect(await deliverySeqs(env.db, t, input.id)).toEqual([]);
  });

  it('a retry creates no second push config either', async () => {
    const t = tenant();
    const first = newTask(t, { pushConfig: { url: 'https://hooks.example/c' } });
    await env.store.createTask(first);
    await env.store.createTask(
      newTask(t, { message: first.message, pushConfig: { url: 'https://hooks.example/d' } }),
    );
    const rows = await env.db.selectFrom('push_configs').select('url').where('tenant_id', '=', t).execute();
    expect(rows).toEqual([{ url: 'https://hooks.example/c' }]);
  });

  it('rolls back everything when a later insert fails (no orphan idempotency key)', async () => {
    const t = tenant();
    const id = randomUUID();
    // The event is not a StreamResponse, so appending it throws after the task row went in.
    const bad = newTask(t, { id, event: {} as never });
    await expect(env.store.createTask(bad)).rejects.toThrow();
    expect(await env.store.getTaskRecord(t, id)).toBeNull();
    const keys = await env.db
      .selectFrom('idempotency_keys')
      .select('task_id')
      .where('tenant_id', '=', t)
      .execute();
    expect(keys).toEqual([]);
  });
});
