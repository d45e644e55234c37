import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentHarness } from '@switchyard/agents';
import { TaskState } from '@switchyard/protocol';
import { createSecretBox } from '@switchyard/store';
import { createUpstreamAgent } from '../src/upstream-agent.ts';
import { CardProblem, checkCardShape, checkSchemes } from '../src/upstream-card-check.ts';
import { readUpstreamCard } from '../src/upstream-card.ts';
import { card, completingRpc, json, startRawUpstream, type RawUpstream } from './support/raw-upstream.ts';

// Found in audit: a 1.0 card missing skills/defaultInputModes/capabilities, or a body of `null`,
// was refused with the exception's own text ("Cannot read properties of undefined (reading
// 'map')"); and a card with no interface the platform can call (only GRPC, protocol 9.9, or not
// the binding the operator asked for) was accepted, so every run of the agent failed.

const policy = { allowCidrs: ['127.0.0.0/8'], allowHttp: true };
let up: RawUpstream;
beforeAll(async () => {
  up = await startRawUpstream();
});
afterAll(() => up?.stop());

/** Serves `body` as JSON at a fresh path and reads it as the registration does. */
let n = 0;
async function read(body: unknown, settings: { binding?: 'JSONRPC' | 'HTTP+JSON' } = {}) {
  const path = `/card-${++n}.json`;
  up.route(path, json(body));
  return readUpstreamCard({ cardUrl: `${up.url}${path}`, ...settings }, policy);
}

async function refusal(body: unknown, settings: { binding?: 'JSONRPC' | 'HTTP+JSON' } = {}): Promise<string> {
  const err = await read(body, settings).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, 'the card should be refused').toBeInstanceOf(CardProblem);
  return (err as Error).message;
}

describe('the shape of an upstream card', () => {
  it('takes lists and objects a sparse 1.0 card leaves out as empty, as ProtoJSON omits them', async () => {
    const {
      skills: _s,
      defaultInputModes: _i,
      defaultOutputModes: _o,
      capabilities: _c,
      ...sparse
    } = card(up.url);
    const facts = await read(sparse);
    expect(facts).toMatchObject({
      name: 'Ledger',
      skills: [],
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
    });
    // A skill without tags (or a name) gets the card reader's own fallbacks.
    const loose = await read(card(up.url, { skills: [{ id: 'post' }] }));
    expect(loose.skills).toEqual([{ id: 'post', name: 'post', description: 'post', tags: [] }]);
  });

  it('refuses a document that is not a card object, naming what it is', async () => {
    expect(await refusal(null)).toBe('the document is not an A2A agent card: it is null, not a JSON object');
    expect(await refusal([1, 2, 3])).toContain('it is a list, not a JSON object');
    expect(await refusal('card')).toContain('it is a string, not a JSON object');
    expect(() => checkCardShape(undefined)).toThrow(CardProblem);
  });

  it('names the missing or invalid field', async () => {
    const { name: _name, ...nameless } = card(up.url);
    expect(await refusal(nameless)).toBe('name is missing');
    expect(await refusal(card(up.url, { name: '' }))).toBe('name is empty');
    expect(await refusal(card(up.url, { skills: 'all' }))).toBe('skills must be a list, not a string');
    expect(await refusal(card(up.url, { skills: [{ name: 'x' }] }))).toBe('skills[0].id is missing');
    expect(await refusal(card(up.url, { skills: [{ id: '', tags: [] }] }))).toBe('skills[0].id is empty');
    expect(await refusal(card(up.url, { skills: [{ id: 'a', tags: 'x' }] }))).toBe(
      'skills[0].tags must be a list, not a string',
    );
    expect(await refusal(card(up.url, { defaultInputModes: ['text/plain', 7] }))).toBe(
      'defaultInputModes[1] must be a string, not a number',
    );
    expect(await refusal(card(up.url, { capabilities: { streaming: 'yes' } }))).toBe(
      'capabilities.streaming must be true or false',
    );
    expect(await refusal(card(up.url, { capabilities: [] }))).toBe('capabilities must be an object');
    expect(await refusal(card(up.url, { supportedInterfaces: [{ protocolBinding: 'JSONRPC' }] }))).toBe(
      'supportedInterfaces[0].url is missing',
    );
    expect(await refusal(card(up.url, { supportedInterfaces: 'x' }))).toBe(
      'supportedInterfaces must be a list',
    );
    expect(await refusal(card(up.url, { supportedInterfaces: [] }))).toBe(
      'the card names no interface: supportedInterfaces is missing or empty',
    );
  });

  it('reads a 0.3 card, sparse ones too', async () => {
    const v03 = {
      name: 'Old',
      description: 'a 0.3 agent',
      version: '1',
      url: `${up.url}/rpc`,
      protocolVersion: '0.3.0',
      preferredTransport: 'JSONRPC',
      skills: [{ id: 'a', name: 'a', description: 'a' }],
    };
    const facts = await read(v03);
    expect(facts.protocolVersions).toEqual(['0.3.0']);
    expect(facts.skills).toEqual([{ id: 'a', name: 'a', description: 'a', tags: [] }]);
    expect(await refusal({ ...v03, additionalInterfaces: [{ url: `${up.url}/x` }] })).toBe(
      'additionalInterfaces[0].transport is missing',
    );
  });
});

