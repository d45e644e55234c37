import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '@switchyard/agents';
import { startHarness, type Harness } from './support/harness.ts';
import { openSse } from './support/http.ts';

// A 0.3 client stops reading at `final`. This gateway keeps streams open at AUTH_REQUIRED (its
// default; STREAM_CLOSE_ON_AUTH_REQUIRED), so an AUTH_REQUIRED update must not say final, or the
// client would stop at an event after which more come.
const asksForAuth: Agent = {
  executor: 'echo',
  card: { name: 'auth' } as Agent['card'],
  async execute(ctx) {
    const text = ctx.message.parts.map((part) => ('text' in part ? part.text : '')).join('');
    // A resume replaying an INPUT_REQUIRED the client has since answered (test below).
    if (text === 'ask') return ctx.requestInput({ parts: [{ text: 'which one?' }] });
    if (text === 'this one') {
      await ctx.setStatus({ parts: [{ text: 'on it' }] });
      await new Promise((resolve) => setTimeout(resolve, 1500));
      return ctx.complete({ parts: [{ text: 'done' }] });
    }
    await ctx.requestAuth({ parts: [{ text: 'sign in, then send anything' }] });
  },
};

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ findAgent: () => asksForAuth });
});

const v03Message = (text: string, extra: Record<string, unknown> = {}) => ({
  kind: 'message',
  messageId: randomUUID(),
  role: 'user',
  parts: [{ kind: 'text', text }],
  ...extra,
});

async function rpcV03(method: string, params: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${h.url}/agents/acme/echo/rpc`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-API-Key': h.fixtures.keys.alice },
    body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method, params }),
  });
  const body = (await response.json()) as { result?: Record<string, unknown>; error?: unknown };
  if (!body.result) throw new Error(JSON.stringify(body));
  return body.result;
}
afterAll(async () => {
  await h?.stop();
});

describe('A2A 0.3 streams: final', () => {
  it('an AUTH_REQUIRED update on a stream that stays open is not final', async () => {
    const reply = await openSse('POST', `${h.url}/agents/acme/echo/rpc`, {
      noVersion: true,
      key: h.fixtures.keys.alice,
      // The task, then its updates up to AUTH_REQUIRED; the stream stays open after it.
      stopAfter: 3,
      body: {
        jsonrpc: '2.0',
        id: 'a1',
        method: 'message/stream',
        params: {
          message: {
            kind: 'message',
            messageId: randomUUID(),
            role: 'user',
            parts: [{ kind: 'text', text: 'x' }],
          },
        },
      },
    });
    const results = reply.events.map((e) => (e.data as { result: Record<string, unknown> }).result);
    const updates = results.filter((r) => r['kind'] === 'status-update');
    const auth = updates.find((r) => (r['status'] as { state: string }).state === 'auth-required');
    expect(auth, JSON.stringify(results)).toMatchObject({ final: false });
  });

  it('a resume replaying an INPUT_REQUIRED the client has since answered: not final there, final at the end', async () => {
    const asked = await rpcV03('message/send', { message: v03Message('ask') });
    expect(asked).toMatchObject({ kind: 'task', status: { state: 'input-required' } });
    const taskId = asked['id'] as string;
    const answered = await rpcV03('message/send', {
      message: v03Message('this one', { taskId }),
      configuration: { blocking: false },
    });
    expect(answered).toMatchObject({ kind: 'task' });
    const reply = await openSse('POST', `${h.url}/agents/acme/echo/rpc`, {
      noVersion: true,
      key: h.fixtures.keys.alice,
      // From just before the question: its event, the answer's, and on to the end.
      headers: { 'Last-Event-ID': '2' },
      body: { jsonrpc: '2.0', id: 'r1', method: 'tasks/resubscribe', params: { id: taskId } },
    });
    const updates = reply.events
      .map((e) => (e.data as { result: Record<string, unknown> }).result)
      .filter((r) => r['kind'] === 'status-update')
      .map((r) => [(r['status'] as { state: string }).state, r['final']]);
    expect(updates[0]).toEqual(['input-required', false]);
    expect(updates.at(-1)).toEqual(['completed', true]);
    expect(updates.filter(([, final]) => final)).toHaveLength(1);
  });
});
