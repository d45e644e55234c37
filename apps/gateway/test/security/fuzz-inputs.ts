import fc from 'fast-check';

/**
 * Inputs for property-based fuzzing of both bindings (issue 8): valid request templates, the ways
 * a hostile or broken client bends them, and arbitrary junk. Deep nesting is spliced in as raw
 * text, so neither fast-check nor JSON.stringify has to recurse through it.
 */

/** Stands for a value only the raw body text can hold (nesting deeper than a JS stack allows). */
const DEEP = '__deep__';

export interface FuzzIds {
  /** A task alice can see (SUBMITTED: the fuzz harness runs no worker). */
  taskId: string;
  contextId: string;
  /** A push config on that task. */
  configId: string;
}

/** A message that, unmutated, is valid; a fixed messageId keeps accepted repeats idempotent. */
export function validMessage(ids: FuzzIds): Record<string, unknown> {
  return {
    messageId: 'fuzz-message',
    role: 'ROLE_USER',
    parts: [
      { text: 'hello' },
      { raw: 'aGVsbG8=', mediaType: 'text/plain', filename: 'a.txt' },
      { url: 'https://files.example/a.txt' },
      { data: { k: [1, 'two', null] } },
    ],
    contextId: ids.contextId,
    metadata: { trace: 'x' },
    extensions: [],
    referenceTaskIds: [ids.taskId],
  };
}

/** Valid params of every JSON-RPC method. */
export function validParams(ids: FuzzIds): Record<string, Record<string, unknown>> {
  const send = {
    message: validMessage(ids),
    configuration: { returnImmediately: true, historyLength: 2, acceptedOutputModes: ['text/plain'] },
    metadata: { m: 1 },
  };
  return {
    SendMessage: send,
    SendStreamingMessage: send,
    GetTask: { id: ids.taskId, historyLength: 3 },
    ListTasks: {
      contextId: ids.contextId,
      status: 'TASK_STATE_SUBMITTED',
      pageSize: 10,
      pageToken: '',
      historyLength: 1,
      statusTimestampAfter: '2026-01-01T00:00:00Z',
      includeArtifacts: true,
    },
    CancelTask: { id: ids.taskId, metadata: { why: 'fuzz' } },
    SubscribeToTask: { id: ids.taskId },
    CreateTaskPushNotificationConfig: {
      taskId: ids.taskId,
      id: 'fuzz-config',
      url: 'http://127.0.0.1:9/fuzz',
      token: 'tok',
      authentication: { scheme: 'Bearer', credentials: 'secret' },
    },
    GetTaskPushNotificationConfig: { taskId: ids.taskId, id: ids.configId },
    ListTaskPushNotificationConfigs: { taskId: ids.taskId, pageSize: 5, pageToken: '' },
    DeleteTaskPushNotificationConfig: { taskId: ids.taskId, id: 'fuzz-config' },
    GetExtendedAgentCard: {},
  };
}

export const METHODS = Object.keys(validParams({ taskId: '', contextId: '', configId: '' }));

/** Valid params of every 0.3 JSON-RPC method (digest §13.1), served to clients without `A2A-Version`. */
export function validV03Params(ids: FuzzIds): Record<string, Record<string, unknown>> {
  const send = {
    message: {
      kind: 'message',
      messageId: 'fuzz-v03-message',
      role: 'user',
      contextId: ids.contextId,
      parts: [
        { kind: 'text', text: 'hello' },
        { kind: 'file', file: { bytes: 'aGk=', mimeType: 'text/plain', name: 'a.txt' } },
        { kind: 'file', file: { uri: 'https://files.example/a.txt' } },
        { kind: 'data', data: { k: [1, null] } },
      ],
      metadata: { m: 1 },
    },
    configuration: {
      blocking: false,
      historyLength: 2,
      acceptedOutputModes: ['text/plain'],
      pushNotificationConfig: { url: 'http://127.0.0.1:9/v03' },
    },
  };
  return {
    'message/send': send,
    'message/stream': send,
    'tasks/get': { id: ids.taskId, historyLength: 2 },
    'tasks/resubscribe': { id: ids.taskId },
    'tasks/pushNotificationConfig/set': {
      taskId: ids.taskId,
      pushNotificationConfig: {
        id: 'fuzz-v03-config',
        url: 'http://127.0.0.1:9/v03',
        token: 'tok',
        authentication: { schemes: ['Bearer'], credentials: 'secret' },
      },
    },
    'tasks/pushNotificationConfig/get': { id: ids.taskId, pushNotificationConfigId: ids.configId },
    'tasks/pushNotificationConfig/list': { id: ids.taskId },
    'tasks/pushNotificationConfig/delete': { id: ids.taskId, pushNotificationConfigId: 'fuzz-v03-config' },
    'agent/getAuthenticatedExtendedCard': {},
    'tasks/cancel': { id: ids.taskId },
  };
}

