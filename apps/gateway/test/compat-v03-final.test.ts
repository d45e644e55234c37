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
    await ctx.requestAuth({ parts: [{ text: 'sign in, then send anything' }] });
  },
};

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ findAgent: () => asksForAuth });
});
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
});
