import { describe, expect, it } from 'vitest';
import { parseListPushConfigsQuery, parseRequestParams, type SendMessageRequest } from '../src/index.ts';
import { expectViolation, userMessage, violationsOf } from './helpers.ts';

// §9 rule 7 ("limit message, file and request sizes"): every string and list a client sends is
// bounded on its own, not only by the whole-body limit (review: a 1 MB filename, 3,000 extensions
// and 10,000 referenceTaskIds were accepted).
const send = (params: Record<string, unknown>): SendMessageRequest =>
  parseRequestParams('SendMessage', params);
const withMessage = (overrides: Record<string, unknown>) => send({ message: userMessage(overrides) });
const create = (params: Record<string, unknown>) =>
  parseRequestParams('CreateTaskPushNotificationConfig', {
    taskId: 't1',
    url: 'https://c.example/h',
    ...params,
  });
const x = (n: number) => 'x'.repeat(n);

describe('Part names (maxNameLength, 1024)', () => {
  it.each(['filename', 'mediaType'])('%s: 1024 characters pass, 1025 do not', (field) => {
    const part = (n: number) => ({ raw: 'aGk=', [field]: x(n) });
    expect(withMessage({ parts: [part(1024)] }).message.parts[0]).toHaveProperty(field);
    expectViolation(
      () => withMessage({ parts: [part(1_000_000)] }),
      `message.parts[0].${field}`,
      'must be at most 1024 characters',
    );
  });
});

describe('lists (maxListItems, 64)', () => {
  it('extensions: 64 entries pass, 3,000 fail on the count alone', () => {
    const uris = (n: number) => Array.from({ length: n }, (_, i) => `https://ext.example/${i}`);
    expect(withMessage({ extensions: uris(64) }).message.extensions).toHaveLength(64);
    const violations = violationsOf(() => withMessage({ extensions: uris(3000) }));
    expect(violations).toEqual([
      { field: 'message.extensions', description: 'must contain at most 64 entries' },
    ]);
  });

  it('an extension URI is bounded like a URL (8192)', () => {
    expect(withMessage({ extensions: [x(8192)] }).message.extensions).toHaveLength(1);
    expectViolation(() => withMessage({ extensions: [x(8193)] }), 'message.extensions[0]', /at most 8192/);
  });

  it('referenceTaskIds: 64 pass, 10,000 fail', () => {
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `t${i}`);
    expect(withMessage({ referenceTaskIds: ids(64) }).message.referenceTaskIds).toHaveLength(64);
    expectViolation(
      () => withMessage({ referenceTaskIds: ids(10_000) }),
      'message.referenceTaskIds',
      'must contain at most 64 entries',
    );
    expectViolation(() => withMessage({ referenceTaskIds: [x(257)] }), 'message.referenceTaskIds[0]');
  });

  it('acceptedOutputModes: at most 64 media types of at most 1024 characters', () => {
    const modes = (n: number) => Array.from({ length: n }, () => 'text/plain');
    const ok = send({ message: userMessage(), configuration: { acceptedOutputModes: modes(64) } });
    expect(ok.configuration?.acceptedOutputModes).toHaveLength(64);
    expectViolation(
      () => send({ message: userMessage(), configuration: { acceptedOutputModes: modes(65) } }),
      'configuration.acceptedOutputModes',
    );
    expectViolation(
      () => send({ message: userMessage(), configuration: { acceptedOutputModes: [x(1025)] } }),
      'configuration.acceptedOutputModes[0]',
    );
  });
});

describe('data parts (maxDataPartBytes, 1 MiB of JSON)', () => {
  it('a data part is bounded in UTF-8 bytes of its JSON', () => {
    const data = (n: number) => ({ k: x(n) }); // {"k":"…"} is n + 8 bytes
    expect(withMessage({ parts: [{ data: data(1_048_576 - 8) }] }).message.parts).toHaveLength(1);
    expectViolation(
      () => withMessage({ parts: [{ data: data(1_048_576 - 7) }] }),
      'message.parts[0].data',
      'must be at most 1048576 bytes of JSON',
    );
    expectViolation(
      () => withMessage({ parts: [{ data: Array.from({ length: 300_000 }, () => 1234) }] }),
      'message.parts[0].data',
    );
  });
});

describe('push config secrets and scheme (maxHeaderValueLength 8192, maxNameLength 1024)', () => {
  it('token and credentials: 8192 characters pass, 8193 do not', () => {
    expect(
      create({ token: x(8192), authentication: { scheme: 'Bearer', credentials: x(8192) } }),
    ).toBeDefined();
    expectViolation(() => create({ token: x(8193) }), 'token', 'must be at most 8192 characters');
    expectViolation(
      () => create({ authentication: { scheme: 'Bearer', credentials: x(8193) } }),
      'authentication.credentials',
      'must be at most 8192 characters',
    );
  });

  it('the auth scheme is at most 1024 characters', () => {
    expectViolation(
      () => create({ authentication: { scheme: x(1025) } }),
      'authentication.scheme',
      /at most 1024/,
    );
  });

  it('the same bounds hold for the config embedded in SendMessage', () => {
    expectViolation(
      () =>
        send({
          message: userMessage(),
          configuration: { taskPushNotificationConfig: { url: 'https://c.example/h', token: x(8193) } },
        }),
      'configuration.taskPushNotificationConfig.token',
    );
  });
});

describe('pageToken (4096 characters)', () => {
  it('is bounded on both list operations and both bindings', () => {
    expect(parseRequestParams('ListTasks', { pageToken: x(4096) }).pageToken).toHaveLength(4096);
    expectViolation(
      () => parseRequestParams('ListTasks', { pageToken: x(4097) }),
      'pageToken',
      /at most 4096/,
    );
    expectViolation(
      () => parseRequestParams('ListTaskPushNotificationConfigs', { taskId: 't1', pageToken: x(4097) }),
      'pageToken',
    );
    expectViolation(() => parseListPushConfigsQuery('t1', { pageToken: x(4097) }), 'pageToken');
  });
});

describe('custom limits', () => {
  it('apply to the new bounds too', () => {
    const limits = { maxListItems: 1, maxNameLength: 3 };
    expectViolation(
      () =>
        parseRequestParams('SendMessage', { message: userMessage({ extensions: ['a', 'b'] }) }, { limits }),
      'message.extensions',
      'must contain at most 1 entries',
    );
    expectViolation(
      () =>
        parseRequestParams(
          'SendMessage',
          { message: userMessage({ parts: [{ text: 'a', filename: 'abcd' }] }) },
          { limits },
        ),
      'message.parts[0].filename',
    );
  });
});
