import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.ts';
import { send } from '../support/http.ts';
import { userMessage } from '../support/messages.ts';
import { expectAlive, probe, type ProbeReply, type RawRequest } from './fuzz-probe.ts';
import {
  contentType,
  junkBody,
  METHODS,
  mutate,
  mutation,
  nastyValue,
  toJsonText,
  V03_METHODS,
  validParams,
  validV03Params,
  type FuzzIds,
} from './fuzz-inputs.ts';
import { expectWellFormedRpc } from './well-formed.ts';

// Issue 8, security suite: property-based fuzzing of the JSON-RPC binding. Whatever arrives, the
// answer is a JSON-RPC envelope with a spec error code (digest §4.1, §5.3), never an internal
// error or a stack trace, the gateway keeps serving, and a refused request changes nothing.
// No worker runs, so the store only changes when the gateway accepts a request.
let h: Harness;
let rpcUrl: string;
let ids: FuzzIds;
let v03Ids: FuzzIds;

beforeAll(async () => {
  h = await startHarness({
    worker: false,
    env: { BLOCKING_TIMEOUT_MS: '0', WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8' },
  });
  rpcUrl = `${h.url}/agents/acme/echo/rpc`;
  ids = await fuzzTarget();
  v03Ids = await fuzzTarget();
});

/** A live task with a push config: accepted cancels by one property must not change another's. */
async function fuzzTarget(): Promise<FuzzIds> {
  const rest = `${h.url}/agents/acme/echo/rest`;
  const key = h.fixtures.keys.alice;
  const sent = await send('POST', `${rest}/message:send`, {
    key,
    body: { message: userMessage('fuzz target'), configuration: { returnImmediately: true } },
  });
  const task = (sent.body as { task: { id: string; contextId: string } }).task;
  const config = await send('POST', `${rest}/tasks/${task.id}/pushNotificationConfigs`, {
    key,
    body: { url: 'http://127.0.0.1:9/target' },
  });
  return { taskId: task.id, contextId: task.contextId, configId: (config.body as { id: string }).id };
}
afterAll(async () => {
  await h?.stop();
});

// Moderate run counts keep the file well under a minute on a shared 2-core machine; the timeout
// only bounds a stuck run, it asserts nothing about speed.
const RUNS = { numRuns: 50 };
const FUZZ_TIMEOUT_MS = 120_000;

const judge = (reply: ProbeReply): 'accepted' | 'refused' => {
  if (reply.stream) {
    expect(reply.status).toBe(200);
    return 'accepted';
  }
  return expectWellFormedRpc(reply) === 'result' ? 'accepted' : 'refused';
};

const serviceHeaders = fc.record(
  {
    'A2A-Version': fc.oneof(
      { weight: 8, arbitrary: fc.constant('1.0') },
      fc.constantFrom('1.0.1', '0.3', '', '2.0', 'abc', '1', '1.0,0.3'),
    ),
    'A2A-Extensions': fc.oneof(fc.string({ maxLength: 30 }), fc.constant('https://example.com/ext/trace/v1')),
    'Last-Event-ID': fc.oneof(
      fc.string({ maxLength: 10 }),
      fc.constantFrom('-1', '1e9', '99999999999999999999'),
    ),
  },
  { requiredKeys: [] },
);

const request = (body: string | Uint8Array, type: string | undefined, headers = {}): RawRequest => ({
  method: 'POST',
  url: rpcUrl,
  headers: {
    'A2A-Version': '1.0',
    'X-API-Key': h.fixtures.keys.alice,
    ...(type === undefined ? {} : { 'Content-Type': type }),
    ...headers,
  },
  body,
});

describe('JSON-RPC fuzzing (fast-check)', () => {
  it('unmutated templates are accepted first (the fuzzer starts from valid requests)', async () => {
    for (const method of METHODS.filter(
      (m) => m !== 'CancelTask' && m !== 'DeleteTaskPushNotificationConfig',
    )) {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: validParams(ids)[method] });
      const verdict = await probe(h.db.pool, request(body, 'application/json'), judge);
      expect(verdict, method).toBe('accepted');
    }
  });

  it(
    'junk bodies and media types get a JSON-RPC error and change nothing',
    async () => {
      await fc.assert(
        fc.asyncProperty(junkBody, contentType, async (body, type) => {
          expect(await probe(h.db.pool, request(body, type), judge)).toBe('refused');
        }),
        RUNS,
      );
      await expectAlive(h.url, h.fixtures.keys.alice);
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'arbitrary envelopes get a well-formed answer',
    async () => {
      const envelope = fc.record(
        {
          jsonrpc: fc.oneof({ weight: 3, arbitrary: fc.constant('2.0') }, nastyValue),
          id: fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.constant(null), nastyValue),
          method: fc.oneof(
            { weight: 3, arbitrary: fc.constantFrom(...METHODS) },
            fc.constantFrom('message/send', 'tasks/get', 'getTask', 'constructor', '__proto__', 'toString'),
            nastyValue,
          ),
          params: nastyValue,
        },
        { requiredKeys: [] },
      );
      await fc.assert(
        fc.asyncProperty(envelope, async (env) => {
          await probe(h.db.pool, request(toJsonText(env), 'application/json'), judge);
        }),
        RUNS,
      );
      await expectAlive(h.url, h.fixtures.keys.alice);
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'mutated valid requests get a result or a spec error, and refused ones change nothing',
    async () => {
      const mutated = fc.record({
        method: fc.constantFrom(...METHODS),
        mutations: fc.array(mutation, { minLength: 1, maxLength: 3 }),
        headers: serviceHeaders,
        id: fc.oneof(fc.integer(), fc.string({ maxLength: 8 })),
      });
      await fc.assert(
        fc.asyncProperty(mutated, async ({ method, mutations, headers, id }) => {
          const params = mutate(validParams(ids)[method], mutations);
          const body = toJsonText({ jsonrpc: '2.0', id, method, params });
          await probe(h.db.pool, request(body, 'application/json', headers), judge);
        }),
        { numRuns: 100 },
      );
      await expectAlive(h.url, h.fixtures.keys.alice);
    },
    FUZZ_TIMEOUT_MS,
  );
});

