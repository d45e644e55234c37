import { describe, expect, it } from 'vitest';
import {
  A2AError,
  fromV03AuthenticationInfo,
  fromV03CancelParams,
  fromV03DeletePushConfigParams,
  fromV03GetPushConfigParams,
  fromV03ListPushConfigParams,
  fromV03Message,
  fromV03Part,
  fromV03PushConfigList,
  fromV03ResubscribeParams,
  fromV03Role,
  fromV03SendParams,
  fromV03SendResult,
  fromV03SetPushConfigParams,
  fromV03StreamResult,
  fromV03Task,
  fromV03TaskQueryParams,
  fromV03TaskState,
  isV03Method,
  parseRequestParams,
  toV03AuthenticationInfo,
  toV03CancelParams,
  toV03DeletePushConfigParams,
  toV03GetPushConfigParams,
  toV03ListPushConfigParams,
  toV03Message,
  toV03Method,
  toV03Part,
  toV03PushConfigList,
  toV03ResubscribeParams,
  toV03Role,
  toV03SendParams,
  toV03SendResult,
  toV03SetPushConfigParams,
  toV03StreamResult,
  toV03Task,
  toV03TaskQueryParams,
  toV03TaskState,
  V03_METHODS,
  type A2AMethod,
  type Message,
  type MessageV03,
  type Part,
  type PartV03,
  type StreamResponse,
  type StreamResultV03,
  type Task,
  type TaskState,
  type TaskStateV03,
  type TaskV03,
} from '../src/index.ts';

// Digest §13: every 0.3 JSON-RPC shape against its 1.0 twin. Each row is checked in both
// directions where both exist (0.3 → 1.0 serves 0.3 clients, 1.0 → 0.3 calls 0.3 agents).

describe('§13.1 JSON-RPC method names', () => {
  const table: Array<[string, A2AMethod]> = [
    ['message/send', 'SendMessage'],
    ['message/stream', 'SendStreamingMessage'],
    ['tasks/get', 'GetTask'],
    ['tasks/cancel', 'CancelTask'],
    ['tasks/resubscribe', 'SubscribeToTask'],
    ['tasks/pushNotificationConfig/set', 'CreateTaskPushNotificationConfig'],
    ['tasks/pushNotificationConfig/get', 'GetTaskPushNotificationConfig'],
    ['tasks/pushNotificationConfig/list', 'ListTaskPushNotificationConfigs'],
    ['tasks/pushNotificationConfig/delete', 'DeleteTaskPushNotificationConfig'],
    ['agent/getAuthenticatedExtendedCard', 'GetExtendedAgentCard'],
  ];
  it.each(table)('%s ↔ %s', (v03, v1) => {
    expect(isV03Method(v03)).toBe(true);
    expect(V03_METHODS[v03 as keyof typeof V03_METHODS]).toBe(v1);
    expect(toV03Method(v1)).toBe(v03);
  });
  it('ListTasks has no 0.3 JSON-RPC method', () => {
    expect(toV03Method('ListTasks')).toBeUndefined();
    expect(isV03Method('tasks/list')).toBe(false);
    expect(Object.keys(V03_METHODS)).toHaveLength(table.length);
  });
});

describe('§13.3 enums', () => {
  const states: Array<[TaskStateV03, TaskState]> = [
    ['submitted', 'TASK_STATE_SUBMITTED'],
    ['working', 'TASK_STATE_WORKING'],
    ['input-required', 'TASK_STATE_INPUT_REQUIRED'],
    ['completed', 'TASK_STATE_COMPLETED'],
    ['canceled', 'TASK_STATE_CANCELED'],
    ['failed', 'TASK_STATE_FAILED'],
    ['rejected', 'TASK_STATE_REJECTED'],
    ['auth-required', 'TASK_STATE_AUTH_REQUIRED'],
    ['unknown', 'TASK_STATE_UNSPECIFIED'],
  ];
  it.each(states)('TaskState %s ↔ %s', (v03, v1) => {
    expect(toV03TaskState(v1)).toBe(v03);
    expect(fromV03TaskState(v03)).toBe(v1);
  });
  it.each([
    ['user', 'ROLE_USER'],
    ['agent', 'ROLE_AGENT'],
  ] as const)('Role %s ↔ %s', (v03, v1) => {
    expect(toV03Role(v1)).toBe(v03);
    expect(fromV03Role(v03)).toBe(v1);
  });
  it('an unknown 0.3 value passes through for the 1.0 validator to reject', () => {
    expect(fromV03TaskState('paused' as TaskStateV03)).toBe('paused');
    expect(fromV03Role('system' as 'user')).toBe('system');
  });
});

