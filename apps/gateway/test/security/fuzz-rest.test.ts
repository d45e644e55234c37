import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.ts';
import { send } from '../support/http.ts';
import { userMessage } from '../support/messages.ts';
import { expectAlive, probe, type ProbeReply, type RawRequest } from './fuzz-probe.ts';
import {
  contentType,
  junkBody,
  mutate,
  mutation,
  nastyValue,
  toJsonText,
  validParams,
  type FuzzIds,
} from './fuzz-inputs.ts';
import { expectNoLeak, expectWellFormedRestError } from './well-formed.ts';

// Issue 8, security suite: property-based fuzzing of the HTTP+JSON binding: verbs, paths, query
// strings, bodies and headers. Every refusal is a google.rpc.Status with a 4xx status (digest
// §5.4), nothing leaks, the gateway keeps serving, and a refused request changes nothing.
let h: Harness;
let ids: FuzzIds;

beforeAll(async () => {
  h = await startHarness({
    worker: false,
    env: { BLOCKING_TIMEOUT_MS: '0', WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8' },
  });
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
  ids = { taskId: task.id, contextId: task.contextId, configId: (config.body as { id: string }).id };
});
afterAll(async () => {
  await h?.stop();
});

interface Route {
  verb: string;
  segments: string[];
  query?: Record<string, string>;
  body?: unknown;
}

/** Every HTTP+JSON route (digest §4.2 table), valid as given. */
function routes(): Route[] {
  const p = validParams(ids);
  const { taskId: _t, ...config } = p['CreateTaskPushNotificationConfig']!;
  const task = ids.taskId;
  return [
    { verb: 'POST', segments: ['message:send'], body: p['SendMessage'] },
    { verb: 'POST', segments: ['message:stream'], body: p['SendStreamingMessage'] },
    { verb: 'GET', segments: ['tasks', task], query: { historyLength: '2' } },
    {
      verb: 'GET',
      segments: ['tasks'],
      query: {
        pageSize: '5',
        status: 'TASK_STATE_SUBMITTED',
        contextId: ids.contextId,
        includeArtifacts: 'true',
        statusTimestampAfter: '2026-01-01T00:00:00Z',
        historyLength: '1',
      },
    },
    { verb: 'GET', segments: ['tasks', `${task}:subscribe`] },
    { verb: 'POST', segments: ['tasks', `${task}:subscribe`] },
    { verb: 'POST', segments: ['tasks', task, 'pushNotificationConfigs'], body: config },
    { verb: 'GET', segments: ['tasks', task, 'pushNotificationConfigs'], query: { pageSize: '5' } },
    { verb: 'GET', segments: ['tasks', task, 'pushNotificationConfigs', ids.configId] },
    { verb: 'GET', segments: ['extendedAgentCard'] },
    { verb: 'DELETE', segments: ['tasks', task, 'pushNotificationConfigs', 'fuzz-config'] },
    { verb: 'POST', segments: ['tasks', `${task}:cancel`], body: { metadata: { why: 'fuzz' } } },
  ];
}
const ROUTE_COUNT = 12;
// Moderate run counts keep the file well under a minute on a shared 2-core machine; the timeout
// only bounds a stuck run, it asserts nothing about speed.
const FUZZ_TIMEOUT_MS = 120_000;

const url = (segments: string[], query: string) =>
  `${h.url}/agents/acme/echo/rest/${segments.join('/')}${query === '' ? '' : `?${query}`}`;

const encode = (route: Route) =>
  [route.segments.map(encodeURIComponent), new URLSearchParams(route.query ?? {}).toString()] as const;

const judge = (reply: ProbeReply): 'accepted' | 'refused' => {
  if (reply.stream) {
    expect(reply.status).toBe(200);
    return 'accepted';
  }
  // Node's HTTP parser refuses a request line or headers over its 16 KiB limit before any app code.
  if (reply.status === 431) return 'refused';
  if (reply.status === 200) {
    expectNoLeak(reply.text);
    expect(typeof reply.body, reply.text.slice(0, 200)).toBe('object');
    return 'accepted';
  }
  expectWellFormedRestError(reply);
  return 'refused';
};

const request = (
  verb: string,
  target: string,
  headers: Record<string, string>,
  body?: string | Uint8Array,
): RawRequest => ({
  method: verb,
  url: target,
  headers: { 'A2A-Version': '1.0', 'X-API-Key': h.fixtures.keys.alice, ...headers },
  body,
});

/** Path segments as a client could put them on the wire: raw, so bad percent-encoding gets through. */
const nastySegment = fc.oneof(
  fc.string({ maxLength: 20 }).map(encodeURIComponent),
  fc.constantFrom(
    '%',
    '%zz',
    '%00',
    '%2F',
    '%2e%2e',
    '%ED%A0%80',
    '%C0%AF',
    ':cancel',
    'x:subscribe',
    'tasks',
    'message:send',
    'extendedAgentCard',
    ';',
    'x'.repeat(5000),
    'ffffffff-ffff-ffff-ffff-ffffffffffff',
  ),
);

const nastyQueryValue = fc.oneof(
  nastyValue.filter((v) => typeof v === 'string' || typeof v === 'number').map(String),
  fc.string({ unit: 'binary', maxLength: 20 }),
);

const queryKey = fc.oneof(
  fc.constantFrom(
    'historyLength',
    'pageSize',
    'pageToken',
    'status',
    'contextId',
    'includeArtifacts',
    'statusTimestampAfter',
    'tenant',
    'A2A-Version',
    'lastEventId',
    '__proto__',
  ),
  fc.string({ maxLength: 10 }),
);

describe('HTTP+JSON fuzzing (fast-check)', () => {
  it('unmutated routes are accepted first (the fuzzer starts from valid requests)', async () => {
    expect(routes()).toHaveLength(ROUTE_COUNT);
    for (const route of routes().slice(0, -2)) {
      const [segments, query] = encode(route);
      const body = route.body === undefined ? undefined : JSON.stringify(route.body);
      const headers: Record<string, string> =
        body === undefined ? {} : { 'Content-Type': 'application/json' };
      const verdict = await probe(h.db.pool, request(route.verb, url(segments, query), headers, body), judge);
      expect(verdict, `${route.verb} ${route.segments.join('/')}`).toBe('accepted');
    }
  });

  it(
    'mutated paths, verbs, queries and headers get a well-formed answer',
    async () => {
      const input = fc.record({
        route: fc.nat({ max: ROUTE_COUNT - 1 }),
        verb: fc.option(fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'), { freq: 3 }),
        tenant: fc.option(fc.oneof(fc.constantFrom('acme', 'globex', 'tasks', 'message:send'), nastySegment)),
        segment: fc.option(fc.record({ at: fc.nat(), value: nastySegment })),
        query: fc.array(fc.tuple(queryKey, nastyQueryValue), { maxLength: 4 }),
        rawQuery: fc.option(fc.constantFrom('%', '%zz=1', 'a=%00', '&&&', '=x', 'pageSize=1&pageSize=2')),
        version: fc.option(fc.constantFrom('', '0.3', '1.0.9', '2.0', 'x')),
        lastEventId: fc.option(
          fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('-1', '1e9', '9'.repeat(30))),
        ),
      });
      await fc.assert(
        fc.asyncProperty(input, async (i) => {
          const route = routes()[i.route]!;
          const [encoded, baseQuery] = encode(route);
          const segments = [...encoded];
          if (i.segment) segments[i.segment.at % segments.length] = i.segment.value;
          if (i.tenant !== null) segments.unshift(i.tenant);
          const extra = new URLSearchParams(i.query).toString();
          const query = [baseQuery, extra, i.rawQuery ?? ''].filter((q) => q !== '').join('&');
          const body = route.body === undefined ? undefined : JSON.stringify(route.body);
          const headers: Record<string, string> = {
            ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
            ...(i.version === null ? {} : { 'A2A-Version': i.version }),
            ...(i.lastEventId === null ? {} : { 'Last-Event-ID': i.lastEventId }),
          };
          await probe(h.db.pool, request(i.verb ?? route.verb, url(segments, query), headers, body), judge);
        }),
        { numRuns: 80 },
      );
      await expectAlive(h.url, h.fixtures.keys.alice);
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'mutated and junk bodies get a result or a google.rpc.Status, and refused ones change nothing',
    async () => {
      const bodyRoutes = routes()
        .map((r, index) => ({ r, index }))
        .filter(({ r }) => r.body !== undefined)
        .map(({ index }) => index);
      const input = fc.record({
        route: fc.constantFrom(...bodyRoutes),
        body: fc.oneof(
          { weight: 3, arbitrary: fc.array(mutation, { minLength: 1, maxLength: 3 }) },
          junkBody,
        ),
        type: contentType,
      });
      await fc.assert(
        fc.asyncProperty(input, async ({ route: index, body, type }) => {
          const route = routes()[index]!;
          const [segments, query] = encode(route);
          const raw = Array.isArray(body) ? toJsonText(mutate(route.body, body)) : body;
          const headers: Record<string, string> = type === undefined ? {} : { 'Content-Type': type };
          await probe(h.db.pool, request(route.verb, url(segments, query), headers, raw), judge);
        }),
        { numRuns: 100 },
      );
      await expectAlive(h.url, h.fixtures.keys.alice);
    },
    FUZZ_TIMEOUT_MS,
  );
});