describe('JSON-RPC fuzzing of the 0.3 compatibility path (no A2A-Version)', () => {
  const v03Request = (body: string, version: string | undefined): RawRequest => {
    const { 'A2A-Version': _dropped, ...headers } = request(body, 'application/json').headers;
    return {
      ...request(body, 'application/json'),
      headers: version === undefined ? headers : { ...headers, 'A2A-Version': version },
    };
  };

  it('unmutated 0.3 templates are accepted', async () => {
    for (const method of V03_METHODS.filter((m) => m !== 'tasks/cancel' && !m.endsWith('/delete'))) {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: validV03Params(v03Ids)[method] });
      expect(await probe(h.db.pool, v03Request(body, undefined), judge), method).toBe('accepted');
    }
  });

  it(
    'mutated 0.3 requests get a result or a 0.3 error with a spec code, and refused ones change nothing',
    async () => {
      const mutated = fc.record({
        method: fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(...V03_METHODS) },
          fc.constantFrom(...METHODS),
        ),
        mutations: fc.array(mutation, { minLength: 1, maxLength: 3 }),
        version: fc.constantFrom(undefined, '', '0.3', '0.3.0'),
      });
      await fc.assert(
        fc.asyncProperty(mutated, async ({ method, mutations, version }) => {
          const template = validV03Params(v03Ids)[method] ?? validParams(v03Ids)[method];
          const body = toJsonText({ jsonrpc: '2.0', id: 'v03', method, params: mutate(template, mutations) });
          await probe(h.db.pool, v03Request(body, version), judge);
        }),
        { numRuns: 80 },
      );
      await expectAlive(h.url, h.fixtures.keys.alice);
    },
    FUZZ_TIMEOUT_MS,
  );
});