describe('§13.3 parts (kind discriminator ↔ oneof member)', () => {
  const table: Array<[string, PartV03, Part]> = [
    ['text', { kind: 'text', text: 'hi', metadata: { k: 'v' } }, { text: 'hi', metadata: { k: 'v' } }],
    [
      'file with bytes',
      { kind: 'file', file: { bytes: 'aGk=', mimeType: 'text/plain', name: 'a.txt' } },
      { raw: 'aGk=', mediaType: 'text/plain', filename: 'a.txt' },
    ],
    [
      'file with uri',
      { kind: 'file', file: { uri: 'https://x.example/a.png', mimeType: 'image/png' } },
      { url: 'https://x.example/a.png', mediaType: 'image/png' },
    ],
    ['data object', { kind: 'data', data: { a: 1 } }, { data: { a: 1 } }],
    [
      'data that is not an object (wrapped, a2a-js convention)',
      { kind: 'data', data: { value: [1, 2] }, metadata: { data_part_compat: true } },
      { data: [1, 2] },
    ],
    [
      'wrapped data keeps other metadata',
      { kind: 'data', data: { value: 'x' }, metadata: { k: 'v', data_part_compat: true } },
      { data: 'x', metadata: { k: 'v' } },
    ],
  ];
  it.each(table)('%s', (_name, v03, v1) => {
    expect(toV03Part(v1)).toEqual(v03);
    expect(fromV03Part(v03)).toEqual(v1);
  });
  it('1.0 → 0.3: URL-safe base64 becomes standard; mediaType of a text part has no 0.3 place', () => {
    expect(toV03Part({ raw: 'a-_b' })).toEqual({ kind: 'file', file: { bytes: 'a+/b' } });
    expect(toV03Part({ text: 't', mediaType: 'text/plain' })).toEqual({ kind: 'text', text: 't' });
  });
  it('0.3 → 1.0: a part without kind is read by its member; an unknown kind stays invalid', () => {
    expect(fromV03Part({ text: 'x' } as PartV03)).toEqual({ text: 'x' });
    expect(fromV03Part({ kind: 'video', src: 'x' } as unknown as PartV03)).toEqual({ src: 'x' });
  });
});

const v1Message: Message = {
  messageId: 'm1',
  contextId: 'c1',
  taskId: 't1',
  role: 'ROLE_AGENT',
  parts: [{ text: 'hello' }],
  metadata: { k: 'v' },
  extensions: ['urn:x'],
  referenceTaskIds: ['t0'],
};
const v03Message: MessageV03 = {
  kind: 'message',
  messageId: 'm1',
  contextId: 'c1',
  taskId: 't1',
  role: 'agent',
  parts: [{ kind: 'text', text: 'hello' }],
  metadata: { k: 'v' },
  extensions: ['urn:x'],
  referenceTaskIds: ['t0'],
};
const v1Task: Task = {
  id: 't1',
  contextId: 'c1',
  status: { state: 'TASK_STATE_INPUT_REQUIRED', message: v1Message, timestamp: '2026-01-01T00:00:00.000Z' },
  artifacts: [{ artifactId: 'a1', name: 'out', parts: [{ data: { n: 1 } }], extensions: ['urn:y'] }],
  history: [{ messageId: 'm0', role: 'ROLE_USER', parts: [{ text: 'q' }] }],
  metadata: { m: true },
};
const v03Task: TaskV03 = {
  kind: 'task',
  id: 't1',
  contextId: 'c1',
  status: { state: 'input-required', message: v03Message, timestamp: '2026-01-01T00:00:00.000Z' },
  artifacts: [
    { artifactId: 'a1', name: 'out', parts: [{ kind: 'data', data: { n: 1 } }], extensions: ['urn:y'] },
  ],
  history: [{ kind: 'message', messageId: 'm0', role: 'user', parts: [{ kind: 'text', text: 'q' }] }],
  metadata: { m: true },
};

