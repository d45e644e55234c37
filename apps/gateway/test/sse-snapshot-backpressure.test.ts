import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState } from '@switchyard/protocol';
import { waitFor } from '@switchyard/testing';
import { A2ATestClient } from './support/a2a-client.ts';
import { startHarness, type Harness } from './support/harness.ts';
import { taskOf, userMessage } from './support/messages.ts';

// Found in audit: a stream's first item (the Task snapshot) that the client's socket did not take
// whole still counted when the next event was written behind it, so a client reading a large
// snapshot at its own pace was cut as a slow consumer by the task's next event.
const LIMIT = 64 * 1024;
const CHUNK = 4 * 1024 * 1024;
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ worker: false, env: { SSE_MAX_BUFFER_BYTES: String(LIMIT) } });
});
afterAll(async () => {
  await h?.stop();
});

/** A task with 20 MB of artifacts: far more than the kernel's socket buffers hold on loopback. */
async function bigTask(): Promise<{ id: string; contextId: string }> {
  const client = new A2ATestClient('rest', `${h.url}/agents/acme/echo`, h.fixtures.keys.alice);
  const sent = await client.call('SendMessage', {
    message: userMessage('big'),
    configuration: { returnImmediately: true },
  });
  if (!sent.ok) throw new Error(sent.reason);
  const task = taskOf(sent.value);
  for (let i = 0; i < 5; i++) {
    const parts = [{ text: String(i).repeat(CHUNK) }];
    await h.store.changeTask({
      tenantId: 'acme',
      taskId: task.id,
      expectedVersion: 1 + i,
      patch: {},
      artifactChunk: { artifactId: `a${i}`, append: false, lastChunk: true, parts },
      event: {
        artifactUpdate: {
          taskId: task.id,
          contextId: task.contextId ?? '',
          artifact: { artifactId: `a${i}`, parts },
          lastChunk: true,
        },
      },
    });
  }
  return { id: task.id, contextId: task.contextId ?? '' };
}

describe('a subscription whose snapshot the client reads slowly', () => {
  it('gets the events after it once the snapshot is read, instead of being cut', async () => {
    const task = await bigTask();
    const url = new URL(`${h.url}/agents/acme/echo/rest/tasks/${task.id}:subscribe`);
    let paused: http.IncomingMessage | undefined;
    const done = new Promise<string>((resolve, reject) => {
      const req = http.get(
        url,
        {
          headers: {
            Accept: 'text/event-stream',
            'A2A-Version': '1.0',
            'X-API-Key': h.fixtures.keys.alice,
          },
        },
        (res) => {
          paused = res;
          res.pause();
          // Only the end of what came matters: the last event, or the comment that cut the stream.
          let tail = '';
          res.on('data', (chunk: Buffer) => {
            tail = (tail + chunk.toString('latin1')).slice(-4096);
            if (tail.includes('TASK_STATE_WORKING')) {
              req.destroy();
              resolve(tail);
            }
          });
          res.on('end', () => resolve(tail));
        },
      );
      req.on('error', reject);
    });
    // The headers come once the snapshot was read (the stream opens with it in hand): the event
    // below is after it, and the snapshot waits unread.
    await waitFor(() => paused !== undefined, { what: 'the stream to open' });
    await h.store.changeTask({
      tenantId: 'acme',
      taskId: task.id,
      expectedVersion: 6,
      patch: { state: TaskState.WORKING },
      event: {
        statusUpdate: { taskId: task.id, contextId: task.contextId, status: { state: TaskState.WORKING } },
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    paused?.resume();
    const text = await done;
    expect(text).not.toContain(': slow consumer');
    expect(text).toContain('id: 7\n');
    expect(text).toContain('TASK_STATE_WORKING');
  });
});
