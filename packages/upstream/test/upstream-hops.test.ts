import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AgentHarness } from '@switchyard/agents';
import { Role, TaskState, type Message } from '@switchyard/protocol';
import { createSecretBox } from '@switchyard/store';
import { createUpstreamAgent } from '../src/upstream-agent.ts';
import { upstreamRegistrationSchema } from '../src/upstream-settings.ts';
import {
  HOP_COUNT_HEADER,
  hopId,
  HOPS_METADATA_KEY,
  hopsOf,
  LOOP_MESSAGE,
  MAX_HOPS,
  nextHop,
  readHopCountHeader,
  TOO_MANY_HOPS_MESSAGE,
  withHeaderHops,
} from '../src/upstream-hops.ts';
import { card, completingRpc, json, startRawUpstream, type RawUpstream } from './support/raw-upstream.ts';

// Found in audit: an a2a-upstream agent whose upstream leads back to itself (its own card on this
// gateway, or A→B→A through two tenants) started a run of itself on every run: 8 tasks held all 8
// worker slots within 12 s. Every request upstream now says how far it has come (a header, and
// the message's metadata, which the next Switchyard worker reads), and a run refuses a message
// that has come too far or was already forwarded to its upstream.

let up: RawUpstream;
let cardUrl: string;
const agent = () =>
  createUpstreamAgent({
    secrets: createSecretBox('test-secret-key-0123456789'),
    policy: { allowCidrs: ['127.0.0.0/8'], allowHttp: true },
    // Every run reads the card again, so each test sees every request.
    cardTtlMs: 0,
  });

beforeAll(async () => {
  up = await startRawUpstream();
  cardUrl = `${up.url}/card.json`;
  up.route('/card.json', json(card(up.url)));
  up.route('/rpc', completingRpc);
});
beforeEach(() => {
  up.seen.length = 0;
});
afterAll(() => up?.stop());

const message = (metadata?: Message['metadata']): Message => ({
  messageId: 'm-1',
  role: Role.USER,
  parts: [{ text: 'post it' }],
  ...(metadata ? { metadata } : {}),
});

const sentMessage = () => {
  const send = up.seen.find((r) => r.path === '/rpc' && r.body.includes('"SendMessage"'));
  return (JSON.parse(send!.body) as { params: { message: Message } }).params.message;
};

describe('the hop count an upstream run sends', () => {
  it('goes with every request, and in the forwarded message with the client metadata kept', async () => {
    const harness = new AgentHarness(agent(), { settings: { cardUrl } });
    const result = await harness.send(message({ trace: 'abc' }));
    expect(result.task.state).toBe(TaskState.COMPLETED);
    expect(up.seen.map((r) => r.path)).toEqual(['/card.json', '/rpc']);
    for (const request of up.seen) expect(request.headers[HOP_COUNT_HEADER]).toBe('1');
    expect(sentMessage().metadata).toEqual({
      trace: 'abc',
      [HOPS_METADATA_KEY]: { count: 1, via: [hopId(cardUrl)] },
    });
  });

  it('counts on from the hops the message has already made', async () => {
    const harness = new AgentHarness(agent(), { settings: { cardUrl } });
    const via = ['aaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbb'];
    await harness.send(message({ [HOPS_METADATA_KEY]: { count: MAX_HOPS - 1, via } }));
    for (const request of up.seen) expect(request.headers[HOP_COUNT_HEADER]).toBe(String(MAX_HOPS));
    expect(sentMessage().metadata).toEqual({
      [HOPS_METADATA_KEY]: { count: MAX_HOPS, via: [...via, hopId(cardUrl)] },
    });
  });
});

describe('a run the loop guard refuses', () => {
  it(`fails without a request when the message has made ${MAX_HOPS} hops already`, async () => {
    const harness = new AgentHarness(agent(), { settings: { cardUrl } });
    const result = await harness.send(message({ [HOPS_METADATA_KEY]: { count: MAX_HOPS, via: [] } }));
    expect(result.task.state).toBe(TaskState.FAILED);
    expect(result.task.statusMessage?.parts).toEqual([{ text: TOO_MANY_HOPS_MESSAGE }]);
    expect(result.error).toBeUndefined();
    expect(up.seen).toEqual([]);
  });

  it('fails without a request when the message was already forwarded to this upstream', async () => {
    const harness = new AgentHarness(agent(), { settings: { cardUrl } });
    const via = ['aaaaaaaaaaaaaaaa', hopId(cardUrl)];
    const result = await harness.send(message({ [HOPS_METADATA_KEY]: { count: 2, via } }));
    expect(result.task.state).toBe(TaskState.FAILED);
    expect(result.task.statusMessage?.parts).toEqual([{ text: LOOP_MESSAGE }]);
    expect(up.seen).toEqual([]);
  });
});

describe('reading hops', () => {
  it('is lenient with what a client sent: junk counts as no hops', () => {
    expect(hopsOf({})).toEqual({ count: 0, via: [] });
    expect(hopsOf({ metadata: { [HOPS_METADATA_KEY]: 'lots' } })).toEqual({ count: 0, via: [] });
    expect(hopsOf({ metadata: { [HOPS_METADATA_KEY]: { count: -3, via: [1, 'x'] } } })).toEqual({
      count: 1,
      via: ['x'],
    });
    // The count is never below the hops the message names.
    expect(hopsOf({ metadata: { [HOPS_METADATA_KEY]: { count: 0, via: ['a', 'b'] } } }).count).toBe(2);
  });

  it('cannot be overridden by a credential header of the same name', () => {
    const parsed = upstreamRegistrationSchema.safeParse({
      cardUrl: 'https://agent.example/card.json',
      credentials: { scheme: 'header', name: 'Switchyard-Hop-Count', value: '0' },
    });
    expect(parsed.success).toBe(false);
  });

  it('reads the header as a gateway would', () => {
    expect(readHopCountHeader(undefined)).toBeUndefined();
    expect(readHopCountHeader('3')).toBe(3);
    expect(readHopCountHeader('three')).toBe('invalid');
    expect(readHopCountHeader(['1', '2'])).toBe('invalid');
  });

  it("counts at least the header's hops in a message a gateway stores", () => {
    const plain = { metadata: { trace: 'x' } };
    const stored = withHeaderHops(plain, 5);
    expect(stored.metadata).toEqual({ trace: 'x', [HOPS_METADATA_KEY]: { count: 5, via: [] } });
    // The run that takes it on counts from there, and stops at the limit.
    expect(nextHop(stored, 'https://b.example/card.json')).toMatchObject({ ok: true, next: { count: 6 } });
    expect(nextHop(withHeaderHops(plain, MAX_HOPS), 'https://b.example/card.json')).toEqual({
      ok: false,
      message: TOO_MANY_HOPS_MESSAGE,
    });
    // A message that already counts more, or as many, is kept as it is.
    const counted = { metadata: { [HOPS_METADATA_KEY]: { count: 6, via: ['a'] } } };
    expect(withHeaderHops(counted, 2)).toBe(counted);
    expect(withHeaderHops({}, 0)).toEqual({});
  });
});