describe('§13.3 objects and stream events', () => {
  it('Message: kind "message" ↔ no kind', () => {
    expect(toV03Message(v1Message)).toEqual(v03Message);
    expect(fromV03Message(v03Message)).toEqual(v1Message);
  });

  it('Task: kind "task", lowercase state, nested messages and artifacts', () => {
    expect(toV03Task(v1Task)).toEqual(v03Task);
    expect(fromV03Task(v03Task)).toEqual(v1Task);
  });

  const events: Array<[string, StreamResultV03, StreamResponse]> = [
    ['task', v03Task, { task: v1Task }],
    ['message', v03Message, { message: v1Message }],
    [
      'status-update (interrupted: final)',
      {
        kind: 'status-update',
        taskId: 't1',
        contextId: 'c1',
        status: { state: 'input-required' },
        final: true,
        metadata: { x: 1 },
      },
      {
        statusUpdate: {
          taskId: 't1',
          contextId: 'c1',
          status: { state: 'TASK_STATE_INPUT_REQUIRED' },
          metadata: { x: 1 },
        },
      },
    ],
    [
      'artifact-update',
      {
        kind: 'artifact-update',
        taskId: 't1',
        contextId: 'c1',
        artifact: { artifactId: 'a1', parts: [{ kind: 'text', text: 'chunk' }] },
        append: true,
        lastChunk: false,
      },
      {
        artifactUpdate: {
          taskId: 't1',
          contextId: 'c1',
          artifact: { artifactId: 'a1', parts: [{ text: 'chunk' }] },
          append: true,
          lastChunk: false,
        },
      },
    ],
  ];
  it.each(events)('StreamResponse %s ↔ bare 0.3 result', (_name, v03, v1) => {
    expect(toV03StreamResult(v1)).toEqual(v03);
    expect(fromV03StreamResult(v03)).toEqual(v1);
  });

  it.each([
    ['TASK_STATE_SUBMITTED', false],
    ['TASK_STATE_WORKING', false],
    ['TASK_STATE_INPUT_REQUIRED', true],
    ['TASK_STATE_AUTH_REQUIRED', true],
    ['TASK_STATE_COMPLETED', true],
    ['TASK_STATE_FAILED', true],
    ['TASK_STATE_CANCELED', true],
    ['TASK_STATE_REJECTED', true],
  ] as const)('status-update in %s has final=%s (terminal or interrupted)', (state, final) => {
    const result = toV03StreamResult({ statusUpdate: { taskId: 't', contextId: 'c', status: { state } } });
    expect(result).toMatchObject({ kind: 'status-update', final });
  });

  it('an unknown 0.3 event kind is InvalidAgentResponse', () => {
    expect(() => fromV03StreamResult({ kind: 'progress' } as unknown as StreamResultV03)).toThrow(A2AError);
    expect(() => fromV03SendResult({ kind: 'status-update' } as unknown as TaskV03)).toThrow(/neither/);
  });
});

