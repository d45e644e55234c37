import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PROTOCOL_LIMITS,
  parseRequestParams,
  parseSendMessageBody,
  resolveLimits,
} from '../src/index.ts';
import { expectViolation, userMessage } from './helpers.ts';

const send = (message: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  parseRequestParams('SendMessage', { message, ...extra });

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

describe('§9 rule 7 size limits (ProtocolLimits)', () => {
  it('documents its defaults', () => {
    expect(DEFAULT_PROTOCOL_LIMITS).toEqual({
      maxPartsPerMessage: 64,
      maxTextPartLength: 1_048_576,
      maxMetadataBytes: 65_536,
      maxIdLength: 256,
      maxUrlLength: 8192,
      maxJsonDepth: 64,
      maxDataPartBytes: 1_048_576,
      maxListItems: 64,
      maxNameLength: 1024,
      maxHeaderValueLength: 8192,
    });
    expect(Object.isFrozen(DEFAULT_PROTOCOL_LIMITS)).toBe(true);
  });

  it('resolveLimits fills defaults and rejects nonsense', () => {
    expect(resolveLimits({ maxPartsPerMessage: 2 }).maxIdLength).toBe(256);
    expect(() => resolveLimits({ maxIdLength: 0 })).toThrow(RangeError);
    expect(() => resolveLimits({ maxIdLength: 1.5 })).toThrow(RangeError);
  });

  it('64 parts are allowed, 65 are not', () => {
    const parts = (n: number) => Array.from({ length: n }, () => ({ text: 'x' }));
    expect(send(userMessage({ parts: parts(64) })).message.parts).toHaveLength(64);
    expectViolation(
      () => send(userMessage({ parts: parts(65) })),
      'message.parts',
      'must contain at most 64 parts',
    );
  });

  it('a huge parts array fails on its count before any part is parsed', () => {
    const parts = Array.from({ length: 100_000 }, () => ({}));
    const description = expectViolation(() => send(userMessage({ parts })), 'message.parts');
    expect(description).toMatch(/at most 64/);
  });

  it('text part length: 1 MiB is allowed, one more character is not', () => {
    expect(send(userMessage({ parts: [{ text: 'a'.repeat(1_048_576) }] })).message.parts).toHaveLength(1);
    expectViolation(
      () => send(userMessage({ parts: [{ text: 'a'.repeat(1_048_577) }] })),
      'message.parts[0].text',
      /at most 1048576/,
    );
  });

  it('metadata is limited in UTF-8 bytes of JSON', () => {
    const limits = { maxMetadataBytes: 32 };
    const ok = { k: 'x'.repeat(20) }; // {"k":"xxxx…"} = 28 bytes
    expect(parseSendMessageBody({ message: userMessage(), metadata: ok }, { limits }).metadata).toEqual(ok);
    expectViolation(
      () => parseSendMessageBody({ message: userMessage(), metadata: { k: 'é'.repeat(20) } }, { limits }),
      'metadata',
      /at most 32 bytes/,
    );
    expectViolation(
      () => parseSendMessageBody({ message: userMessage({ metadata: { k: 'x'.repeat(40) } }) }, { limits }),
      'message.metadata',
    );
    expectViolation(
      () =>
        parseSendMessageBody(
          { message: userMessage({ parts: [{ text: 'a', metadata: { k: 'x'.repeat(40) } }] }) },
          { limits },
        ),
      'message.parts[0].metadata',
    );
    expectViolation(
      () => parseRequestParams('CancelTask', { id: 't', metadata: { k: 'x'.repeat(40) } }, { limits }),
      'metadata',
    );
  });

  it('default metadata limit is 64 KiB', () => {
    expect(send(userMessage(), { metadata: { k: 'x'.repeat(60_000) } }).metadata).toBeDefined();
    expectViolation(() => send(userMessage(), { metadata: { k: 'x'.repeat(70_000) } }), 'metadata');
  });

  it('free-form JSON is limited in depth (metadata and data)', () => {
    expect(send(userMessage({ parts: [{ data: nested(60) }] })).message.parts).toHaveLength(1);
    expectViolation(() => send(userMessage({ parts: [{ data: nested(10_000) }] })), 'message.parts[0].data');
    expectViolation(
      () => send(userMessage({ metadata: nested(100) as Record<string, unknown> })),
      'message.metadata',
    );
  });

  it('ids are at most 256 characters', () => {
    expect(send(userMessage({ messageId: 'm'.repeat(256) })).message.messageId).toHaveLength(256);
    expectViolation(
      () => send(userMessage({ messageId: 'm'.repeat(257) })),
      'message.messageId',
      'must be at most 256 characters',
    );
    expectViolation(() => send(userMessage({ contextId: 'c'.repeat(257) })), 'message.contextId');
    expectViolation(() => send(userMessage({ taskId: 't'.repeat(257) })), 'message.taskId');
    expectViolation(() => parseRequestParams('GetTask', { id: 't'.repeat(257) }), 'id');
  });

  it('custom limits apply and are cached per object', () => {
    const limits = { maxPartsPerMessage: 1, maxIdLength: 4 };
    expectViolation(
      () =>
        parseSendMessageBody({ message: userMessage({ parts: [{ text: 'a' }, { text: 'b' }] }) }, { limits }),
      'message.parts',
    );
    expectViolation(
      () => parseSendMessageBody({ message: userMessage({ messageId: 'abcde' }) }, { limits }),
      'message.messageId',
    );
    expect(
      parseSendMessageBody({ message: userMessage({ messageId: 'abcd' }) }, { limits }).message.messageId,
    ).toBe('abcd');
  });

  it('the number of reported violations is bounded', () => {
    const parts = Array.from({ length: 64 }, () => ({}));
    try {
      send(userMessage({ parts }));
      expect.unreachable();
    } catch (error) {
      const e = error as { fieldViolations: unknown[]; message: string };
      expect(e.fieldViolations.length).toBeLessThanOrEqual(20);
      expect(e.message).toMatch(/and \d+ more$/);
    }
  });

  it('a hostile __proto__ key is ignored', () => {
    const params = JSON.parse(
      '{"__proto__":{"polluted":true},"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}]}}',
    );
    const parsed = parseRequestParams('SendMessage', params) as unknown as Record<string, unknown>;
    expect(parsed['polluted']).toBeUndefined();
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});