export const V03_METHODS = Object.keys(validV03Params({ taskId: '', contextId: '', configId: '' }));

const deep = fc
  .record({ depth: fc.integer({ min: 60, max: 20_000 }), kind: fc.constantFrom('array', 'object') })
  .map(({ depth, kind }) => ({ [DEEP]: { depth, kind } }));

/** Values that break a field: wrong types, sizes past the limits, bad enums, ids and encodings. */
export const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.anything({ maxDepth: 2 }),
  fc.jsonValue({ maxDepth: 3 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(257, 8_193, 70_000, 1_100_000).map((n) => 'x'.repeat(n)),
  fc.integer({ min: 65, max: 300 }).map((n) => Array.from({ length: n }, () => ({ text: 'p' }))),
  deep,
  fc.constantFrom('TASK_STATE_SLEEPING', 'ROLE_ROOT', 'task_state_working', 'TASK_STATE_UNSPECIFIED', 9, -1),
  fc.constantFrom('not base64!', '====', 'a', 'aGVsbG8=x', '\u0000'),
  fc.constantFrom(-1, 0, 101, 2 ** 31, 2 ** 53 + 1, 1e300, -1e300, 1.5, '12abc', ' 7 ', '0x10', true),
  fc.constantFrom(
    '',
    'a/b',
    'y'.repeat(257),
    '../../etc/passwd',
    '%2F',
    'x:cancel',
    'ffffffff-ffff-ffff-ffff-ffffffffffff',
    "' OR 1=1 --",
    '\ud800',
  ),
  fc.constantFrom('yesterday', '2026-13-45T99:99:99Z', '0000-00-00', '+275760-09-13T00:00:00.001Z'),
  fc.constantFrom('javascript:alert(1)', 'file:///etc/passwd', 'http://[::1', 'gopher://x', '//no-scheme'),
);

export type Mutation =
  | { kind: 'set'; at: number; value: unknown }
  | { kind: 'delete'; at: number }
  | { kind: 'add'; at: number; key: string; value: unknown };

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), at: fc.nat(), value: nastyValue }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('add' as const),
    at: fc.nat(),
    key: fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom('__proto__', 'constructor', 'prototype', 'task_id', 'message_id', 'tenant', 'kind'),
    ),
    value: nastyValue,
  }),
);

/** Applies mutations to a deep copy; `at` picks one of the value's nodes (root included). */
export function mutate(value: unknown, mutations: readonly Mutation[]): unknown {
  const root = { v: structuredClone(value) as unknown };
  for (const m of mutations) {
    const slots = slotsOf(root);
    const [parent, key] = slots[m.at % slots.length]!;
    const target = parent[key];
    if (m.kind === 'set') parent[key] = m.value;
    else if (m.kind === 'delete' && parent !== root) {
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else delete parent[key];
    } else if (m.kind === 'add' && typeof target === 'object' && target !== null && !Array.isArray(target)) {
      Object.defineProperty(target, m.key, {
        value: m.value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return root.v;
}

type Slot = [Record<string, unknown>, string];

function slotsOf(root: { v: unknown }): Slot[] {
  const slots: Slot[] = [];
  const walk = (parent: Record<string, unknown>, key: string, depth: number) => {
    slots.push([parent, key]);
    const child = parent[key];
    if (depth > 6 || typeof child !== 'object' || child === null || DEEP in child) return;
    for (const k of Object.keys(child)) walk(child as Record<string, unknown>, k, depth + 1);
  };
  walk(root as unknown as Record<string, unknown>, 'v', 0);
  return slots;
}

/**
 * JSON text of a value, with the deep markers expanded into real nesting. A mutation that removed
 * the whole body (undefined) is sent as an empty body.
 */
export function toJsonText(value: unknown): string {
  return (JSON.stringify(value) ?? '').replace(
    /\{"__deep__":\{"depth":(\d+),"kind":"(array|object)"\}\}/g,
    (_, depth: string, kind: string) => {
      const n = Number(depth);
      return kind === 'array' ? `${'['.repeat(n)}1${']'.repeat(n)}` : `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
    },
  );
}

/** Bodies that are not what the endpoint wants at all: junk text, bad UTF-8, arbitrary JSON. */
export const junkBody: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.uint8Array({ maxLength: 64 }),
  fc.constantFrom(
    '',
    ' ',
    '{',
    '[]',
    'null',
    '"x"',
    '1e999999',
    '{"a":1,}',
    '\ufeff{}',
    '{"__proto__":{"x":1}}',
  ),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  deep.map(toJsonText),
);

export const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  fc.constantFrom(
    undefined,
    'application/a2a+json',
    'text/plain',
    'application/json; charset=latin1',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    ';;;',
  ),
);