describe('§13.1 params and results of every method', () => {
  const pushV03 = {
    id: 'p1',
    url: 'https://hooks.example/a2a',
    token: 'tok',
    authentication: { schemes: ['Bearer'], credentials: 'secret' },
  };
  const pushV1 = {
    id: 'p1',
    url: 'https://hooks.example/a2a',
    token: 'tok',
    authentication: { scheme: 'Bearer', credentials: 'secret' },
  };

  it.each([
    ['blocking: true', true, false],
    ['blocking: false', false, true],
  ])(
    'message/send and message/stream params, %s ↔ returnImmediately',
    (_name, blocking, returnImmediately) => {
      const v03 = {
        message: { ...v03Message, role: 'user' as const },
        configuration: {
          acceptedOutputModes: ['text/plain'],
          historyLength: 2,
          pushNotificationConfig: pushV03,
          blocking,
        },
        metadata: { trace: 'x' },
      };
      const v1 = {
        message: { ...v1Message, role: 'ROLE_USER' as const },
        configuration: {
          acceptedOutputModes: ['text/plain'],
          historyLength: 2,
          taskPushNotificationConfig: pushV1,
          returnImmediately,
        },
        metadata: { trace: 'x' },
      };
      expect(fromV03SendParams(v03)).toEqual(v1);
      expect(toV03SendParams(v1)).toEqual(v03);
    },
  );

  it('unset blocking is blocking: returnImmediately left unset (1.0 default); toV03 always says it', () => {
    const v1 = fromV03SendParams({ message: v03Message, configuration: { acceptedOutputModes: [] } });
    expect(v1.configuration).toEqual({ acceptedOutputModes: [] });
    expect(toV03SendParams({ message: v1Message }).configuration).toBeUndefined();
    expect(toV03SendParams({ message: v1Message, configuration: {} }).configuration).toEqual({
      blocking: true,
    });
  });

  it('translated 0.3 params pass the 1.0 validator, which still names what is wrong', () => {
    const ok = parseRequestParams(
      'SendMessage',
      fromV03SendParams({
        message: { kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'text', text: 'x' }] },
      }),
    );
    expect(ok.message.parts).toEqual([{ text: 'x' }]);
    expect(() =>
      parseRequestParams(
        'SendMessage',
        fromV03SendParams({
          message: { kind: 'message', messageId: 'm', role: 'user', parts: 'x' as never },
        }),
      ),
    ).toThrow(A2AError);
    expect(() => parseRequestParams('SendMessage', fromV03SendParams('nope' as never))).toThrow(A2AError);
  });

  const pairs: Array<[string, unknown, unknown, (v1: never) => unknown, (v03: never) => unknown]> = [
    [
      'tasks/get',
      { id: 't1', historyLength: 3 },
      { id: 't1', historyLength: 3 },
      toV03TaskQueryParams,
      fromV03TaskQueryParams,
    ],
    [
      'tasks/cancel',
      { id: 't1', metadata: { why: 'x' } },
      { id: 't1', metadata: { why: 'x' } },
      toV03CancelParams,
      fromV03CancelParams,
    ],
    ['tasks/resubscribe', { id: 't1' }, { id: 't1' }, toV03ResubscribeParams, fromV03ResubscribeParams],
    [
      'tasks/pushNotificationConfig/set (nested ↔ flat)',
      { taskId: 't1', pushNotificationConfig: pushV03 },
      { taskId: 't1', ...pushV1 },
      toV03SetPushConfigParams,
      fromV03SetPushConfigParams,
    ],
    [
      'tasks/pushNotificationConfig/get ({id: task, pushNotificationConfigId} ↔ {taskId, id})',
      { id: 't1', pushNotificationConfigId: 'p1' },
      { taskId: 't1', id: 'p1' },
      toV03GetPushConfigParams,
      fromV03GetPushConfigParams,
    ],
    [
      'tasks/pushNotificationConfig/list',
      { id: 't1' },
      { taskId: 't1' },
      toV03ListPushConfigParams,
      fromV03ListPushConfigParams,
    ],
    [
      'tasks/pushNotificationConfig/delete',
      { id: 't1', pushNotificationConfigId: 'p1' },
      { taskId: 't1', id: 'p1' },
      toV03DeletePushConfigParams,
      fromV03DeletePushConfigParams,
    ],
  ];
  it.each(pairs)('%s params', (_name, v03, v1, to, from) => {
    expect(to(v1 as never)).toEqual(v03);
    expect(from(v03 as never)).toEqual(v1);
  });

  it('0.3-only params have no 1.0 place: tasks/get metadata is dropped, a get without config id keeps none', () => {
    expect(fromV03TaskQueryParams({ id: 't1', metadata: { a: 1 } })).toEqual({ id: 't1' });
    expect(fromV03GetPushConfigParams({ id: 't1' })).toEqual({ taskId: 't1' });
  });

  it('push auth: schemes[] ↔ scheme (the first of several is kept)', () => {
    expect(toV03AuthenticationInfo({ scheme: 'Basic', credentials: 'c' })).toEqual({
      schemes: ['Basic'],
      credentials: 'c',
    });
    expect(fromV03AuthenticationInfo({ schemes: ['Basic'], credentials: 'c' })).toEqual({
      scheme: 'Basic',
      credentials: 'c',
    });
    expect(fromV03AuthenticationInfo({ schemes: ['Bearer', 'Basic'] })).toEqual({ scheme: 'Bearer' });
  });

  it('message/send result: {task} / {message} ↔ the bare object with kind', () => {
    expect(toV03SendResult({ task: v1Task })).toEqual(v03Task);
    expect(toV03SendResult({ message: v1Message })).toEqual(v03Message);
    expect(fromV03SendResult(v03Task)).toEqual({ task: v1Task });
    expect(fromV03SendResult(v03Message)).toEqual({ message: v1Message });
  });

  it('tasks/pushNotificationConfig/list result: {configs, nextPageToken} ↔ array of nested configs', () => {
    const v1 = { configs: [{ taskId: 't1', ...pushV1 }], nextPageToken: '' };
    const v03 = [{ taskId: 't1', pushNotificationConfig: pushV03 }];
    expect(toV03PushConfigList(v1)).toEqual(v03);
    expect(fromV03PushConfigList(v03)).toEqual(v1);
  });
});

describe('untrusted 0.3 input', () => {
  it('a __proto__ key stays an own key and never becomes a prototype', () => {
    const message = JSON.parse(
      '{"kind":"message","messageId":"m","role":"user","parts":[],"__proto__":{"taskId":"t-evil"}}',
    ) as MessageV03;
    const v1 = fromV03Message(message) as Message & Record<string, unknown>;
    expect(Object.getPrototypeOf(v1)).toBe(Object.prototype);
    expect(v1.taskId).toBeUndefined();
  });
});
