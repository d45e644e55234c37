import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBundledAgent, type Agent } from '@switchyard/agents';
import { alice, bob, startPlatform, userMessage, type Platform } from './platform-fixture.ts';

// A contextId is a label a client may choose (digest §7.1 rule 6), so another principal of the
// tenant can send the same one. The agent's context memory must not cross from one to the other.
let p: Platform;
const recall: Agent = {
  executor: 'recall',
  card: {
    name: 'recall',
    description: 'answers with what it remembered in this conversation, then remembers the message',
    version: '1.0.0',
    skills: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
  },
  async execute(ctx) {
    const before = (await ctx.memory.get<string>('last')) ?? 'nothing';
    await ctx.memory.set('last', ctx.message.parts[0]?.text ?? '');
    await ctx.reply(`remembered ${before}`);
  },
};

beforeAll(async () => {
  p = await startPlatform();
  await p.registerAgent(recall);
  p.startWorker({ findAgent: (e) => (e === 'recall' ? recall : findBundledAgent(e)) });
});
afterAll(() => p.close());

async function say(caller: typeof alice, contextId: string, text: string): Promise<string> {
  const agent = (await p.admin.getAgent('acme', 'recall'))!;
  const r = await p.service.send(caller, agent, { message: userMessage(text, { contextId }) });
  const reply = 'message' in r ? r.message : r.task.status.message;
  return reply?.parts[0]?.text ?? '';
}

describe('context memory across principals', () => {
  it("is the sender's own: another principal reusing the contextId neither reads nor changes it", async () => {
    const contextId = `ctx-${crypto.randomUUID()}`;
    expect(await say(alice, contextId, 'alice secret')).toBe('remembered nothing');
    expect(await say(bob, contextId, 'bob text')).toBe('remembered nothing');
    expect(await say(alice, contextId, 'again')).toBe('remembered alice secret');
    expect(await say(bob, contextId, 'again')).toBe('remembered bob text');
  });
});