describe('an upstream card with no interface the platform can call', () => {
  const iface = (protocolBinding: string, protocolVersion: string, path = '/rpc') => ({
    url: `${up.url}${path}`,
    protocolBinding,
    protocolVersion,
  });

  it('is refused, naming what it offers', async () => {
    expect(await refusal(card(up.url, { supportedInterfaces: [iface('GRPC', '1.0')] }))).toBe(
      'the card offers no interface this platform can call (it offers GRPC 1.0; usable: JSONRPC or ' +
        'HTTP+JSON in A2A 1.0 or 0.3)',
    );
    expect(await refusal(card(up.url, { supportedInterfaces: [iface('JSONRPC', '9.9')] }))).toContain(
      '(it offers JSONRPC 9.9;',
    );
    expect(
      await refusal(
        card(up.url, { supportedInterfaces: [{ url: `${up.url}/rpc`, protocolBinding: 'JSONRPC' }] }),
      ),
    ).toContain('(it offers JSONRPC (no protocolVersion);');
  });

  it('is refused when it lacks the binding the registration asks for', async () => {
    expect(await refusal(card(up.url), { binding: 'HTTP+JSON' })).toBe(
      'the card does not offer the requested binding HTTP+JSON in a version this platform speaks ' +
        '(it offers JSONRPC 1.0)',
    );
    expect(
      await refusal(
        card(up.url, { supportedInterfaces: [iface('JSONRPC', '1.0'), iface('HTTP+JSON', '2.0')] }),
        {
          binding: 'HTTP+JSON',
        },
      ),
    ).toContain('(it offers JSONRPC 1.0, HTTP+JSON 2.0)');
  });

  it('is accepted when one of its interfaces is usable, and only those are kept', async () => {
    const facts = await read(
      card(up.url, {
        supportedInterfaces: [
          iface('GRPC', '1.0', '/grpc'),
          iface('jsonrpc', '1.0.2'),
          iface('HTTP+JSON', '9.9'),
        ],
      }),
      { binding: 'JSONRPC' },
    );
    expect(facts.interfaceUrls).toEqual([`${up.url}/rpc`]);
  });
});

describe('a run', () => {
  it('calls only an interface the platform speaks, whatever the card lists first', async () => {
    // The SDK alone would pick the first JSONRPC interface (2.0, at /bad) and call it as 1.0.
    up.route('/rpc', completingRpc);
    up.route('/bad', (_req, res) => res.writeHead(500).end());
    up.route(
      '/mixed.json',
      json(
        card(up.url, {
          supportedInterfaces: [
            { url: `${up.url}/bad`, protocolBinding: 'JSONRPC', protocolVersion: '2.0' },
            { url: `${up.url}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0.1' },
          ],
        }),
      ),
    );
    const agent = createUpstreamAgent({ secrets: createSecretBox('test-secret-key-0123456789'), policy });
    const harness = new AgentHarness(agent, { settings: { cardUrl: `${up.url}/mixed.json` } });
    const result = await harness.send('post it');
    expect(result.task.state).toBe(TaskState.COMPLETED);
    expect(up.seen.some((r) => r.path === '/bad')).toBe(false);
  });
});

describe('a card URL that does not answer with a card', () => {
  it('is refused in our words', async () => {
    up.route('/html', (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>'));
    await expect(readUpstreamCard({ cardUrl: `${up.url}/html` }, policy)).rejects.toThrow(
      new CardProblem('the card URL did not answer with JSON'),
    );
    await expect(readUpstreamCard({ cardUrl: `${up.url}/missing` }, policy)).rejects.toThrow(
      new CardProblem('the card URL answered HTTP 404'),
    );
    const closed = await startRawUpstream();
    await closed.stop();
    await expect(readUpstreamCard({ cardUrl: `${closed.url}/card.json` }, policy)).rejects.toThrow(
      new CardProblem('the card URL could not be reached (ECONNREFUSED)'),
    );
  });
});

describe('the schemes of the interfaces a card names', () => {
  const at = (url: string) => ({ url, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' });
  it('refuses plain http interfaces where WEBHOOK_ALLOW_HTTP is false, naming them', () => {
    const usable = [at('https://a.example/rpc'), at('http://b.example/rpc')];
    expect(() => checkSchemes(usable, false)).toThrow(
      new CardProblem(
        'the card names plain http interfaces (http://b.example/rpc), and WEBHOOK_ALLOW_HTTP is false',
      ),
    );
    expect(() => checkSchemes(usable, true)).not.toThrow();
    expect(() => checkSchemes([at('https://a.example/rpc')], false)).not.toThrow();
  });
});
