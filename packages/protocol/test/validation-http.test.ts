import { describe, expect, it } from 'vitest';
import {
  A2AError,
  parseCancelTaskBody,
  parseCreatePushConfigBody,
  parseGetTaskQuery,
  parseListPushConfigsQuery,
  parseListTasksQuery,
  parseRequestParams,
  parseSendMessageBody,
} from '../src/index.ts';
import { expectViolation, userMessage } from './helpers.ts';

function kindOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof A2AError ? error.kind : 'not an A2AError';
  }
  return undefined;
}

describe('§4.2 POST /message:send and /message:stream body', () => {
  it('is a SendMessageRequest, validated like JSON-RPC params', () => {
    const body = { message: userMessage(), configuration: { returnImmediately: true } };
    expect(parseSendMessageBody(body)).toEqual(parseRequestParams('SendMessage', body));
  });
  it('gives the same field violations as JSON-RPC', () => {
    expectViolation(
      () => parseSendMessageBody({ message: userMessage({ parts: [{}] }) }),
      'message.parts[0]',
      'exactly one of text, raw, url, data must be set',
    );
  });
  it.each([[undefined], [null], [[]], ['text'], [1]])(
    'body %j that is not an object is InvalidParams',
    (body) => {
      expect(kindOf(() => parseSendMessageBody(body))).toBe('InvalidParams');
    },
  );
  it('§2.6 the /{tenant} path segment replaces a body tenant', () => {
    expect(parseSendMessageBody({ tenant: 'body', message: userMessage() }, { tenant: 'path' }).tenant).toBe(
      'path',
    );
    expect(parseSendMessageBody({ tenant: 'body', message: userMessage() }).tenant).toBe('body');
  });
});

describe('§4.2 POST /tasks/{id}:cancel body', () => {
  it('accepts an empty body', () => {
    expect(parseCancelTaskBody('t1', undefined)).toEqual({ id: 't1' });
    expect(parseCancelTaskBody('t1', {})).toEqual({ id: 't1' });
    expect(parseCancelTaskBody('t1', '')).toEqual({ id: 't1' });
  });
  it('accepts metadata', () =>
    expect(parseCancelTaskBody('t1', { metadata: { a: 1 } })).toEqual({ id: 't1', metadata: { a: 1 } }));
  it('the path id wins over a body id', () =>
    expect(parseCancelTaskBody('t1', { id: 'other' }).id).toBe('t1'));
  it('validates the path id', () =>
    expectViolation(() => parseCancelTaskBody('', {}), 'id', 'must not be empty'));
  it('keeps the path tenant', () =>
    expect(parseCancelTaskBody('t1', {}, { tenant: 'acme' })).toEqual({ id: 't1', tenant: 'acme' }));
  it('a non-object body is InvalidParams', () =>
    expect(kindOf(() => parseCancelTaskBody('t1', [1]))).toBe('InvalidParams'));
});

describe('§4.2 POST /tasks/{taskId}/pushNotificationConfigs body', () => {
  it('takes taskId from the path', () => {
    expect(parseCreatePushConfigBody('t1', { url: 'https://c.example/h', token: 'x' })).toEqual({
      taskId: 't1',
      url: 'https://c.example/h',
      token: 'x',
    });
  });
  it('a body taskId equal to the path is fine', () => {
    expect(parseCreatePushConfigBody('t1', { taskId: 't1', url: 'https://c.example/h' }).taskId).toBe('t1');
  });
  it('a body taskId naming another task is InvalidParams', () => {
    expectViolation(
      () => parseCreatePushConfigBody('t1', { taskId: 't2', url: 'https://c.example/h' }),
      'taskId',
      'must match the task id in the path',
    );
  });
  it('url is required', () =>
    expectViolation(() => parseCreatePushConfigBody('t1', {}), 'url', 'is required'));
});

describe('§4.2 GET /tasks/{id} query', () => {
  it('parses historyLength from a string', () =>
    expect(parseGetTaskQuery('t1', { historyLength: '4' })).toEqual({ id: 't1', historyLength: 4 }));
  it('no query at all', () => expect(parseGetTaskQuery('t1', {})).toEqual({ id: 't1' }));
  it('§7.3 negative historyLength is InvalidParams', () =>
    expectViolation(() => parseGetTaskQuery('t1', { historyLength: '-1' }), 'historyLength'));
  it('a non-numeric historyLength is InvalidParams', () =>
    expectViolation(() => parseGetTaskQuery('t1', { historyLength: '1e3' }), 'historyLength'));
  it('ignores A2A-Version and other unknown parameters', () => {
    expect(parseGetTaskQuery('t1', { 'A2A-Version': '1.0', foo: 'bar' })).toEqual({ id: 't1' });
  });
  it('the path id wins over a query id', () =>
    expect(parseGetTaskQuery('t1', { id: 'other' }).id).toBe('t1'));
  it('an empty value means unset', () =>
    expect(parseGetTaskQuery('t1', { historyLength: '' })).toEqual({ id: 't1' }));
});

