import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState, type Task } from '@switchyard/protocol';
import { A2ATestClient, type BindingName } from './support/a2a-client.ts';
import { startHarness, type Harness } from './support/harness.ts';
import { userMessage } from './support/messages.ts';

// A ListTasks page, and one task's view, are held to a byte budget (4 MiB by default), sized in
// Postgres before the gateway reads any history or artifact: 100 tasks of a few MB each were
// once one response of hundreds of MB built in the gateway's memory. Servers may return fewer
// tasks than pageSize (AIP-158) and fewer history messages than all (digest §7.3); nextPageToken,
// pageSize and totalSize keep their meaning (§7.4 rule 22), on both bindings alike (§7.9 rule 35).
let h: Harness;
/** The sleepy agent's seven tasks of 1.2 MB each, newest first (digest §7.4 rule 21). */
let bigTasks: string[];
/** The echo agent's one task, with six messages of 1 MB each. */
let longTask: string;

/** A task of alice's whose history is these texts, oldest first, written through the store. */
async function storedTask(agentId: string, texts: string[]): Promise<string> {
  const [first, ...rest] = texts.map((text) => userMessage(text));
  const id = randomUUID();
  const contextId = randomUUID();
  const created = await h.store.createTask({
    tenantId: 'acme',
    id,
    contextId,
    agentId,
    owner: 'alice',
    visibility: 'task',
    message: first!,
    event: { task: { id, contextId, status: { state: TaskState.SUBMITTED } } },
  });
  if (!created.created) throw new Error('expected a new task');
  if (rest.length > 0)
    await h.store.changeTask({
      tenantId: 'acme',
      taskId: id,
      expectedVersion: created.task.version,
      patch: {},
      event: { statusUpdate: { taskId: id, contextId, status: { state: TaskState.SUBMITTED } } },
      appendMessages: rest,
    });
  return id;
}

const text = (bytes: number, mark = '') => mark + 'x'.repeat(bytes - mark.length);
const marks = (task: Task | undefined) => task?.history?.map((m) => m.parts[0]?.text?.slice(0, 2));

beforeAll(async () => {
  h = await startHarness({ worker: false });
  const created: string[] = [];
  for (let k = 0; k < 7; k++) created.push(await storedTask('sleepy', [text(1_200_000)]));
  bigTasks = created.reverse();
  longTask = await storedTask(
    'echo',
    ['m1', 'm2', 'm3', 'm4', 'm5', 'm6'].map((mark) => text(1_000_000, mark)),
  );
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

describe.each<BindingName>(['jsonrpc', 'rest'])('%s ListTasks and GetTask within 4 MiB', (binding) => {
  const client = (agent: string) =>
    new A2ATestClient(binding, `${h.url}/agents/acme/${agent}`, h.fixtures.keys.alice);

  it('pages of 1.2 MB tasks hold three each; the tokens go through all seven once, in order', async () => {
    const pages: string[][] = [];
    let pageToken = '';
    do {
      const reply = await client('sleepy').call('ListTasks', {
        pageSize: 100,
        ...(pageToken ? { pageToken } : {}),
      });
      if (!reply.ok) throw new Error(reply.reason);
      expect([reply.value.pageSize, reply.value.totalSize]).toEqual([100, 7]);
      pages.push(reply.value.tasks.map((t) => t.id));
      pageToken = reply.value.nextPageToken;
    } while (pageToken !== '');
    expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
    expect(pages.flat()).toEqual(bigTasks);
  });

  it('a task alone past the budget: GetTask and its ListTasks page give the newest history that fits', async () => {
    const got = await client('echo').call('GetTask', { id: longTask });
    if (!got.ok) throw new Error(got.reason);
    expect(marks(got.value)).toEqual(['m3', 'm4', 'm5', 'm6']);
    const listed = await client('echo').call('ListTasks', {});
    if (!listed.ok) throw new Error(listed.reason);
    expect(listed.value.tasks.map((t) => [t.id, marks(t)])).toEqual([[longTask, ['m3', 'm4', 'm5', 'm6']]]);
    expect([listed.value.nextPageToken, listed.value.totalSize]).toEqual(['', 1]);
  });
});

describe('LIST_TASKS_MAX_PAGE_BYTES', () => {
  it('sets the page budget: 64 KiB pages of 30 KB tasks hold two each', async () => {
    const small: string[] = [];
    for (let k = 0; k < 5; k++) small.push(await storedTask('slow', [text(30_000)]));
    const gateway = await h.startGateway({ LIST_TASKS_MAX_PAGE_BYTES: String(64 * 1024) });
    const client = new A2ATestClient('jsonrpc', `${gateway.url}/agents/acme/slow`, h.fixtures.keys.alice);
    const pages: string[][] = [];
    let pageToken = '';
    do {
      const reply = await client.call('ListTasks', { ...(pageToken ? { pageToken } : {}) });
      if (!reply.ok) throw new Error(reply.reason);
      pages.push(reply.value.tasks.map((t) => t.id));
      pageToken = reply.value.nextPageToken;
    } while (pageToken !== '');
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
    expect(pages.flat()).toEqual(small.reverse());
  });
});
