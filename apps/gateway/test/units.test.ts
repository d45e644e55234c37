import { describe, expect, it } from 'vitest';
import { ConfigError } from '@switchyard/runtime';
import type { ApiKeyIdentity } from '@switchyard/store';
import { addressKey, AuthFailureThrottle } from '../src/auth/auth-failure-throttle.ts';
import { ApiKeyCache } from '../src/auth/api-key-cache.ts';
import { DEV_ADMIN_TOKEN, loadGatewayConfig } from '../src/config.ts';
import { isJsonMediaType } from '../src/http/read-json-body.ts';
import { matchRestRoute } from '../src/rest/rest-routes.ts';

const identity = (keyId: string, tenantId = 'acme'): ApiKeyIdentity => ({
  keyId,
  tenantId,
  principal: 'p',
  role: 'user',
});

describe('loadGatewayConfig', () => {
  it('fills the documented defaults', () => {
    const config = loadGatewayConfig({});
    expect(config).toMatchObject({
      PORT: 8080,
      PUBLIC_URL: 'http://localhost:8080',
      SWITCHYARD_ADMIN_TOKEN: DEV_ADMIN_TOKEN,
      adminTokenIsDefault: true,
      SWITCHYARD_DEFAULT_AGENT: 'demo/echo',
      BODY_LIMIT_BYTES: 4 * 1024 * 1024,
      BODY_BYTES_IN_FLIGHT_MAX: 32 * 1024 * 1024,
      HTTP_REQUEST_TIMEOUT_MS: 60_000,
      LIST_TASKS_MAX_PAGE_BYTES: 4 * 1024 * 1024,
      TASK_MAX_HISTORY_BYTES: 16 * 1024 * 1024,
      BLOCKING_TIMEOUT_MS: 30_000,
      SSE_HEARTBEAT_MS: 4_000,
      SSE_MAX_BUFFER_BYTES: 1024 * 1024,
      HTTP_ERROR_MAPPING: 'v1.0.1',
      CARD_VERSION_WITHOUT_HEADER: '1.0',
      HTTP_JSON_MEDIA_TYPE: 'application/a2a+json',
      RATE_LIMIT_TENANT_PER_SEC: 1000,
      RATE_LIMIT_KEY_PER_SEC: 500,
      JWT_TENANT_CLAIM: 'tenant',
      JWT_ROLE_CLAIM: 'switchyard_role',
      JWT_MAX_LIFETIME_SEC: 86_400,
      WEBHOOK_ALLOW_CIDRS: [],
      WEBHOOK_ALLOW_HTTP: true,
      CORS_ALLOW_ORIGINS: [],
      STREAM_CLOSE_ON_INPUT_REQUIRED: true,
      STREAM_CLOSE_ON_AUTH_REQUIRED: false,
      MESSAGE_ID_IDEMPOTENCY: true,
      jwtEnabled: false,
      PG_PREPARED_STATEMENTS: 64,
      PG_IDLE_TIMEOUT_MS: 300_000,
      PG_CONNECT_TIMEOUT_MS: 10_000,
      PG_STATEMENT_TIMEOUT_MS: 60_000,
      HEAP_GROWING_PERCENT: 40,
    });
    expect(loadGatewayConfig({ PORT: '9000' }).PUBLIC_URL).toBe('http://localhost:9000');
  });

  it('requires the admin token in production and names bad variables', () => {
    const production = { NODE_ENV: 'production', SWITCHYARD_SECRET_KEY: 'a-secret-key-of-our-own' };
    expect(() => loadGatewayConfig(production)).toThrow(/SWITCHYARD_ADMIN_TOKEN: required/);
    // The development values in this repository are public: production refuses every one.
    for (const [name, value] of [
      ['SWITCHYARD_SECRET_KEY', 'switchyard-dev-secret-key-change-me'],
      ['SWITCHYARD_ADMIN_TOKEN', 'switchyard-dev-admin-token'],
      ['SWITCHYARD_ADMIN_TOKEN', 'CHANGE-ME-to-a-long-token'],
      ['SWITCHYARD_DEMO_API_KEY', 'switchyard-demo-api-key'],
    ])
      expect(() =>
        loadGatewayConfig({
          ...production,
          SWITCHYARD_ADMIN_TOKEN: 'an-admin-token-of-our-own',
          [name!]: value,
        }),
      ).toThrow(new RegExp(`${name}: a development value`));
    expect(
      loadGatewayConfig({ ...production, SWITCHYARD_ADMIN_TOKEN: 'an-admin-token-of-our-own' }).NODE_ENV,
    ).toBe('production');
    expect(() => loadGatewayConfig({ NODE_ENV: 'production' })).toThrow(/SWITCHYARD_SECRET_KEY/);
    expect(() => loadGatewayConfig({ WEBHOOK_ALLOW_CIDRS: '127.0.0.0/99' })).toThrow(ConfigError);
    expect(() => loadGatewayConfig({ HTTP_ERROR_MAPPING: 'v2' })).toThrow(/HTTP_ERROR_MAPPING/);
    for (const bytes of ['1000', '4MiB', String(2 ** 30)])
      expect(() => loadGatewayConfig({ LIST_TASKS_MAX_PAGE_BYTES: bytes })).toThrow(
        /LIST_TASKS_MAX_PAGE_BYTES/,
      );
    expect(() => loadGatewayConfig({ HEAP_GROWING_PERCENT: '-1' })).toThrow(/HEAP_GROWING_PERCENT/);
    // A budget smaller than one body of the largest size would refuse that body even alone.
    expect(() =>
      loadGatewayConfig({
        BODY_LIMIT_BYTES: String(8 * 1024 * 1024),
        BODY_BYTES_IN_FLIGHT_MAX: String(4 * 1024 * 1024),
      }),
    ).toThrow(/BODY_BYTES_IN_FLIGHT_MAX: must be at least BODY_LIMIT_BYTES/);
    expect(() => loadGatewayConfig({ PG_PREPARED_STATEMENTS: 'many' })).toThrow(/PG_PREPARED_STATEMENTS/);
    expect(() => loadGatewayConfig({ PG_IDLE_TIMEOUT_MS: '-5' })).toThrow(/PG_IDLE_TIMEOUT_MS/);
    expect(() => loadGatewayConfig({ PG_CONNECT_TIMEOUT_MS: '10s' })).toThrow(/PG_CONNECT_TIMEOUT_MS/);
    expect(() => loadGatewayConfig({ PG_STATEMENT_TIMEOUT_MS: '-1' })).toThrow(/PG_STATEMENT_TIMEOUT_MS/);
    expect(loadGatewayConfig({ WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8, ::1/128' }).WEBHOOK_ALLOW_CIDRS).toEqual([
      '127.0.0.0/8',
      '::1/128',
    ]);
    expect(loadGatewayConfig({ JWT_JWKS_URL: 'https://id.example/jwks' }).jwtEnabled).toBe(true);
    // In production a JWKS alone is refused: any token the provider issued for another
    // application, with a tenant claim, would pass.
    const productionJwt = {
      NODE_ENV: 'production',
      SWITCHYARD_ADMIN_TOKEN: 'a-production-admin-token',
      SWITCHYARD_SECRET_KEY: 'k'.repeat(64),
      JWT_JWKS_URL: 'https://id.example/jwks',
    };
    expect(() => loadGatewayConfig(productionJwt)).toThrow(/JWT_AUDIENCE: required with JWT_JWKS_URL/);
    expect(() => loadGatewayConfig({ ...productionJwt, JWT_AUDIENCE: 'switchyard' })).toThrow(/JWT_ISSUER/);
    expect(
      loadGatewayConfig({ ...productionJwt, JWT_AUDIENCE: 'switchyard', JWT_ISSUER: 'https://id.example' })
        .jwtEnabled,
    ).toBe(true);
    expect(() => loadGatewayConfig({ CORS_ALLOW_ORIGINS: 'https://app.example/' })).toThrow(
      /CORS_ALLOW_ORIGINS/,
    );
    expect(() => loadGatewayConfig({ CORS_ALLOW_ORIGINS: 'app.example' })).toThrow(/CORS_ALLOW_ORIGINS/);
    expect(loadGatewayConfig({ CORS_ALLOW_ORIGINS: ' https://a.example , * ' }).CORS_ALLOW_ORIGINS).toEqual([
      'https://a.example',
      '*',
    ]);
  });
});

describe('ApiKeyCache', () => {
  it('serves repeated lookups from memory and drops a revoked key at once', async () => {
    let lookups = 0;
    const cache = new ApiKeyCache({ lookup: async () => (lookups++, identity('k1')) });
    await cache.authenticate('secret');
    await cache.authenticate('secret');
    expect(lookups).toBe(1);
    cache.revoke({ keyId: 'k1' });
    await cache.authenticate('secret');
    expect(lookups).toBe(2);
  });

  it("trusts a cached key no longer than the key's own expiry", async () => {
    let lookups = 0;
    const expiresAt = new Date(Date.now() + 150);
    const cache = new ApiKeyCache({ lookup: async () => (lookups++, { ...identity('k1'), expiresAt }) });
    await cache.authenticate('expiring');
    await cache.authenticate('expiring');
    expect(lookups).toBe(1);
    await new Promise((r) => setTimeout(r, 200));
    // Past the expiry the store is asked again (and would answer null), though the TTL is 10 s.
    await cache.authenticate('expiring');
    expect(lookups).toBe(2);
  });

  it('does not cache a lookup that was in flight when a revocation arrived', async () => {
    let release: (() => void) | undefined;
    const cache = new ApiKeyCache({
      lookup: () => new Promise<ApiKeyIdentity>((resolve) => (release = () => resolve(identity('k1')))),
    });
    const pending = cache.authenticate('secret');
    cache.revoke({ keyId: 'k1' });
    release?.();
    await pending;
    expect(cache.size).toBe(0);
  });

  it('drops a whole tenant on request', async () => {
    const cache = new ApiKeyCache({
      lookup: async (key) => (key === 'good' ? identity('k1', 'acme') : null),
    });
    await cache.authenticate('good');
    expect(cache.size).toBe(1);
    cache.revoke({ tenantId: 'acme' });
    expect(cache.size).toBe(0);
  });

  it('remembers a failure briefly, and forgets failures when a tenant changes', async () => {
    let lookups = 0;
    let valid = false;
    const cache = new ApiKeyCache({
      lookup: async () => (lookups++, valid ? identity('k1', 'acme') : null),
      failureTtlMs: 60_000,
    });
    expect(await cache.authenticate('wrong')).toBeNull();
    expect(await cache.authenticate('wrong')).toBeNull();
    expect(lookups).toBe(1);
    valid = true; // e.g. its tenant was enabled again
    cache.revoke({ keyId: 'other' });
    expect(await cache.authenticate('wrong')).toBeNull();
    cache.revoke({ tenantId: 'acme' });
    expect(await cache.authenticate('wrong')).toEqual(identity('k1', 'acme'));
    expect(lookups).toBe(2);
  });

  it('shares one lookup among concurrent requests, but not with a request after a revocation', async () => {
    const releases: Array<() => void> = [];
    let lookups = 0;
    const cache = new ApiKeyCache({
      lookup: () => {
        lookups++;
        return new Promise<ApiKeyIdentity>((resolve) => releases.push(() => resolve(identity('k1'))));
      },
    });
    const first = cache.authenticate('secret');
    const second = cache.authenticate('secret');
    expect(lookups).toBe(1);
    cache.revoke({ keyId: 'k1' });
    const afterRevocation = cache.authenticate('secret');
    expect(lookups).toBe(2);
    for (const release of releases) release();
    await Promise.all([first, second, afterRevocation]);
    expect(cache.size).toBe(1); // only the lookup that started after the revocation is kept
  });
});

describe('matchRestRoute (digest §4.2)', () => {
  it('matches every operation and its /{tenant} twin', () => {
    expect(matchRestRoute('POST', '/message:send')).toEqual({ op: 'SendMessage' });
    expect(matchRestRoute('POST', '/acme/message:stream')).toEqual({
      op: 'SendStreamingMessage',
      tenant: 'acme',
    });
    expect(matchRestRoute('GET', '/tasks')).toEqual({ op: 'ListTasks' });
    expect(matchRestRoute('GET', '/acme/tasks')).toEqual({ op: 'ListTasks', tenant: 'acme' });
    expect(matchRestRoute('GET', '/tasks/t1')).toEqual({ op: 'GetTask', taskId: 't1' });
    expect(matchRestRoute('POST', '/tasks/t1:cancel')).toEqual({ op: 'CancelTask', taskId: 't1' });
    expect(matchRestRoute('GET', '/tasks/t1:subscribe')).toEqual({ op: 'SubscribeToTask', taskId: 't1' });
    expect(matchRestRoute('POST', '/acme/tasks/t1:subscribe')).toEqual({
      op: 'SubscribeToTask',
      taskId: 't1',
      tenant: 'acme',
    });
    expect(matchRestRoute('POST', '/tasks/t1/pushNotificationConfigs')).toEqual({
      op: 'CreateTaskPushNotificationConfig',
      taskId: 't1',
    });
    expect(matchRestRoute('GET', '/tasks/t1/pushNotificationConfigs')).toEqual({
      op: 'ListTaskPushNotificationConfigs',
      taskId: 't1',
    });
    expect(matchRestRoute('GET', '/tasks/t1/pushNotificationConfigs/c1')).toEqual({
      op: 'GetTaskPushNotificationConfig',
      taskId: 't1',
      configId: 'c1',
    });
    expect(matchRestRoute('DELETE', '/tasks/t1/pushNotificationConfigs/c1')).toEqual({
      op: 'DeleteTaskPushNotificationConfig',
      taskId: 't1',
      configId: 'c1',
    });
    expect(matchRestRoute('GET', '/extendedAgentCard')).toEqual({ op: 'GetExtendedAgentCard' });
    expect(matchRestRoute('GET', '/acme/extendedAgentCard')).toEqual({
      op: 'GetExtendedAgentCard',
      tenant: 'acme',
    });
  });

  it('matches non-tenant routes first: /tasks/tasks is GetTask("tasks")', () => {
    expect(matchRestRoute('GET', '/tasks/tasks')).toEqual({ op: 'GetTask', taskId: 'tasks' });
    expect(matchRestRoute('GET', '/tasks/extendedAgentCard')).toEqual({
      op: 'GetTask',
      taskId: 'extendedAgentCard',
    });
  });

  it('refuses unknown routes (404) and wrong verbs (405)', () => {
    expect(() => matchRestRoute('GET', '/nope')).toThrow(expect.objectContaining({ kind: 'MethodNotFound' }));
    expect(() => matchRestRoute('PUT', '/tasks/t1')).toThrow(/not allowed/);
    expect(() => matchRestRoute('GET', '/tasks/%E0%A4%A')).toThrow(
      expect.objectContaining({ kind: 'InvalidRequest' }),
    );
  });
});

describe('isJsonMediaType', () => {
  it.each([
    ['application/json', true],
    ['application/a2a+json', true],
    ['application/json; charset=UTF-8', true],
    ['text/plain', false],
    ['application/json; charset=iso-8859-1', false],
    [undefined, false],
  ] as const)('%s → %s', (type, expected) => {
    expect(isJsonMediaType(type)).toBe(expected);
  });
});

describe('AuthFailureThrottle', () => {
  it("refuses lookups from an address past its failures this second, no one else's, and forgets next second", () => {
    let now = 10_000;
    const throttle = new AuthFailureThrottle({ perSecond: 2, now: () => now });
    throttle.beginLookup('10.0.0.1').end(true);
    expect(() => throttle.beginLookup('10.0.0.1').end(false)).not.toThrow();
    throttle.beginLookup('10.0.0.1').end(true);
    expect(() => throttle.beginLookup('10.0.0.1')).toThrow(/failed authentications/);
    expect(() => throttle.beginLookup('10.0.0.2').end(false)).not.toThrow();
    now += 1_000;
    expect(() => throttle.beginLookup('10.0.0.1').end(false)).not.toThrow();
  });

  it('counts lookups still in flight, so a burst cannot pass the budget before any has failed', () => {
    const throttle = new AuthFailureThrottle({ perSecond: 3, now: () => 5_000 });
    const tickets = [1, 2, 3].map(() => throttle.beginLookup('10.0.0.1'));
    expect(() => throttle.beginLookup('10.0.0.1')).toThrow(/failed authentications/);
    tickets[0]!.end(false); // a known key: the slot is free again
    expect(() => throttle.beginLookup('10.0.0.1')).not.toThrow();
  });

  it('counts IPv6 clients by /64 and IPv4-mapped ones as IPv4', () => {
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(addressKey('192.0.2.7')).toBe('192.0.2.7');
  });
});
