import { describe, expect, it } from 'vitest';
import { A2AError, TASK_STATES, parseRequestParams } from '../src/index.ts';
import { expectViolation } from './helpers.ts';

describe('GetTask params (§2.4, §7.3)', () => {
  const get = (params: unknown) => parseRequestParams('GetTask', params);

  it('accepts id, historyLength and tenant', () => {
    expect(get({ id: 't1', historyLength: 10, tenant: 'acme' })).toEqual({
      id: 't1',
      historyLength: 10,
      tenant: 'acme',
    });
  });
  it('id is required', () => expectViolation(() => get({}), 'id', 'is required'));
  it('absent params report the missing id', () => expectViolation(() => get(undefined), 'id', 'is required'));
  it('id must not be empty', () => expectViolation(() => get({ id: '' }), 'id', 'must not be empty'));
  it('id must not contain "/" (§4.2)', () =>
    expectViolation(() => get({ id: 'tasks/1' }), 'id', "must not contain '/'"));
  it('§7.3 negative historyLength is InvalidParams', () =>
    expectViolation(() => get({ id: 't', historyLength: -1 }), 'historyLength'));
  it('§7.3 historyLength 0 is valid', () => expect(get({ id: 't', historyLength: 0 }).historyLength).toBe(0));
  it('§1 historyLength as a numeric string', () =>
    expect(get({ id: 't', historyLength: '3' }).historyLength).toBe(3));
  it('historyLength above int32 is rejected', () =>
    expectViolation(() => get({ id: 't', historyLength: 2 ** 31 }), 'historyLength'));
});

describe('ListTasks params (§2.4, §7.4)', () => {
  const list = (params: unknown) => parseRequestParams('ListTasks', params);

  it('accepts no filters at all', () => expect(list({})).toEqual({}));

  it('accepts every field and normalizes them', () => {
    expect(
      list({
        tenant: 'acme',
        contextId: 'c1',
        status: 'TASK_STATE_WORKING',
        pageSize: '50',
        pageToken: 'opaque',
        historyLength: 2,
        statusTimestampAfter: '2026-03-01T12:00:00+02:00',
        includeArtifacts: true,
      }),
    ).toEqual({
      tenant: 'acme',
      contextId: 'c1',
      status: 'TASK_STATE_WORKING',
      pageSize: 50,
      pageToken: 'opaque',
      historyLength: 2,
      statusTimestampAfter: '2026-03-01T10:00:00.000Z',
      includeArtifacts: true,
    });
  });

  it.each(TASK_STATES.filter((s) => s !== 'TASK_STATE_UNSPECIFIED'))(
    '§2.1 status %s is a valid filter',
    (status) => {
      expect(list({ status }).status).toBe(status);
    },
  );

  it('§7.4 rule 23 TASK_STATE_UNSPECIFIED means no filter', () => {
    const parsed = list({ status: 'TASK_STATE_UNSPECIFIED' });
    expect(parsed).toEqual({});
    expect('status' in parsed).toBe(false);
  });

  it('§1 status as the enum number is read leniently', () => {
    expect(list({ status: 2 }).status).toBe('TASK_STATE_WORKING');
    expect(list({ status: 0 })).toEqual({});
  });

  it.each(['TASK_STATE_DONE', 'working', 'TASK_STATE_CANCELLED', 9, true])(
    '§7.4 rule 23 unknown status %j is InvalidParams',
    (status) => {
      expectViolation(() => list({ status }), 'status', /TaskState/);
    },
  );

  it.each([1, 50, 100, '1', '100'])('§7.4 rule 22 pageSize %j is in range', (pageSize) => {
    expect(list({ pageSize }).pageSize).toBe(Number(pageSize));
  });

  it.each([0, -1, 101, 150, '150', 1.5, 'ten'])(
    '§7.4 rule 22 pageSize %j is InvalidParams (not clamped)',
    (pageSize) => {
      expectViolation(() => list({ pageSize }), 'pageSize');
    },
  );

  it('the pageSize violation states the range', () => {
    expectViolation(() => list({ pageSize: 150 }), 'pageSize', 'must be an integer between 1 and 100');
  });

  it('§7.3 negative historyLength is InvalidParams', () =>
    expectViolation(() => list({ historyLength: -5 }), 'historyLength'));

  it.each([
    'yesterday',
    '2026-13-01T00:00:00Z',
    '2026-02-30T00:00:00Z',
    '2026-01-01',
    '2026-01-01T00:00:00',
    1_700_000_000,
  ])('§1 statusTimestampAfter %j is not an RFC 3339 timestamp', (statusTimestampAfter) => {
    expectViolation(() => list({ statusTimestampAfter }), 'statusTimestampAfter');
  });

  it('includeArtifacts must be a boolean', () =>
    expectViolation(() => list({ includeArtifacts: 'true' }), 'includeArtifacts', 'must be a boolean'));
  it('contextId must not contain "/"', () => expectViolation(() => list({ contextId: 'a/b' }), 'contextId'));
  it('"" pageToken means the first page', () => expect(list({ pageToken: '' })).toEqual({}));
});

describe('CancelTask params (§2.4, §7.5)', () => {
  const cancel = (params: unknown) => parseRequestParams('CancelTask', params);
  it('accepts id and metadata', () =>
    expect(cancel({ id: 't1', metadata: { why: 'user' } })).toEqual({ id: 't1', metadata: { why: 'user' } }));
  it('id is required', () => expectViolation(() => cancel({ metadata: {} }), 'id', 'is required'));
  it('metadata must be an object', () =>
    expectViolation(() => cancel({ id: 't', metadata: 'x' }), 'metadata'));
});

describe('SubscribeToTask params (§2.4, §7.6)', () => {
  const sub = (params: unknown) => parseRequestParams('SubscribeToTask', params);
  it('accepts id and tenant', () =>
    expect(sub({ id: 't1', tenant: 'x' })).toEqual({ id: 't1', tenant: 'x' }));
  it('id is required', () => expectViolation(() => sub({}), 'id', 'is required'));
  it('id must be a string', () => expectViolation(() => sub({ id: 42 }), 'id', 'must be a string'));
});

describe('GetExtendedAgentCard params (§4.1: may be omitted, {} or {tenant})', () => {
  const card = (params: unknown) => parseRequestParams('GetExtendedAgentCard', params);
  it('absent params', () => expect(card(undefined)).toEqual({}));
  it('null params', () => expect(card(null)).toEqual({}));
  it('empty object', () => expect(card({})).toEqual({}));
  it('tenant is kept', () => expect(card({ tenant: 't-1' })).toEqual({ tenant: 't-1' }));
  it('tenant must be a string', () =>
    expectViolation(() => card({ tenant: 1 }), 'tenant', 'must be a string'));
});

describe('JSON-RPC params shape', () => {
  it.each([[[1, 2]], ['str'], [42], [true]])('params %j that is not an object is InvalidParams', (params) => {
    expect(() => parseRequestParams('GetTask', params)).toThrow(A2AError);
    try {
      parseRequestParams('GetTask', params);
    } catch (error) {
      expect((error as A2AError).kind).toBe('InvalidParams');
      expect((error as A2AError).message).toBe('params must be a JSON object');
    }
  });

  it('an unknown method name is MethodNotFound', () => {
    try {
      parseRequestParams('tasks/get' as never, {});
      expect.unreachable();
    } catch (error) {
      expect((error as A2AError).kind).toBe('MethodNotFound');
    }
  });
});
