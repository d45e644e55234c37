import { describe, expect, it } from 'vitest';
import {
  A2AError,
  A2A_METHODS,
  isA2AMethod,
  jsonRpcIdOf,
  parseJsonRequest,
  parseJsonRpcRequest,
} from '../src/index.ts';

function errorOf(fn: () => unknown): A2AError {
  try {
    fn();
  } catch (error) {
    if (error instanceof A2AError) return error;
  }
  throw new Error('expected an A2AError');
}

describe('§4.1 JSON-RPC envelope', () => {
  it('has the 11 PascalCase method names', () => {
    expect(A2A_METHODS).toEqual([
      'SendMessage',
      'SendStreamingMessage',
      'GetTask',
      'ListTasks',
      'CancelTask',
      'SubscribeToTask',
      'CreateTaskPushNotificationConfig',
      'GetTaskPushNotificationConfig',
      'ListTaskPushNotificationConfigs',
      'DeleteTaskPushNotificationConfig',
      'GetExtendedAgentCard',
    ]);
    expect(isA2AMethod('GetTask')).toBe(true);
    expect(isA2AMethod('tasks/get')).toBe(false);
  });

  it.each([['r1'], [7], [null], ['x'.repeat(256)]])('accepts id %j', (id) => {
    expect(parseJsonRpcRequest({ jsonrpc: '2.0', id, method: 'GetTask', params: { id: 't' } })).toEqual({
      jsonrpc: '2.0',
      id,
      method: 'GetTask',
      params: { id: 't' },
    });
  });

  it('params may be omitted', () => {
    expect(
      parseJsonRpcRequest({ jsonrpc: '2.0', id: 1, method: 'GetExtendedAgentCard' }).params,
    ).toBeUndefined();
  });

  it.each([
    ['a batch', [{ jsonrpc: '2.0', id: 1, method: 'GetTask' }]],
    ['a string', 'hello'],
    ['null', null],
    ['jsonrpc 1.0', { jsonrpc: '1.0', id: 1, method: 'GetTask' }],
    ['no jsonrpc', { id: 1, method: 'GetTask' }],
    ['no id (notification)', { jsonrpc: '2.0', method: 'GetTask' }],
    ['an object id', { jsonrpc: '2.0', id: {}, method: 'GetTask' }],
    ['a 257-character id', { jsonrpc: '2.0', id: 'x'.repeat(257), method: 'GetTask' }],
    ['a numeric method', { jsonrpc: '2.0', id: 1, method: 5 }],
  ])('%s is InvalidRequest (-32600)', (_, body) => {
    expect(errorOf(() => parseJsonRpcRequest(body)).kind).toBe('InvalidRequest');
  });

  it.each(['message/send', 'tasks/get', 'sendMessage', ''])(
    'method %j is MethodNotFound (-32601)',
    (method) => {
      const error = errorOf(() => parseJsonRpcRequest({ jsonrpc: '2.0', id: 1, method }));
      expect(error.kind).toBe('MethodNotFound');
      expect(error.metadata).toEqual({ method });
    },
  );

  it('jsonRpcIdOf echoes a readable id and null otherwise', () => {
    expect(jsonRpcIdOf({ id: 'x' })).toBe('x');
    expect(jsonRpcIdOf({ id: 3 })).toBe(3);
    expect(jsonRpcIdOf({ id: {} })).toBeNull();
    // An over-long id is not echoed: the error reply would carry it (JSON-RPC 2.0 §5: null).
    expect(jsonRpcIdOf({ id: 'x'.repeat(257) })).toBeNull();
    expect(jsonRpcIdOf('garbage')).toBeNull();
  });

  it('parseJsonRequest keeps an envelope id past 2^53 exact, and nothing else', () => {
    const text =
      '{"jsonrpc":"2.0","id":9007199254740993,"method":"GetTask","params":{"id":9007199254740993,"n":1.5}}';
    const body = parseJsonRequest(text) as { id: unknown; params: unknown };
    expect(JSON.stringify(jsonRpcIdOf(body))).toBe('9007199254740993');
    expect(JSON.stringify(parseJsonRpcRequest(body).id)).toBe('9007199254740993');
    expect(body.params).toEqual({ id: 9007199254740992, n: 1.5 });
    // A nested object with a jsonrpc member (a data part carrying an envelope) is not the envelope.
    const nested = parseJsonRequest(
      '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"data":{"jsonrpc":"2.0","id":9007199254740993}}}',
    ) as { params: { data: { id: unknown } } };
    expect(nested.params.data.id).toBe(9007199254740992);
    // Past the string id's limit a number id is a double again: every reply would repeat it.
    const huge = `{"jsonrpc":"2.0","id":${'9'.repeat(300)}}`;
    expect(typeof (parseJsonRequest(huge) as { id: unknown }).id).toBe('number');
    // Each request of a batch keeps its own.
    const batch = parseJsonRequest('[{"jsonrpc":"2.0","id":9007199254740993},{"jsonrpc":"2.0","id":2}]');
    expect(JSON.stringify(batch)).toBe('[{"jsonrpc":"2.0","id":9007199254740993},{"jsonrpc":"2.0","id":2}]');
    // A safe or fractional id is an ordinary number.
    expect(parseJsonRequest('{"jsonrpc":"2.0","id":1234567890123456}')).toEqual({
      jsonrpc: '2.0',
      id: 1234567890123456,
    });
    expect(parseJsonRequest('{"jsonrpc":"2.0","id":12345678901234567.5}')).toEqual({
      jsonrpc: '2.0',
      id: 12345678901234568,
    });
  });
});
