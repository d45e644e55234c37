import { describe, expect, it } from 'vitest';
import { parseRequestParams, type SendMessageRequest } from '../src/index.ts';
import { expectViolation, userMessage, violationsOf } from './helpers.ts';

const send = (params: unknown): SendMessageRequest => parseRequestParams('SendMessage', params);
const withParts = (parts: unknown[]) => send({ message: userMessage({ parts }) });

describe('SendMessage / SendStreamingMessage params (§2.4, §7.2)', () => {
  it('§10 accepts the wire example and normalizes it', () => {
    const parsed = send({
      message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] },
      configuration: { acceptedOutputModes: ['text/plain'], historyLength: 0 },
    });
    expect(parsed).toEqual({
      message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] },
      configuration: { acceptedOutputModes: ['text/plain'], historyLength: 0 },
    });
  });

  it('SendStreamingMessage uses the same rules', () => {
    expect(parseRequestParams('SendStreamingMessage', { message: userMessage() }).message.messageId).toBe(
      'm-1',
    );
    expectViolation(() => parseRequestParams('SendStreamingMessage', {}), 'message', 'is required');
  });

  it('keeps every optional field and tenant', () => {
    const params = {
      tenant: 'acme',
      message: userMessage({
        contextId: 'c1',
        taskId: 't1',
        metadata: { 'urn:ext': { a: 1 } },
        extensions: ['urn:ext'],
        referenceTaskIds: ['t0'],
      }),
      configuration: {
        acceptedOutputModes: ['text/plain'],
        taskPushNotificationConfig: {
          url: 'https://client.example/hook',
          token: 'tok',
          authentication: { scheme: 'Bearer', credentials: 's3cr3t' },
        },
        historyLength: 5,
        returnImmediately: true,
      },
      metadata: { trace: 'x' },
    };
    expect(send(params)).toEqual(params);
  });

  it('§1 unknown fields are ignored', () => {
    const parsed = send({ message: userMessage({ kind: 'message', extra: 1 }), blocking: true, zzz: {} });
    expect(parsed).toEqual({ message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hello' }] } });
  });

  it('§1 snake_case field names are accepted, camelCase wins when both are present', () => {
    const parsed = send({
      message: {
        message_id: 'm2',
        context_id: 'c',
        role: 'ROLE_USER',
        parts: [{ text: 'x', media_type: 'text/plain' }],
      },
      configuration: { history_length: 3, return_immediately: true },
    });
    expect(parsed.message).toEqual({
      messageId: 'm2',
      contextId: 'c',
      role: 'ROLE_USER',
      parts: [{ text: 'x', mediaType: 'text/plain' }],
    });
    expect(parsed.configuration).toEqual({ historyLength: 3, returnImmediately: true });
    expect(send({ message: userMessage({ message_id: 'snake' }) }).message.messageId).toBe('m-1');
  });

  it('§1 null and "" mean unset for optional fields', () => {
    const parsed = send({
      tenant: '',
      message: userMessage({ contextId: '', taskId: null, metadata: null }),
      configuration: null,
    });
    expect(parsed).toEqual({ message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hello' }] } });
    expect('contextId' in parsed.message).toBe(false);
  });

  it('§1 int32 accepts numeric strings and outputs numbers', () => {
    expect(
      send({ message: userMessage(), configuration: { historyLength: '7' } }).configuration?.historyLength,
    ).toBe(7);
  });
});

describe('§2.2 required Message fields', () => {
  it('message is required', () => expectViolation(() => send({}), 'message', 'is required'));
  it('message must be an object', () =>
    expectViolation(() => send({ message: 'hi' }), 'message', 'must be an object'));
  it('messageId is required', () =>
    expectViolation(
      () => send({ message: userMessage({ messageId: undefined }) }),
      'message.messageId',
      'is required',
    ));
  it('messageId must not be empty', () =>
    expectViolation(
      () => send({ message: userMessage({ messageId: '' }) }),
      'message.messageId',
      'must not be empty',
    ));
  it('messageId must be a string', () =>
    expectViolation(
      () => send({ message: userMessage({ messageId: 5 }) }),
      'message.messageId',
      'must be a string',
    ));
  it('role is required', () =>
    expectViolation(
      () => send({ message: userMessage({ role: undefined }) }),
      'message.role',
      'is required',
    ));
  it('parts is required', () =>
    expectViolation(
      () => send({ message: userMessage({ parts: undefined }) }),
      'message.parts',
      'is required',
    ));
  it('§5.7 parts must contain at least one part', () =>
    expectViolation(() => withParts([]), 'message.parts', 'at least one part'));
  it('parts must be an array', () =>
    expectViolation(
      () => send({ message: userMessage({ parts: { text: 'x' } }) }),
      'message.parts',
      'must be an array',
    ));

  it('reports every violation at once', () => {
    const fields = violationsOf(() =>
      send({ message: { role: 'ROLE_X', parts: [] }, configuration: { historyLength: -1 } }),
    ).map((v) => v.field);
    expect(fields.sort()).toEqual(
      ['configuration.historyLength', 'message.messageId', 'message.parts', 'message.role'].sort(),
    );
  });

  it('the error message names the field', () => {
    try {
      send({ message: userMessage({ parts: [{ text: 'a' }, { text: 'b', url: 'https://x.example/' }] }) });
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).toBe(
        'message.parts[1]: exactly one of text, raw, url, data must be set',
      );
    }
  });
});

describe('§2.2 Role enum', () => {
  it('ROLE_USER is accepted', () => expect(send({ message: userMessage() }).message.role).toBe('ROLE_USER'));
  it('§1 the enum number 1 is read leniently as ROLE_USER', () =>
    expect(send({ message: userMessage({ role: 1 }) }).message.role).toBe('ROLE_USER'));
  it('a client may not send ROLE_AGENT', () =>
    expectViolation(
      () => send({ message: userMessage({ role: 'ROLE_AGENT' }) }),
      'message.role',
      /ROLE_USER/,
    ));
  it('a client may not send role 2 (ROLE_AGENT)', () =>
    expectViolation(() => send({ message: userMessage({ role: 2 }) }), 'message.role', /ROLE_USER/));
  it('ROLE_UNSPECIFIED is rejected', () =>
    expectViolation(
      () => send({ message: userMessage({ role: 'ROLE_UNSPECIFIED' }) }),
      'message.role',
      'must be ROLE_USER or ROLE_AGENT',
    ));
  it('v0.3 lowercase "user" is rejected', () =>
    expectViolation(() => send({ message: userMessage({ role: 'user' }) }), 'message.role'));
  it('role 0 is rejected', () =>
    expectViolation(() => send({ message: userMessage({ role: 0 }) }), 'message.role'));
});

describe('§2.2 Part oneof: exactly one of text, raw, url, data', () => {
  it.each([
    ['text', { text: 'hello' }],
    ['empty text', { text: '' }],
    ['raw (standard base64)', { raw: 'aGk+Pz8/', mediaType: 'application/octet-stream', filename: 'a.bin' }],
    ['url', { url: 'https://files.example/a.png', mediaType: 'image/png' }],
    ['data object', { data: { a: [1, 2, { b: null }] } }],
    ['data array', { data: [1, 'two'] }],
    ['data string', { data: 'x' }],
    ['data number', { data: 3.5 }],
    ['data false', { data: false }],
    ['data null (google.protobuf.Value null)', { data: null }],
    ['part metadata', { text: 'x', metadata: { k: 'v' } }],
  ])('%s is valid and kept as is', (_, part) => {
    expect(withParts([part]).message.parts).toEqual([part]);
  });

  it('raw in the URL-safe alphabet, unpadded, is valid and kept as ProtoJSON writes bytes: standard, padded', () => {
    expect(withParts([{ raw: 'aGk-Pz8_YQ' }]).message.parts).toEqual([{ raw: 'aGk+Pz8/YQ==' }]);
    expect(withParts([{ raw: 'aGk-Pz8_' }]).message.parts).toEqual([{ raw: 'aGk+Pz8/' }]);
    expect(withParts([{ raw: 'YWI' }]).message.parts).toEqual([{ raw: 'YWI=' }]);
  });

  it.each([
    ['no content member', {}],
    ['only metadata', { metadata: {}, mediaType: 'text/plain' }],
    ['text and data', { text: 'a', data: {} }],
    ['raw and url', { raw: 'YQ==', url: 'https://x.example/' }],
    ['all four', { text: 'a', raw: 'YQ==', url: 'https://x.example/', data: 1 }],
    ['v0.3 kind/file shape', { kind: 'file', file: { uri: 'https://x.example/' } }],
  ])('%s is InvalidParams naming the part index', (_, part) => {
    expectViolation(
      () => withParts([{ text: 'ok' }, part]),
      'message.parts[1]',
      'exactly one of text, raw, url, data must be set',
    );
  });

  it('a null member counts as unset (text: null, data: {...})', () => {
    expect(withParts([{ text: null, data: { a: 1 } }]).message.parts).toEqual([{ data: { a: 1 } }]);
  });

  it('a part must be an object', () =>
    expectViolation(() => withParts(['hi']), 'message.parts[0]', 'must be an object'));
  it('text must be a string', () =>
    expectViolation(() => withParts([{ text: 5 }]), 'message.parts[0].text', 'must be a string'));

  it.each(['not base64!', 'YQ=Q', 'Y', 'YQ===', 'YQ=', 'a b'])('§1 raw %j is not valid base64', (raw) => {
    expectViolation(() => withParts([{ raw }]), 'message.parts[0].raw', /base64/);
  });

  it.each(['not a url', '/relative/path', ''])('url %j must be absolute', (url) => {
    expectViolation(() => withParts([{ url }]), 'message.parts[0].url');
  });
});

describe('§7.1 identifiers', () => {
  it('contextId and taskId must not contain "/" (one URL path segment, §4.2)', () => {
    expectViolation(
      () => send({ message: userMessage({ contextId: 'a/b' }) }),
      'message.contextId',
      "must not contain '/'",
    );
    expectViolation(
      () => send({ message: userMessage({ taskId: 'tasks/1' }) }),
      'message.taskId',
      "must not contain '/'",
    );
    expectViolation(
      () => send({ message: userMessage({ referenceTaskIds: ['ok', 'x/y'] }) }),
      'message.referenceTaskIds[1]',
    );
  });

  it("ids that name a path segment must not be '.' or '..' (URL parsers resolve them away)", () => {
    expectViolation(
      () => send({ message: userMessage({ taskId: '..' }) }),
      'message.taskId',
      "must not be '.' or '..'",
    );
    expectViolation(
      () => send({ message: userMessage({ contextId: '.' }) }),
      'message.contextId',
      "must not be '.' or '..'",
    );
  });

  it('messageId is opaque: the client may use any non-empty string, "/" included (§1)', () => {
    const parsed = send({ message: userMessage({ messageId: 'urn:client/msg/1' }) });
    expect(parsed.message.messageId).toBe('urn:client/msg/1');
    expectViolation(() => send({ message: userMessage({ messageId: '' }) }), 'message.messageId');
  });
});

describe('§2.4 SendMessageConfiguration', () => {
  it('§7.3 negative historyLength is InvalidParams', () => {
    expectViolation(
      () => send({ message: userMessage(), configuration: { historyLength: -1 } }),
      'configuration.historyLength',
      /integer >= 0/,
    );
  });
  it('historyLength must be an integer', () => {
    expectViolation(
      () => send({ message: userMessage(), configuration: { historyLength: 1.5 } }),
      'configuration.historyLength',
      'must be an integer',
    );
    expectViolation(
      () => send({ message: userMessage(), configuration: { historyLength: 'ten' } }),
      'configuration.historyLength',
    );
  });
  it('returnImmediately must be a boolean', () => {
    expectViolation(
      () => send({ message: userMessage(), configuration: { returnImmediately: 'yes' } }),
      'configuration.returnImmediately',
      'must be a boolean',
    );
  });
  it('acceptedOutputModes must be strings', () => {
    expectViolation(
      () => send({ message: userMessage(), configuration: { acceptedOutputModes: [1] } }),
      'configuration.acceptedOutputModes[0]',
    );
  });
  it('§8 the embedded push config needs an http(s) url and leaves taskId optional', () => {
    expectViolation(
      () =>
        send({
          message: userMessage(),
          configuration: { taskPushNotificationConfig: { url: 'ftp://x.example/' } },
        }),
      'configuration.taskPushNotificationConfig.url',
      'must be an absolute http(s) URL',
    );
    expectViolation(
      () => send({ message: userMessage(), configuration: { taskPushNotificationConfig: {} } }),
      'configuration.taskPushNotificationConfig.url',
      'is required',
    );
  });
  it('metadata must be an object', () => {
    expectViolation(() => send({ message: userMessage(), metadata: [1] }), 'metadata', 'must be an object');
    expectViolation(
      () => send({ message: userMessage({ metadata: 'x' }) }),
      'message.metadata',
      'must be an object',
    );
  });
});
