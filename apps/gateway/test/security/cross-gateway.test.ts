import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState, type StreamResponse } from '@switchyard/protocol';
import { waitFor } from '@switchyard/testing';
import { A2ATestClient, type BindingName, type StreamEvent } from '../support/a2a-client.ts';
import { startHarness, type Harness, type RunningGateway } from '../support/harness.ts';
import { partsText, taskOf, userMessage } from '../support/messages.ts';

// Issue 8, security suite: gateways are stateless (ARCHITECTURE.md §2, README "What to put in
// front": no sticky sessions). A task created through one gateway is streamed, listed and
// cancelled through another on the same Postgres and Redis, and every gateway's streams and
// blocking waits are woken by changes made through any other.
let h: Harness;
let other: RunningGateway;

beforeAll(async () => {
  h = await startHarness();
  other = await h.startGateway();
});
afterAll(async () => {
  await h?.stop();
});

const stateOf = (r: StreamResponse | undefined) => r?.statusUpdate?.status.state ?? r?.task?.status.state;

describe.each<BindingName>(['jsonrpc', 'rest'])('%s', (binding) => {
  const via = (gateway: string, agent: string, key = h.fixtures.keys.alice) =>
    new A2ATestClient(binding, `${gateway}/agents/acme/${agent}`, key);

  it('created on A; listed, streamed and cancelled on B; A sees the cancel on its own stream', async () => {
    const onA = via(h.url, 'sleepy');
    const onB = via(other.url, 'sleepy');
    const sent = await onA.call('SendMessage', {
      message: userMessage('cross gateway'),
      configuration: { returnImmediately: true },
    });
    if (!sent.ok) throw new Error(sent.reason);
    const id = taskOf(sent.value).id;
    await waitFor(async () => {
      const got = await onB.call('GetTask', { id });
      return got.ok && got.value.status.state === TaskState.WORKING;
    });
    const listed = await onB.call('ListTasks', { pageSize: 100 });
    expect(listed.ok && listed.value.tasks.map((t) => t.id)).toContain(id);

    const seenOnA: StreamEvent[] = [];
    const seenOnB: StreamEvent[] = [];
    const streamA = onA.stream('SubscribeToTask', { id }, { onEvent: (e) => seenOnA.push(e) });
    const streamB = onB.stream('SubscribeToTask', { id }, { onEvent: (e) => seenOnB.push(e) });
    await waitFor(() => seenOnA.length > 0 && seenOnB.length > 0, { what: 'both streams to start' });
    expect(seenOnB[0]?.response?.task?.id).toBe(id);

    const canceled = await onB.call('CancelTask', { id });
    expect(canceled.ok && canceled.value.status.state).toBe(TaskState.CANCELED);
    for (const outcome of await Promise.all([streamA, streamB])) {
      if (!outcome.ok) throw new Error(outcome.reason);
      expect(stateOf(outcome.events.at(-1)?.response)).toBe(TaskState.CANCELED);
    }
    const onAAfter = await onA.call('GetTask', { id });
    expect(onAAfter.ok && onAAfter.value.status.state).toBe(TaskState.CANCELED);
    // The cancel is final everywhere: A refuses a second one.
    const again = await onA.call('CancelTask', { id });
    expect(!again.ok && again.reason).toBe('TASK_NOT_CANCELABLE');
  });

  it('a stream started on A resumes on B after Last-Event-ID with every event once', async () => {
    const first = await via(h.url, 'slow').stream(
      'SendStreamingMessage',
      { message: userMessage('resume elsewhere') },
      { stopAfter: 2 },
    );
    if (!first.ok) throw new Error(first.reason);
    const id = first.events[0]?.response?.task?.id ?? '';
    const lastId = first.events.at(-1)?.id ?? '';
    expect(id).not.toBe('');
    const rest = await via(other.url, 'slow').stream(
      'SubscribeToTask',
      { id },
      { headers: { 'Last-Event-ID': lastId } },
    );
    if (!rest.ok) throw new Error(rest.reason);
    // A resumed stream starts with a fresh snapshot, then only events after lastId.
    const later = rest.events.slice(1).map((e) => Number(e.id));
    for (const seq of later) expect(seq).toBeGreaterThan(Number(lastId));
    expect(new Set(later).size).toBe(later.length);
    expect(stateOf(rest.events.at(-1)?.response)).toBe(TaskState.COMPLETED);
    const final = await via(h.url, 'slow').call('GetTask', { id });
    expect(
      final.ok && partsText(final.value.status.message?.parts ?? final.value.history?.at(-1)?.parts),
    ).toContain('done');
  });

  it('a blocking SendMessage on A returns when B cancels its task', async () => {
    const key = (
      await h.admin.createApiKey({ tenantId: 'acme', principal: `blocker-${binding}`, role: 'user' })
    ).plaintext;
    const blocking = via(h.url, 'sleepy', key).call('SendMessage', { message: userMessage('wait for me') });
    const onB = via(other.url, 'sleepy', key);
    const id = await waitFor(async () => {
      const listed = await onB.call('ListTasks', {});
      return listed.ok ? listed.value.tasks[0]?.id : undefined;
    });
    expect((await onB.call('CancelTask', { id })).ok).toBe(true);
    const answer = await blocking;
    if (!answer.ok) throw new Error(answer.reason);
    expect(taskOf(answer.value)).toMatchObject({ id, status: { state: TaskState.CANCELED } });
  });
});
