import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState } from '@switchyard/protocol';
import { waitFor } from '@switchyard/testing';
import { A2ATestClient, type BindingName, type StreamOutcome } from './support/a2a-client.ts';
import { startHarness, type Harness } from './support/harness.ts';
import { taskOf, userMessage } from './support/messages.ts';

// A Last-Event-ID resume at the task's current event id. On a task in INPUT_REQUIRED (where
// streams close by default, STREAM_CLOSE_ON_INPUT_REQUIRED) the client already has the event the
// stream would close after: 200 text/event-stream with no events, closed at once, as the same
// resume from an older id or a fresh subscription closes after sending that event. On a WORKING
// task the resumed stream stays open for the next event.
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.stop();
});

function events(outcome: StreamOutcome) {
  if (!outcome.ok) throw new Error(`stream refused: ${outcome.reason} ${outcome.message}`);
  return outcome.events;
}

describe.each<BindingName>(['jsonrpc', 'rest'])('%s', (binding) => {
  const agent = (id: string) =>
    new A2ATestClient(binding, `${h.url}/agents/acme/${id}`, h.fixtures.keys.alice);

  /**
   * Opens SubscribeToTask with `Last-Event-ID` and reads the whole body, or gives up after
   * `withinMs` (the stream did not close): the raw reply, so a stream that never ends fails the
   * test instead of hanging it.
   */
  async function resume(agentId: string, taskId: string, lastEventId: number, withinMs: number) {
    const headers = {
      Accept: 'text/event-stream',
      'A2A-Version': '1.0',
      'X-API-Key': h.fixtures.keys.alice,
      'Last-Event-ID': String(lastEventId),
      ...(binding === 'jsonrpc' ? { 'Content-Type': 'application/json' } : {}),
    };
    const base = `${h.url}/agents/acme/${agentId}`;
    const response =
      binding === 'jsonrpc'
        ? await fetch(`${base}/rpc`, {
            method: 'POST',
            headers,
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: 'resume',
              method: 'SubscribeToTask',
              params: { id: taskId },
            }),
            signal: AbortSignal.timeout(withinMs),
          })
        : await fetch(`${base}/rest/tasks/${taskId}:subscribe`, {
            headers,
            signal: AbortSignal.timeout(withinMs),
          });
    let body: string | undefined;
    try {
      body = await response.text();
    } catch (err) {
      if ((err as Error).name !== 'TimeoutError') throw err;
    }
    return { status: response.status, type: response.headers.get('content-type'), body };
  }

  it('INPUT_REQUIRED: a resume at the current id closes at once with nothing to send', async () => {
    const booking = agent('booking');
    const asked = await booking.call('SendMessage', { message: userMessage('book a flight to Oslo') });
    if (!asked.ok) throw new Error(asked.reason);
    const task = taskOf(asked.value);
    expect(task.status.state).toBe(TaskState.INPUT_REQUIRED);
    // A fresh subscription: the snapshot, whose id is the task's current event id, then the end.
    const fresh = events(await booking.stream('SubscribeToTask', { id: task.id }));
    expect(fresh).toHaveLength(1);
    expect(fresh[0]?.response?.task?.status.state).toBe(TaskState.INPUT_REQUIRED);
    const current = Number(fresh[0]?.id);
    expect(current).toBeGreaterThan(1);
    // From the id before it: the INPUT_REQUIRED event, then the end.
    const older = events(
      await booking.stream(
        'SubscribeToTask',
        { id: task.id },
        { headers: { 'Last-Event-ID': String(current - 1) } },
      ),
    );
    expect(older.map((e) => [e.id, e.response?.statusUpdate?.status.state])).toEqual([
      [String(current), TaskState.INPUT_REQUIRED],
    ]);
    // At the current id: an SSE stream that ends at once, empty.
    const reply = await resume('booking', task.id, current, 5000);
    expect(reply.status).toBe(200);
    expect(reply.type).toContain('text/event-stream');
    expect(reply.body).toBe('');
  });

  // Found in audit: a resume from before a question the client has since answered stopped at the
  // question's INPUT_REQUIRED event, telling a client whose task had COMPLETED that it needed input.
  it('a resume from before an answered question replays past it to the task as it stands', async () => {
    const booking = agent('booking');
    const asked = await booking.call('SendMessage', { message: userMessage('book a flight to Oslo') });
    if (!asked.ok) throw new Error(asked.reason);
    const task = taskOf(asked.value);
    expect(task.status.state).toBe(TaskState.INPUT_REQUIRED);
    const question = (await h.store.getTaskRecord('acme', task.id))?.version ?? 0;
    // Asked again ("lots" is no number), then answered: two questions, the first one stale.
    for (const answer of ['lots', '2']) {
      const replied = await booking.call('SendMessage', {
        message: { ...userMessage(answer), taskId: task.id, contextId: task.contextId },
      });
      if (!replied.ok) throw new Error(replied.reason);
    }
    const done = await h.store.getTaskRecord('acme', task.id);
    expect(done?.state).toBe(TaskState.COMPLETED);
    const replayed = events(
      await booking.stream(
        'SubscribeToTask',
        { id: task.id },
        { headers: { 'Last-Event-ID': String(question - 1) } },
      ),
    );
    const states = replayed.flatMap((e) => e.response?.statusUpdate?.status.state ?? []);
    expect(states.filter((s) => s === TaskState.INPUT_REQUIRED)).toHaveLength(2);
    expect(states.at(-1)).toBe(TaskState.COMPLETED);
    expect(replayed.map((e) => Number(e.id))).toEqual(
      Array.from({ length: (done?.version ?? 0) - question + 1 }, (_, i) => question + i),
    );
  });

  it('WORKING: a resume at the current id stays open and gets the next event', async () => {
    const sleepy = agent('sleepy');
    const sent = await sleepy.call('SendMessage', {
      message: userMessage('hold on'),
      configuration: { returnImmediately: true },
    });
    if (!sent.ok) throw new Error(sent.reason);
    const { id } = taskOf(sent.value);
    await waitFor(async () => (await h.store.getTaskRecord('acme', id))?.state === TaskState.WORKING, {
      what: 'the task to be WORKING',
    });
    const current = (await h.store.getTaskRecord('acme', id))?.version ?? 0;
    let opened = false;
    const resumed = sleepy.stream(
      'SubscribeToTask',
      { id },
      { headers: { 'Last-Event-ID': String(current) }, onEvent: () => (opened = true) },
    );
    // Still open (no event, no end) a while later: then the cancel's event ends it.
    const ended = await Promise.race([
      resumed.then(() => true),
      new Promise((resolve) => setTimeout(() => resolve(false), 700)),
    ]);
    expect(ended).toBe(false);
    expect(opened).toBe(false);
    const canceled = await sleepy.call('CancelTask', { id });
    expect(canceled.ok).toBe(true);
    const list = events(await resumed);
    expect(list.map((e) => [e.id, e.response?.statusUpdate?.status.state])).toEqual([
      [String(current + 1), TaskState.CANCELED],
    ]);
  });
});
