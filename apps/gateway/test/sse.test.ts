import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState, type StreamResponse } from '@switchyard/protocol';
import { waitFor } from '@switchyard/testing';
import {
  A2ATestClient,
  type BindingName,
  type StreamEvent,
  type StreamOutcome,
} from './support/a2a-client.ts';
import { startHarness, type Harness } from './support/harness.ts';
import { partsText, taskOf, userMessage } from './support/messages.ts';

// Digest §7.2 rule 18, §7.6 and §4.1/§4.2 SSE framing: a task stream starts with the Task, then
// every event in order with its id, and closes at a terminal state.
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.stop();
});

function events(outcome: StreamOutcome): StreamEvent[] {
  if (!outcome.ok) throw new Error(`stream refused: ${outcome.reason} ${outcome.message}`);
  return outcome.events;
}

function stateOf(response: StreamResponse | undefined): string | undefined {
  return response?.statusUpdate?.status.state ?? response?.task?.status.state;
}

function expectOrderedIds(list: StreamEvent[]): void {
  const ids = list.map((e) => Number(e.id));
  for (const id of ids) expect(Number.isInteger(id)).toBe(true);
  for (let i = 1; i < ids.length; i++) expect(ids[i]).toBeGreaterThan(ids[i - 1] ?? 0);
}

describe.each<BindingName>(['jsonrpc', 'rest'])('%s', (binding) => {
  const agent = (id: string) =>
    new A2ATestClient(binding, `${h.url}/agents/acme/${id}`, h.fixtures.keys.alice);

  async function startSlow(): Promise<string> {
    const sent = await agent('slow').call('SendMessage', {
      message: userMessage('go slowly'),
      configuration: { returnImmediately: true },
    });
    if (!sent.ok) throw new Error(sent.reason);
    return taskOf(sent.value).id;
  }

  it('§7.2 rule 18: a stream of the slow agent starts with the task, then its events in order, and closes at COMPLETED', async () => {
    const outcome = await agent('slow').stream('SendStreamingMessage', { message: userMessage('stream it') });
    if (!outcome.ok) throw new Error(outcome.reason);
    expect(outcome.headers.get('content-type')).toContain('text/event-stream');
    expect(outcome.headers.get('cache-control')).toBe('no-cache');
    expect(outcome.headers.get('x-accel-buffering')).toBe('no');
    const list = events(outcome);
    expect(list[0]?.response?.task).toBeDefined();
    expectOrderedIds(list);
    // The snapshot holds the chunks stored before it; the updates carry the rest, none twice.
    const inSnapshot = (list[0]?.response?.task?.artifacts ?? []).flatMap((a) =>
      a.parts.map((p) => p.text ?? ''),
    );
    const updates = list
      .filter((e) => e.response?.artifactUpdate)
      .map((e) => partsText(e.response?.artifactUpdate?.artifact.parts));
    expect([...inSnapshot, ...updates]).toEqual(['step 1/3', 'step 2/3', 'step 3/3']);
    expect(stateOf(list.at(-1)?.response)).toBe(TaskState.COMPLETED);
  });

  it('§7.2 rule 18(a): a Message reply is one message event, then the stream closes', async () => {
    const list = events(
      await agent('echo').stream('SendStreamingMessage', { message: userMessage('reply') }),
    );
    expect(list).toHaveLength(1);
    expect(partsText(list[0]?.response?.message?.parts)).toBe('reply');
  });

  it('§7.2 rule 13: returnImmediately has no effect on a stream (a Message reply is still one message)', async () => {
    const list = events(
      await agent('echo').stream('SendStreamingMessage', {
        message: userMessage('reply'),
        configuration: { returnImmediately: true },
      }),
    );
    expect(list).toHaveLength(1);
    expect(partsText(list[0]?.response?.message?.parts)).toBe('reply');
  });

  it('§7.6 rules 28-29: SubscribeToTask sends the task snapshot first and closes at the terminal state', async () => {
    const id = await startSlow();
    const list = events(await agent('slow').stream('SubscribeToTask', { id }));
    expect(list[0]?.response?.task?.id).toBe(id);
    expectOrderedIds(list);
    expect(stateOf(list.at(-1)?.response)).toBe(TaskState.COMPLETED);
  });

  it('Last-Event-ID resume delivers exactly the events after it', async () => {
    const id = await startSlow();
    const first = events(await agent('slow').stream('SubscribeToTask', { id }, { stopAfter: 2 }));
    const lastId = first.at(-1)?.id ?? '';
    await waitFor(async () => {
      const r = await agent('slow').call('GetTask', { id });
      return r.ok && r.value.status.state === TaskState.COMPLETED;
    });
    const all = events(
      await agent('slow').stream('SubscribeToTask', { id }, { headers: { 'Last-Event-ID': '0' } }),
    );
    const resumed = events(
      await agent('slow').stream('SubscribeToTask', { id }, { headers: { 'Last-Event-ID': lastId } }),
    );
    expect(resumed.length).toBeGreaterThan(0);
    expect(resumed).toEqual(all.filter((e) => Number(e.id) > Number(lastId)));
    expect(Number(resumed[0]?.id)).toBe(Number(lastId) + 1);
  });

  it('a streaming send retried with its messageId and Last-Event-ID resumes after that event, no snapshot', async () => {
    const message = userMessage('stream, break, send again');
    const first = events(await agent('slow').stream('SendStreamingMessage', { message }, { stopAfter: 2 }));
    const lastId = first.at(-1)?.id ?? '';
    const id = first[0]?.response?.task?.id ?? '';
    const resumed = events(
      await agent('slow').stream(
        'SendStreamingMessage',
        { message },
        { headers: { 'Last-Event-ID': lastId } },
      ),
    );
    expect(resumed[0]?.response?.task).toBeUndefined();
    expect(Number(resumed[0]?.id)).toBe(Number(lastId) + 1);
    expectOrderedIds(resumed);
    expect(stateOf(resumed.at(-1)?.response)).toBe(TaskState.COMPLETED);
    // The same as a subscription's resume from there; and at the last event, the stream just ends.
    const all = events(
      await agent('slow').stream('SubscribeToTask', { id }, { headers: { 'Last-Event-ID': '0' } }),
    );
    expect(resumed).toEqual(all.filter((e) => Number(e.id) > Number(lastId)));
    const atEnd = events(
      await agent('slow').stream(
        'SendStreamingMessage',
        { message },
        { headers: { 'Last-Event-ID': all.at(-1)?.id ?? '' } },
      ),
    );
    expect(atEnd).toEqual([]);
  });

  it('a new streaming send carrying a Last-Event-ID that is none of ours starts as any new send', async () => {
    const list = events(
      await agent('slow').stream(
        'SendStreamingMessage',
        { message: userMessage('fresh') },
        { headers: { 'Last-Event-ID': 'not-one-of-ours' } },
      ),
    );
    expect(list[0]?.response?.task).toBeDefined();
    expect(stateOf(list.at(-1)?.response)).toBe(TaskState.COMPLETED);
  });

  it('§7.6 rule 30: subscribing to a terminal task is UnsupportedOperation before any stream starts', async () => {
    const done = await agent('echo').call('SendMessage', { message: userMessage('done') });
    if (!done.ok) throw new Error(done.reason);
    const outcome = await agent('echo').stream('SubscribeToTask', { id: taskOf(done.value).id });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.reason).toBe('UNSUPPORTED_OPERATION');
    expect(outcome.status).toBe(binding === 'jsonrpc' ? 200 : 400);
  });

  it('§7.6 rule 30: subscribing to an unknown task is TaskNotFound', async () => {
    const outcome = await agent('echo').stream('SubscribeToTask', { id: randomUUID() });
    expect(!outcome.ok && outcome.reason).toBe('TASK_NOT_FOUND');
  });

  it('§7.6 rule 31: closing one of several streams of a task affects no other', async () => {
    const id = await startSlow();
    const [cut, full] = await Promise.all([
      agent('slow').stream('SubscribeToTask', { id }, { stopAfter: 1 }),
      agent('slow').stream('SubscribeToTask', { id }),
    ]);
    expect(events(cut)).toHaveLength(1);
    expect(stateOf(events(full).at(-1)?.response)).toBe(TaskState.COMPLETED);
  });

  it('an invalid Last-Event-ID is InvalidParams', async () => {
    const id = await startSlow();
    const outcome = await agent('slow').stream(
      'SubscribeToTask',
      { id },
      { headers: { 'Last-Event-ID': 'yesterday' } },
    );
    expect(!outcome.ok && outcome.reason).toBe('INVALID_PARAMS');
  });
});

