import { ConfigError } from '@switchyard/runtime';
import { describe, expect, it } from 'vitest';
import { loadPusherConfig, pusherSettings } from '../src/config.ts';

describe('loadPusherConfig', () => {
  it('fills the documented defaults', () => {
    const config = loadPusherConfig({});
    expect(config).toMatchObject({
      PUSHER_CONCURRENCY: 64,
      PUSHER_MAX_IN_FLIGHT_PER_TENANT: 16,
      PUSHER_MAX_IN_FLIGHT_PER_HOST: 8,
      PUSH_TIMEOUT_MS: 10_000,
      PUSH_MAX_ATTEMPTS: 16,
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
      PUSH_LOCK_MS: '4000',
    });
    expect(pusherSettings(config)).toEqual({
      workerId: 'pusher-a',
      concurrency: 64,
      maxInFlightPerTenant: 16,
      maxInFlightPerHost: 8,
      timeoutMs: 2000,
      lockMs: 4000,
      pollMs: 1000,
      retry: { maxAttempts: 16, baseMs: 1000, maxMs: 300_000 },
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

  it('caps each tenant at a quarter of the concurrency and each receiver host at half that unless told, at least 1', () => {
    const caps = (env: NodeJS.ProcessEnv) => {
      const c = loadPusherConfig(env);
      return [c.PUSHER_MAX_IN_FLIGHT_PER_TENANT, c.PUSHER_MAX_IN_FLIGHT_PER_HOST];
    };
    expect(caps({ PUSHER_CONCURRENCY: '16' })).toEqual([4, 2]);
    expect(caps({ PUSHER_CONCURRENCY: '3' })).toEqual([1, 1]);
    expect(caps({ PUSHER_MAX_IN_FLIGHT_PER_TENANT: '10' })).toEqual([10, 5]);
    expect(caps({ PUSHER_MAX_IN_FLIGHT_PER_TENANT: '2', PUSHER_MAX_IN_FLIGHT_PER_HOST: '16' })).toEqual([
      2, 16,
    ]);
    expect(Object.isFrozen(loadPusherConfig({}))).toBe(true);
  });

  it('names a cap that is not a positive count or exceeds the concurrency', () => {
    expect(() => loadPusherConfig({ PUSHER_MAX_IN_FLIGHT_PER_TENANT: '0' })).toThrow(
      /PUSHER_MAX_IN_FLIGHT_PER_TENANT/,
    );
    expect(() => loadPusherConfig({ PUSHER_MAX_IN_FLIGHT_PER_HOST: 'some' })).toThrow(
      /PUSHER_MAX_IN_FLIGHT_PER_HOST/,
    );
    expect(() => loadPusherConfig({ PUSHER_CONCURRENCY: '8', PUSHER_MAX_IN_FLIGHT_PER_HOST: '9' })).toThrow(
      /PUSHER_MAX_IN_FLIGHT_PER_HOST: must be at most PUSHER_CONCURRENCY/,
    );
    expect(() => loadPusherConfig({ PUSHER_CONCURRENCY: '8', PUSHER_MAX_IN_FLIGHT_PER_TENANT: '9' })).toThrow(
      /PUSHER_MAX_IN_FLIGHT_PER_TENANT: must be at most PUSHER_CONCURRENCY/,
    );
  });

  it('refuses a claim lock that does not outlive the send timeout', () => {
    expect(() => loadPusherConfig({ PUSH_TIMEOUT_MS: '30000', PUSH_LOCK_MS: '30000' })).toThrow(
      /PUSH_LOCK_MS: must be at least PUSH_TIMEOUT_MS \+ 2000/,
    );
  });

  it('refuses a lock that leaves a claim no time to start its sends before they would outlast it', () => {
    // 31 s against a 30 s timeout: a send could start only in the first half second after its
    // claim, which the claim's own round trips use up; every delivery was dead-lettered unsent.
    for (const lock of ['30001', '31000', '31999'])
      expect(() => loadPusherConfig({ PUSH_TIMEOUT_MS: '30000', PUSH_LOCK_MS: lock })).toThrow(
        /PUSH_LOCK_MS: must be at least PUSH_TIMEOUT_MS \+ 2000/,
      );
    expect(loadPusherConfig({ PUSH_TIMEOUT_MS: '30000', PUSH_LOCK_MS: '32000' }).PUSH_LOCK_MS).toBe(32_000);
  });
});
