import { describe, expect, it } from 'vitest';
import { parseRequestParams } from '../src/index.ts';
import { expectViolation } from './helpers.ts';

const create = (params: unknown) => parseRequestParams('CreateTaskPushNotificationConfig', params);
const valid = { taskId: 't1', url: 'https://client.example/hook' };

describe('CreateTaskPushNotificationConfig params (§2.4, §8)', () => {
  it('§10 accepts the wire example', () => {
    const params = {
      ...valid,
      token: 'opaque-123',
      authentication: { scheme: 'Bearer', credentials: 's3cr3t' },
    };
    expect(create(params)).toEqual(params);
  });
  it('keeps a client-chosen id and tenant', () =>
    expect(create({ ...valid, id: 'cfg-1', tenant: 'a' })).toEqual({ ...valid, id: 'cfg-1', tenant: 'a' }));
  it.each(['.', '..'])(
    'a config id %j is refused: as a REST path segment it would name another route',
    (id) => {
      expectViolation(() => create({ ...valid, id }), 'id', "must not be '.' or '..'");
    },
  );
  it('taskId is required', () => expectViolation(() => create({ url: valid.url }), 'taskId', 'is required'));
  it('url is required', () => expectViolation(() => create({ taskId: 't1' }), 'url', 'is required'));
  it.each([
    'ftp://x.example/h',
    'file:///etc/passwd',
    'javascript:alert(1)',
    '/hook',
    'client.example/hook',
    '',
  ])('url %j must be an absolute http(s) URL', (url) => {
    expectViolation(() => create({ ...valid, url }), 'url');
  });
  it('http URLs are allowed (SSRF checks live in the pusher, §8)', () => {
    expect(create({ ...valid, url: 'http://10.0.0.1:8080/h' }).url).toBe('http://10.0.0.1:8080/h');
  });
  it('authentication.scheme is required when authentication is present', () => {
    expectViolation(
      () => create({ ...valid, authentication: { credentials: 'x' } }),
      'authentication.scheme',
      'is required',
    );
    expectViolation(
      () => create({ ...valid, authentication: { scheme: '' } }),
      'authentication.scheme',
      'must not be empty',
    );
  });
  it('authentication without credentials is fine', () => {
    expect(create({ ...valid, authentication: { scheme: 'Basic' } }).authentication).toEqual({
      scheme: 'Basic',
    });
  });
  it('scheme and credentials cannot inject header lines', () => {
    expectViolation(
      () => create({ ...valid, authentication: { scheme: 'Bearer x' } }),
      'authentication.scheme',
    );
    expectViolation(
      () => create({ ...valid, authentication: { scheme: 'Bearer', credentials: 'a\r\nX-Evil: 1' } }),
      'authentication.credentials',
    );
    expectViolation(() => create({ ...valid, token: 'a\nb' }), 'token');
  });
  it('v0.3 authentication.schemes[] is not the 1.0 shape', () => {
    expectViolation(
      () => create({ ...valid, authentication: { schemes: ['Bearer'] } }),
      'authentication.scheme',
      'is required',
    );
  });
  it('config id must not contain "/"', () => expectViolation(() => create({ ...valid, id: 'a/b' }), 'id'));
});

describe('Get/DeleteTaskPushNotificationConfig params (§2.4)', () => {
  for (const method of ['GetTaskPushNotificationConfig', 'DeleteTaskPushNotificationConfig'] as const) {
    it(`${method} needs taskId and id`, () => {
      expect(parseRequestParams(method, { taskId: 't', id: 'c' })).toEqual({ taskId: 't', id: 'c' });
      expectViolation(() => parseRequestParams(method, { id: 'c' }), 'taskId', 'is required');
      expectViolation(() => parseRequestParams(method, { taskId: 't' }), 'id', 'is required');
    });
  }
});

describe('ListTaskPushNotificationConfigs params (§2.4)', () => {
  const list = (params: unknown) => parseRequestParams('ListTaskPushNotificationConfigs', params);
  it('needs taskId', () => expectViolation(() => list({}), 'taskId', 'is required'));
  it('accepts pageSize and pageToken', () =>
    expect(list({ taskId: 't', pageSize: 10, pageToken: 'p' })).toEqual({
      taskId: 't',
      pageSize: 10,
      pageToken: 'p',
    }));
  it('pageSize 0 is the proto default of this plain int32, so unset', () =>
    expect(list({ taskId: 't', pageSize: 0 })).toEqual({ taskId: 't' }));
  it.each([101, 1000, 2 ** 31 - 1])('pageSize %j (no maximum in the spec) is served as 100', (pageSize) =>
    expect(list({ taskId: 't', pageSize })).toEqual({ taskId: 't', pageSize: 100 }),
  );
  it.each([-1, 2.5, 2 ** 31])('pageSize %j is InvalidParams', (pageSize) => {
    expectViolation(() => list({ taskId: 't', pageSize }), 'pageSize', /integer/);
  });
});
