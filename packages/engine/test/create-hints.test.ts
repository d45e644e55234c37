import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@switchyard/testing';
import { alice, startPlatform, userMessage, type Platform } from './platform-fixture.ts';

let p: Platform;
beforeAll(async () => {
  p = await startPlatform();
});
afterAll(() => p.close());

/** Every message published under the platform's prefix, by channel, as a real subscriber sees them. */
async function listen() {
  const sub = p.redis.connect();
  const heard: Array<{ channel: string; message: string }> = [];
  sub.on('pmessage', (_pattern: string, channel: string, message: string) =>
    heard.push({ channel, message }),
  );
  await sub.psubscribe(`${p.keys.pushChannel.slice(0, -'push'.length)}*`);
  return { heard, close: () => sub.quit() };
}

const settle = () => new Promise((r) => setTimeout(r, 300));

describe('hints of a new task', () => {
  it('wakes the pushers when the creation queued a delivery (an inline push config)', async () => {
    const bus = await listen();
    try {
      const sent = await p.service.send(alice, await p.agent('echo'), {
        message: userMessage('hello'),
        configuration: {
          returnImmediately: true,
          taskPushNotificationConfig: { url: 'http://127.0.0.1:9/hook' },
        },
      });
      if (!('task' in sent)) throw new Error('expected a task');
      await waitFor(() => bus.heard.some((h) => h.channel === p.keys.pushChannel), {
        what: 'the pushers woken',
      });
      // No worker runs yet: the wake-up is the creation's, and still no task hint.
      expect(bus.heard.filter((h) => h.channel === p.keys.taskChannel('acme', sent.task.id))).toEqual([]);
    } finally {
      await bus.close();
    }
  });

  it('publishes none for the creation (nobody can be following it yet), the first with the claim', async () => {
    const bus = await listen();
    try {
      const sent = await p.service.send(alice, await p.agent('echo'), {
        message: userMessage('hello'),
        configuration: { returnImmediately: true },
      });
      if (!('task' in sent)) throw new Error('expected a task');
      const channel = p.keys.taskChannel('acme', sent.task.id);
      await settle();
      expect(bus.heard.filter((h) => h.channel === channel)).toEqual([]);
      // No webhook, no delivery queued: the pushers are not woken either.
      expect(bus.heard.filter((h) => h.channel === p.keys.pushChannel)).toEqual([]);

      const worker = p.startWorker();
      await waitFor(() => bus.heard.some((h) => h.channel === channel && h.message.includes('COMPLETED')), {
        what: 'the completion hint',
      });
      const seqs = bus.heard
        .filter((h) => h.channel === channel)
        .map((h) => (JSON.parse(h.message) as { seq: number }).seq);
      expect(seqs[0]).toBe(2);
      // So that no worker runs while another test expects none.
      await worker.stop();
    } finally {
      await bus.close();
    }
  });
});
