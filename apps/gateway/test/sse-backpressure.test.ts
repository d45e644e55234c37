import { TaskState, type StreamResponse } from '@switchyard/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2ATestClient, type BindingName } from './support/a2a-client.ts';
import { startHarness, type Harness } from './support/harness.ts';
import { taskOf, userMessage } from './support/messages.ts';

// A resume that has far more to catch up on than the slow-consumer limit: the log's pages go out
// as fast as the client reads them (the stream waits for each drain), instead of piling up in the
// gateway and cutting a client that reads perfectly well.
const LIMIT = 64 * 1024;
const EVENTS = 200;
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ worker: false, env: { SSE_MAX_BUFFER_BYTES: String(LIMIT) } });
});
afterAll(async () => {
  await h?.stop();
});

/** A task with EVENTS status updates of 16 KB each after its creation: 3 MB of log to replay. */
async function longTask(binding: BindingName): Promise<string> {
  const client = new A2ATestClient(binding, `${h.url}/agents/acme/echo`, h.fixtures.keys.alice);
  const sent = await client.call('SendMessage', {
    message: userMessage('held'),
    configuration: { returnImmediately: true },
  });
  if (!sent.ok) throw new Error(sent.reason);
  const task = taskOf(sent.value);
  const text = 'p'.repeat(16 * 1024);
  for (let version = 1; version <= EVENTS; version++) {
    const event: StreamResponse = {
      statusUpdate: {
        taskId: task.id,
        contextId: task.contextId ?? '',
        status: {
          state: TaskState.WORKING,
          message: { messageId: `m${version}`, role: 'ROLE_AGENT', parts: [{ text }] },
        },
      },
    };
    await h.store.changeTask({
      tenantId: 'acme',
      taskId: task.id,
      expectedVersion: version,
      patch: { state: TaskState.WORKING },
      event,
    });
  }
  return task.id;
}

describe.each<BindingName>(['jsonrpc', 'rest'])('%s', (binding) => {
  it('a Last-Event-ID resume of 3 MB with a 64 KB limit delivers every event, once, in order', async () => {
    const id = await longTask(binding);
    const client = new A2ATestClient(binding, `${h.url}/agents/acme/echo`, h.fixtures.keys.alice);
    const outcome = await client.stream(
      'SubscribeToTask',
      { id },
      { headers: { 'Last-Event-ID': '1' }, stopAfter: EVENTS },
    );
    if (!outcome.ok) throw new Error(outcome.reason);
    const ids = outcome.events.map((e) => Number(e.id));
    expect(ids).toEqual(Array.from({ length: EVENTS }, (_, i) => i + 2));
    expect(outcome.comments.join('\n')).not.toContain('slow consumer');
  });
});
