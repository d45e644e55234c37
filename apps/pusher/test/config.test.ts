import { ConfigError } from '@switchyard/runtime';
import { describe, expect, it } from 'vitest';
import { loadPusherConfig, pusherSettings } from '../src/config.ts';

describe('loadPusherConfig', () => {
  it('fills the documented defaults', () => {
    const config = loadPusherConfig({});
    expect(config).toMatchObject({
      PUSHER_CONCURRENCY: 16,
      PUSH_TIMEOUT_MS: 10_000,
      PUSH_MAX_ATTEMPTS: 8,
      PUSH_RETRY_BASE_MS: 1000,
      PUSH_RETRY_MAX_MS: 300_000,
      PUSH_LOCK_MS: 60_000,
      PUSH_POLL_MS: 1000,
      WEBHOOK_ALLOW_CIDRS: [],
      WEBHOOK_ALLOW_HTTP: true,
      PUSHER_OPS_PORT: 9092,
    });
    expect(config.PUSHER_ID).toMatch(new RegExp(`:${process.pid}:[0-9a-f]{6}$`));
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('parses the allow-list and maps everything to pusher settings', () => {
    const config = loadPusherConfig({
      WEBHOOK_ALLOW_CIDRS: ' 127.0.0.0/8, 10.1.2.3 ,fd00::/8',
      WEBHOOK_ALLOW_HTTP: 'false',
      PUSHER_ID: 'pusher-a',
      PUSH_TIMEOUT_MS: '2000',
      PUSH_LOCK_MS: '3000',
    });
    expect(pusherSettings(config)).toEqual({
      workerId: 'pusher-a',
      concurrency: 16,
      timeoutMs: 2000,
      lockMs: 3000,
      pollMs: 1000,
      retry: { maxAttempts: 8, baseMs: 1000, maxMs: 300_000 },
      policy: { allowCidrs: ['127.0.0.0/8', '10.1.2.3', 'fd00::/8'], allowHttp: false },
    });
  });

  it('names the variable when a value is bad', () => {
    expect(() => loadPusherConfig({ WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8,not-a-net' })).toThrow(
      /WEBHOOK_ALLOW_CIDRS/,
    );
    expect(() => loadPusherConfig({ PUSHER_CONCURRENCY: '0' })).toThrow(/PUSHER_CONCURRENCY/);
    expect(() => loadPusherConfig({ PUSH_TIMEOUT_MS: 'soon' })).toThrow(ConfigError);
  });

  it('refuses a claim lock that does not outlive the send timeout', () => {
    expect(() => loadPusherConfig({ PUSH_TIMEOUT_MS: '30000', PUSH_LOCK_MS: '30000' })).toThrow(
      /PUSH_LOCK_MS: must be greater than PUSH_TIMEOUT_MS/,
    );
  });
});