describe('§4.2 GET /tasks query (§11.5 query rules)', () => {
  it('parses every ListTasks field from strings', () => {
    expect(
      parseListTasksQuery({
        contextId: 'c1',
        status: 'TASK_STATE_INPUT_REQUIRED',
        pageSize: '25',
        pageToken: 'abc',
        historyLength: '0',
        statusTimestampAfter: '2026-01-01T00:00:00Z',
        includeArtifacts: 'false',
      }),
    ).toEqual({
      contextId: 'c1',
      status: 'TASK_STATE_INPUT_REQUIRED',
      pageSize: 25,
      pageToken: 'abc',
      historyLength: 0,
      statusTimestampAfter: '2026-01-01T00:00:00.000Z',
      includeArtifacts: false,
    });
  });
  it('booleans are the words true/false', () => {
    expect(parseListTasksQuery({ includeArtifacts: 'true' }).includeArtifacts).toBe(true);
    expectViolation(
      () => parseListTasksQuery({ includeArtifacts: 'yes' }),
      'includeArtifacts',
      'must be a boolean',
    );
    expectViolation(() => parseListTasksQuery({ includeArtifacts: '1' }), 'includeArtifacts');
  });
  it('§7.4 rule 22 pageSize=150 is InvalidParams', () =>
    expectViolation(
      () => parseListTasksQuery({ pageSize: '150' }),
      'pageSize',
      'must be an integer between 1 and 100',
    ));
  it('a pageSize that is no integer says so, as the JSON-RPC binding does', () => {
    for (const pageSize of ['1.5', 'ten'])
      expectViolation(() => parseListTasksQuery({ pageSize }), 'pageSize', 'must be an integer');
  });
  it('§7.4 rule 22 pageSize=0 is InvalidParams', () =>
    expectViolation(() => parseListTasksQuery({ pageSize: '0' }), 'pageSize'));
  it('§7.4 rule 23 an unknown status name is InvalidParams', () =>
    expectViolation(() => parseListTasksQuery({ status: 'TASK_STATE_BOGUS' }), 'status'));
  it('§7.4 rule 23 status=TASK_STATE_UNSPECIFIED means no filter', () =>
    expect(parseListTasksQuery({ status: 'TASK_STATE_UNSPECIFIED' })).toEqual({}));
  it('§1 status as an enum number string', () =>
    expect(parseListTasksQuery({ status: '3' }).status).toBe('TASK_STATE_COMPLETED'));
  it('an invalid timestamp is InvalidParams', () =>
    expectViolation(
      () => parseListTasksQuery({ statusTimestampAfter: 'last week' }),
      'statusTimestampAfter',
    ));
  it('repeated identical values are tolerated', () =>
    expect(parseListTasksQuery({ pageSize: ['10', '10'] }).pageSize).toBe(10));
  it('a single-element array is a value', () =>
    expect(parseListTasksQuery({ status: ['TASK_STATE_WORKING'] }).status).toBe('TASK_STATE_WORKING'));
  it('conflicting repeated values are InvalidParams', () => {
    expectViolation(
      () => parseListTasksQuery({ pageSize: ['10', '20'] }),
      'pageSize',
      'must be given at most once',
    );
  });
  it('reports repeated and invalid fields together', () => {
    expectViolation(
      () => parseListTasksQuery({ pageSize: ['10', '20'], historyLength: '-2' }),
      'historyLength',
    );
  });
  it('undefined values are skipped', () => expect(parseListTasksQuery({ contextId: undefined })).toEqual({}));
  it('snake_case query names are accepted', () =>
    expect(parseListTasksQuery({ page_size: '5' }).pageSize).toBe(5));
  it('keeps the path tenant', () =>
    expect(parseListTasksQuery({}, { tenant: 'acme' })).toEqual({ tenant: 'acme' }));
});

describe('§4.2 GET /tasks/{taskId}/pushNotificationConfigs query', () => {
  it('parses pageSize and pageToken', () => {
    expect(parseListPushConfigsQuery('t1', { pageSize: '10', pageToken: 'n' })).toEqual({
      taskId: 't1',
      pageSize: 10,
      pageToken: 'n',
    });
  });
  it('pageSize above 100 is served as 100; a negative one is InvalidParams', () => {
    expect(parseListPushConfigsQuery('t1', { pageSize: '500' })).toEqual({ taskId: 't1', pageSize: 100 });
    expectViolation(() => parseListPushConfigsQuery('t1', { pageSize: '-1' }), 'pageSize');
  });
  it('validates the path taskId', () => expectViolation(() => parseListPushConfigsQuery('', {}), 'taskId'));
});
