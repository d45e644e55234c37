import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState } from '@switchyard/protocol';
import { waitFor } from '@switchyard/testing';
import { A2ATestClient } from './support/a2a-client.ts';
import { startHarness, type Harness } from './support/harness.ts';
import { taskOf, userMessage } from './support/messages.ts';

// STYLE.md rule 10: stop() drains. Blocking waits answer with the task as it stands, streams end
// with Unavailable and a final comment (clients resume elsewhere with Last-Event-ID), then the
// server closes.
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.stop();
});

describe('graceful stop', () => {
  it('answers blocking sends, ends streams with Unavailable and a comment and stops listening', async () => {
    const replica = await h.startGateway();
    const client = new A2ATestClient('rest', `${replica.url}/agents/acme/sleepy`, h.fixtures.keys.alice);
    const blocking = client.call('SendMessage', { message: userMessage('wait for me') });
    const started = await new A2ATestClient(
      'rest',
      `${h.url}/agents/acme/sleepy`,
      h.fixtures.keys.alice,
    ).call('SendMessage', {
      message: userMessage('stream me'),
      configuration: { returnImmediately: true },
    });
    if (!started.ok) throw new Error(started.reason);
    const streaming = client.stream('SubscribeToTask', { id: taskOf(started.value).id });
    await waitFor(() => replica.gateway.streams.size === 1, { what: 'the stream to open' });
    await replica.stop();
    const answered = await blocking;
    if (!answered.ok) throw new Error(answered.reason);
    expect([TaskState.SUBMITTED, TaskState.WORKING]).toContain(taskOf(answered.value).status.state);
    const stream = await streaming;
    if (!stream.ok) throw new Error(stream.reason);
    expect(stream.events[0]?.response?.task).toBeDefined();
    expect(stream.events.at(-1)?.error?.reason).toBe('UNAVAILABLE');
    expect(stream.comments).toContain('server shutting down');
    await expect(fetch(`${replica.url}/healthz`)).rejects.toThrow();
    // Leave no agent running: the worker's stop is not under test here.
    const main = new A2ATestClient('rest', `${h.url}/agents/acme/sleepy`, h.fixtures.keys.alice);
    await main.call('CancelTask', { id: taskOf(answered.value).id });
    await main.call('CancelTask', { id: taskOf(started.value).id });
  });
});
