import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState, type Task } from '@switchyard/protocol';
import { A2ATestClient, type BindingName } from './support/a2a-client.ts';
import { startHarness, type Harness } from './support/harness.ts';
import { taskOf, userMessage } from './support/messages.ts';

// Digest §7.4 rules 20-25: paging, ordering, filters, totalSize and includeArtifacts. No worker
// runs here, so the 260 tasks stay exactly as created (SUBMITTED, or CANCELED by the test).
let h: Harness;
const contextA = randomUUID();
const contextB = randomUUID();
let cutoff: string;
let canceled: string[];

beforeAll(async () => {
  h = await startHarness({ worker: false });
  const client = new A2ATestClient('rest', `${h.url}/agents/acme/sleepy`, h.fixtures.keys.alice);
  const create = async (contextId: string, count: number): Promise<Task[]> => {
    const tasks: Task[] = [];
    for (let i = 0; i < count; i += 10) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(10, count - i) }, () =>
          client.call('SendMessage', {
            message: userMessage('queued', { contextId }),
            configuration: { returnImmediately: true },
          }),
        ),
      );
      for (const reply of batch) {
        if (!reply.ok) throw new Error(reply.reason);
        tasks.push(taskOf(reply.value));
      }
    }
    return tasks;
  };
  await create(contextA, 130);
  const later = await create(contextB, 130);
  cutoff = later.map((t) => t.status.timestamp ?? '').sort()[0] ?? '';
  canceled = later.slice(0, 10).map((t) => t.id);
  for (const id of canceled) {
    const reply = await client.call('CancelTask', { id });
    if (!reply.ok) throw new Error(reply.reason);
  }
}, 120_000);
afterAll(async () => {
  await h?.stop();
});

describe.each<BindingName>(['jsonrpc', 'rest'])('%s ListTasks', (binding) => {
  const client = () => new A2ATestClient(binding, `${h.url}/agents/acme/sleepy`, h.fixtures.keys.alice);

  it('rules 21-22: pages through all 260 tasks newest first, each exactly once, ending with nextPageToken ""', async () => {
    const seen: Task[] = [];
    let pageToken: string | undefined;
    const sizes: number[] = [];
    do {
      const reply = await client().call('ListTasks', { pageSize: 100, ...(pageToken ? { pageToken } : {}) });
      if (!reply.ok) throw new Error(reply.reason);
      expect(reply.value.totalSize).toBe(260);
      expect(reply.value.pageSize).toBe(100);
      sizes.push(reply.value.tasks.length);
      seen.push(...reply.value.tasks);
      pageToken = reply.value.nextPageToken;
    } while (pageToken !== '');
    expect(sizes).toEqual([100, 100, 60]);
    expect(new Set(seen.map((t) => t.id)).size).toBe(260);
    const stamps = seen.map((t) => t.status.timestamp ?? '');
    expect(stamps).toEqual([...stamps].sort().reverse());
  });

  it('rule 22: the default page size is 50', async () => {
    const reply = await client().call('ListTasks', {});
    expect(reply.ok && [reply.value.tasks.length, reply.value.pageSize, reply.value.totalSize]).toEqual([
      50, 50, 260,
    ]);
    expect(reply.ok && reply.value.nextPageToken).not.toBe('');
  });

  it('rule 23: contextId, status and statusTimestampAfter filter, and totalSize counts the matches', async () => {
    const byContext = await client().call('ListTasks', { contextId: contextA, pageSize: 100 });
    expect(byContext.ok && byContext.value.totalSize).toBe(130);
    expect(byContext.ok && byContext.value.tasks.every((t) => t.contextId === contextA)).toBe(true);
    const byStatus = await client().call('ListTasks', { status: TaskState.CANCELED });
    expect(byStatus.ok && byStatus.value.tasks.map((t) => t.id).sort()).toEqual([...canceled].sort());
    const unspecified = await client().call('ListTasks', { status: TaskState.UNSPECIFIED });
    expect(unspecified.ok && unspecified.value.totalSize).toBe(260);
    const recent = await client().call('ListTasks', { statusTimestampAfter: cutoff, pageSize: 100 });
    expect(recent.ok && recent.value.totalSize).toBe(130);
    expect(recent.ok && recent.value.tasks.every((t) => t.contextId === contextB)).toBe(true);
    const combined = await client().call('ListTasks', { contextId: contextB, status: TaskState.SUBMITTED });
    expect(combined.ok && combined.value.totalSize).toBe(120);
  });

  it('rule 24: artifacts are absent unless includeArtifacts is true', async () => {
    const without = await client().call('ListTasks', { pageSize: 5 });
    if (!without.ok) throw new Error(without.reason);
    for (const task of without.value.tasks) expect(task).not.toHaveProperty('artifacts');
    const withArtifacts = await client().call('ListTasks', { pageSize: 5, includeArtifacts: true });
    if (!withArtifacts.ok) throw new Error(withArtifacts.reason);
    for (const task of withArtifacts.value.tasks) expect(task.artifacts).toEqual([]);
  });

  it('rule 25: historyLength applies to each task', async () => {
    const reply = await client().call('ListTasks', { pageSize: 5, historyLength: 0 });
    if (!reply.ok) throw new Error(reply.reason);
    for (const task of reply.value.tasks) expect(task.history ?? []).toEqual([]);
    const full = await client().call('ListTasks', { pageSize: 5 });
    expect(full.ok && full.value.tasks[0]?.history?.length).toBe(1);
  });

  it('rule 20: another principal lists none of them; a page token that was not issued is InvalidParams', async () => {
    const bob = client().with(h.fixtures.keys.bob);
    const reply = await bob.call('ListTasks', {});
    expect(reply.ok && reply.value).toEqual({ tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 });
    const forged = await client().call('ListTasks', { pageToken: 'not-a-token' });
    expect(!forged.ok && forged.reason).toBe('INVALID_PARAMS');
    const cursor = { v: 1, t: '2024-99-99T99:99:99.000000Z', i: '00000000-0000-4000-8000-000000000000' };
    const wellShaped = Buffer.from(JSON.stringify(cursor)).toString('base64url');
    const outOfRange = await client().call('ListTasks', { pageToken: wellShaped });
    expect(!outOfRange.ok && outOfRange.reason).toBe('INVALID_PARAMS');
  });
});
