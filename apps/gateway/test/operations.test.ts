import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRAVELLERS_QUESTION } from '@switchyard/agents';
import { Role, TaskState } from '@switchyard/protocol';
import { waitFor } from '@switchyard/testing';
import { A2ATestClient, type BindingName } from './support/a2a-client.ts';
import { startHarness, type Harness } from './support/harness.ts';
import { partsText, taskOf, userMessage } from './support/messages.ts';

// Every operation on both bindings (digest §7.9 rule 35: functional equivalence), and the REST
// routes again through their /{tenant} twins (§4.2).
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ env: { WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8' } });
});
afterAll(async () => {
  await h?.stop();
});

const variants: Array<[string, BindingName, string | undefined]> = [
  ['JSON-RPC', 'jsonrpc', undefined],
  ['HTTP+JSON', 'rest', undefined],
  ['HTTP+JSON /{tenant}', 'rest', 'acme'],
];

describe.each(variants)('%s', (_name, binding, twin) => {
  const agent = (id: string) =>
    new A2ATestClient(binding, `${h.url}/agents/acme/${id}`, h.fixtures.keys.alice, twin);

  it('§7.2 rule 12: a blocking SendMessage to echo returns the COMPLETED task with the echo artifact', async () => {
    const reply = await agent('echo').call('SendMessage', { message: userMessage('hello world') });
    expect(reply.ok).toBe(true);
    if (!reply.ok) return;
    const task = taskOf(reply.value);
    expect(task.status.state).toBe(TaskState.COMPLETED);
    expect(task.contextId).toEqual(expect.any(String));
    expect(task.artifacts?.[0]?.artifactId).toBe('echo');
    expect(partsText(task.artifacts?.[0]?.parts)).toBe('hello world');
  });

  it('§7.2 rule 13: returnImmediately answers with the task right after it is created', async () => {
    const reply = await agent('sleepy').call('SendMessage', {
      message: userMessage('take your time'),
      configuration: { returnImmediately: true },
    });
    if (!reply.ok) throw new Error(reply.reason);
    const task = taskOf(reply.value);
    expect([TaskState.SUBMITTED, TaskState.WORKING]).toContain(task.status.state);
    await agent('sleepy').call('CancelTask', { id: task.id });
  });

  it('§7.2 rule 11: echo answers "reply" with a Message and no task', async () => {
    const reply = await agent('echo').call('SendMessage', { message: userMessage('reply') });
    if (!reply.ok) throw new Error(reply.reason);
    expect(reply.value.task).toBeUndefined();
    expect(reply.value.message?.role).toBe(Role.AGENT);
    expect(partsText(reply.value.message?.parts)).toBe('reply');
    expect(reply.value.message?.contextId).toEqual(expect.any(String));
  });

  it('§7.3: historyLength 0 omits history; N keeps at most the N most recent messages', async () => {
    const sent = await agent('echo').call('SendMessage', {
      message: userMessage('history'),
      configuration: { historyLength: 0 },
    });
    if (!sent.ok) throw new Error(sent.reason);
    const task = taskOf(sent.value);
    expect(task.history ?? []).toHaveLength(0);
    const full = await agent('echo').call('GetTask', { id: task.id });
    if (!full.ok) throw new Error(full.reason);
    expect(full.value.history?.length).toBeGreaterThanOrEqual(1);
    const one = await agent('echo').call('GetTask', { id: task.id, historyLength: 1 });
    if (!one.ok) throw new Error(one.reason);
    expect(one.value.history?.length ?? 0).toBeLessThanOrEqual(1);
  });

  it('§7.2 rule 10 and §7.1 rule 3: an input-required task continues with a taskId-only message', async () => {
    const booking = agent('booking');
    const first = await booking.call('SendMessage', { message: userMessage('book a flight to Paris') });
    if (!first.ok) throw new Error(first.reason);
    const task = taskOf(first.value);
    expect(task.status.state).toBe(TaskState.INPUT_REQUIRED);
    expect(partsText(task.status.message?.parts)).toBe(TRAVELLERS_QUESTION);
    const second = await booking.call('SendMessage', { message: userMessage('2', { taskId: task.id }) });
    if (!second.ok) throw new Error(second.reason);
    const done = taskOf(second.value);
    expect(done.id).toBe(task.id);
    expect(done.contextId).toBe(task.contextId);
    expect(done.status.state).toBe(TaskState.COMPLETED);
  });

  it("§7.1 rule 4: a contextId that differs from the task's is InvalidParams and changes nothing", async () => {
    const booking = agent('booking');
    const first = await booking.call('SendMessage', { message: userMessage('book a hotel in Rome') });
    if (!first.ok) throw new Error(first.reason);
    const task = taskOf(first.value);
    const wrong = await booking.call('SendMessage', {
      message: userMessage('3', { taskId: task.id, contextId: randomUUID() }),
    });
    expect(wrong.ok).toBe(false);
    if (wrong.ok) return;
    expect(wrong.reason).toBe('INVALID_PARAMS');
    const after = await booking.call('GetTask', { id: task.id });
    expect(after.ok && after.value.status.state).toBe(TaskState.INPUT_REQUIRED);
  });

  it('§7.1 rule 2: a message naming an unknown taskId is TaskNotFound', async () => {
    const reply = await agent('echo').call('SendMessage', {
      message: userMessage('hi', { taskId: randomUUID() }),
    });
    expect(!reply.ok && reply.reason).toBe('TASK_NOT_FOUND');
  });

  it('§7.2 rule 9: a message to a terminal task is UnsupportedOperation', async () => {
    const done = await agent('echo').call('SendMessage', { message: userMessage('finish') });
    if (!done.ok) throw new Error(done.reason);
    const reply = await agent('echo').call('SendMessage', {
      message: userMessage('again', { taskId: taskOf(done.value).id }),
    });
    expect(!reply.ok && reply.reason).toBe('UNSUPPORTED_OPERATION');
  });

  it('§7.2 rule 16: a part media type the agent does not take is ContentTypeNotSupported', async () => {
    const reply = await agent('echo').call('SendMessage', {
      message: { ...userMessage('x'), parts: [{ raw: 'aGVsbG8=', mediaType: 'image/png' }] },
    });
    expect(!reply.ok && reply.reason).toBe('CONTENT_TYPE_NOT_SUPPORTED');
    // What it does take, so the client can choose (echo's card: text and JSON).
    expect(JSON.stringify(!reply.ok && reply.body)).toMatch(/does not take image\/png; it takes text\/plain/);
  });

  it('§7.4 rule 19: GetTask of an unknown id is TaskNotFound', async () => {
    const reply = await agent('echo').call('GetTask', { id: randomUUID() });
    expect(!reply.ok && reply.reason).toBe('TASK_NOT_FOUND');
  });

  it("§7.4: ListTasks returns the caller's tasks with every response field present", async () => {
    const contextId = randomUUID();
    await agent('echo').call('SendMessage', { message: userMessage('listed', { contextId }) });
    const reply = await agent('echo').call('ListTasks', { contextId });
    if (!reply.ok) throw new Error(reply.reason);
    expect(reply.value).toEqual({
      tasks: [expect.objectContaining({ contextId })],
      nextPageToken: '',
      pageSize: 50,
      totalSize: 1,
    });
    expect(reply.value.tasks[0]).not.toHaveProperty('artifacts');
  });

  it('§7.5: CancelTask cancels a running task; a second cancel is TaskNotCancelable', async () => {
    const sleepy = agent('sleepy');
    const sent = await sleepy.call('SendMessage', {
      message: userMessage('sleep'),
      configuration: { returnImmediately: true },
    });
    if (!sent.ok) throw new Error(sent.reason);
    const id = taskOf(sent.value).id;
    const canceled = await sleepy.call('CancelTask', { id });
    if (!canceled.ok) throw new Error(canceled.reason);
    expect(canceled.value.status.state).toBe(TaskState.CANCELED);
    const again = await sleepy.call('CancelTask', { id });
    expect(!again.ok && again.reason).toBe('TASK_NOT_CANCELABLE');
  });

  it('§8: push configs can be created, read, listed and deleted (delete is idempotent)', async () => {
    const echo = agent('echo');
    const sent = await echo.call('SendMessage', { message: userMessage('push me') });
    if (!sent.ok) throw new Error(sent.reason);
    const taskId = taskOf(sent.value).id;
    const created = await echo.call('CreateTaskPushNotificationConfig', {
      taskId,
      url: 'http://127.0.0.1:9/hook',
      token: 'opaque-token',
      authentication: { scheme: 'Bearer', credentials: 's3cr3t' },
    });
    if (!created.ok) throw new Error(`${created.reason} ${created.message}`);
    // The create answers with the config as the client made it, its secrets included (§2.4);
    // reads redact them (§8 "Secrets").
    expect(created.value).toEqual({
      taskId,
      url: 'http://127.0.0.1:9/hook',
      id: expect.any(String),
      token: 'opaque-token',
      authentication: { scheme: 'Bearer', credentials: 's3cr3t' },
    });
    const id = created.value.id ?? '';
    const got = await echo.call('GetTaskPushNotificationConfig', { taskId, id });
    expect(got.ok && got.value).toEqual({
      taskId,
      url: 'http://127.0.0.1:9/hook',
      id,
      token: '********',
      authentication: { scheme: 'Bearer', credentials: '********' },
    });
    const listed = await echo.call('ListTaskPushNotificationConfigs', { taskId });
    expect(listed.ok && listed.value.configs?.map((c) => c.id)).toEqual([id]);
    const deleted = await echo.call('DeleteTaskPushNotificationConfig', { taskId, id });
    expect(deleted.ok && deleted.value).toEqual({});
    const again = await echo.call('DeleteTaskPushNotificationConfig', { taskId, id });
    expect(again.ok).toBe(true);
    const gone = await echo.call('GetTaskPushNotificationConfig', { taskId, id });
    expect(!gone.ok && gone.reason).toBe('TASK_NOT_FOUND');
  });

  it.each(['http://10.0.0.1/hook', 'http://169.254.169.254/latest/meta-data', 'http://[::1]:8080/hook'])(
    '§8 SSRF: a webhook at %s is refused with InvalidParams',
    async (url) => {
      const echo = agent('echo');
      const sent = await echo.call('SendMessage', { message: userMessage('ssrf') });
      if (!sent.ok) throw new Error(sent.reason);
      const reply = await echo.call('CreateTaskPushNotificationConfig', {
        taskId: taskOf(sent.value).id,
        url,
      });
      expect(!reply.ok && reply.reason).toBe('INVALID_PARAMS');
    },
  );

  it('§7.8: GetExtendedAgentCard adds the extended skills to the public card', async () => {
    const reply = await agent('echo').call('GetExtendedAgentCard', {});
    if (!reply.ok) throw new Error(reply.reason);
    expect(reply.value.skills.map((s) => s.id)).toEqual(['echo', 'echo-reply', 'audit']);
    expect(reply.value.supportedInterfaces[0]?.url).toBe(`${h.url}/agents/acme/echo/rpc`);
    expect(reply.value).not.toHaveProperty('extendedSkills');
  });

  it('§7.2: a push config given in SendMessage is registered for the new task', async () => {
    const echo = agent('echo');
    const sent = await echo.call('SendMessage', {
      message: userMessage('with push'),
      configuration: { taskPushNotificationConfig: { url: 'http://127.0.0.1:9/inline' } },
    });
    if (!sent.ok) throw new Error(sent.reason);
    const taskId = taskOf(sent.value).id;
    const listed = await waitFor(async () => {
      const r = await echo.call('ListTaskPushNotificationConfigs', { taskId });
      return r.ok && (r.value.configs?.length ?? 0) > 0 ? r.value : undefined;
    });
    expect(listed.configs?.[0]?.url).toBe('http://127.0.0.1:9/inline');
  });
});