describe('binding specifics', () => {
  it('§4.1: every JSON-RPC stream event is a response carrying the request id', async () => {
    const client = new A2ATestClient('jsonrpc', `${h.url}/agents/acme/slow`, h.fixtures.keys.alice);
    const list = events(await client.stream('SendStreamingMessage', { message: userMessage('ids') }));
    const ids = new Set(list.map((e) => e.envelopeId));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toMatch(/^s-\d+$/);
  });

  it('§12 #1: REST subscribe is served on GET as well as POST, and lastEventId works as a query parameter', async () => {
    const client = new A2ATestClient('rest', `${h.url}/agents/acme/slow`, h.fixtures.keys.alice);
    const sent = await client.call('SendMessage', {
      message: userMessage('verbs'),
      configuration: { returnImmediately: true },
    });
    if (!sent.ok) throw new Error(sent.reason);
    const id = taskOf(sent.value).id;
    const viaGet = events(await client.stream('SubscribeToTask', { id }, { verb: 'GET' }));
    expect(viaGet[0]?.response?.task?.id).toBe(id);
    const replay = await fetch(`${client.restBase()}/tasks/${id}:subscribe?lastEventId=0`, {
      headers: { 'A2A-Version': '1.0', 'X-API-Key': h.fixtures.keys.alice },
    });
    const text = await replay.text();
    expect(text).toMatch(/^id: 1\n/);
  });
});
