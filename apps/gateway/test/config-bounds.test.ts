import { describe, expect, it } from 'vitest';
import { ConfigError, MAX_TIMER_MS } from '@switchyard/runtime';
import { gatewayEnvSchema, loadGatewayConfig } from '../src/config.ts';

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadGatewayConfig(env);
    return [];
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
}

// Node fires a timer longer than 2^31 - 1 ms after 1 ms (a keep-alive every millisecond).
describe('every *_MS setting of the gateway', () => {
  const timers = Object.keys(gatewayEnvSchema.shape).filter((name) => name.endsWith('_MS'));

  it('is known to this test', () => {
    expect(timers).toEqual(
      expect.arrayContaining([
        'SSE_HEARTBEAT_MS',
        'BLOCKING_TIMEOUT_MS',
        'SHUTDOWN_GRACE_MS',
        'SHUTDOWN_DEADLINE_MS',
      ]),
    );
  });

  it.each(timers)('%s is refused past the timer limit, naming it', (name) => {
    const problems = problemsOf({ [name]: String(MAX_TIMER_MS + 1) });
    expect(
      problems.some((p) => p.startsWith(`${name}: must be at most`) || p.startsWith(`${name}: Too big`)),
    ).toBe(true);
  });
});

describe('the drain', () => {
  it('refuses a SHUTDOWN_GRACE_MS the deadline would cut short', () => {
    expect(problemsOf({ SHUTDOWN_GRACE_MS: '30000', SHUTDOWN_DEADLINE_MS: '20000' })).toEqual([
      'SHUTDOWN_DEADLINE_MS: must be greater than SHUTDOWN_GRACE_MS (got "20000")',
    ]);
    expect(problemsOf({ SHUTDOWN_GRACE_MS: '20000', SHUTDOWN_DEADLINE_MS: '20000' })).toHaveLength(1);
    expect(problemsOf({ SHUTDOWN_GRACE_MS: '15000', SHUTDOWN_DEADLINE_MS: '20000' })).toEqual([]);
  });

  it('caps SHUTDOWN_GRACE_MS at an hour, so grace + margin stays a valid timer', () => {
    expect(problemsOf({ SHUTDOWN_GRACE_MS: '3600001' })[0]).toMatch(
      /^SHUTDOWN_GRACE_MS: must be at most 3600000/,
    );
  });
});

// express compiles `trust proxy` lists only when the setting is made; an entry it cannot read
// used to fail every request's `req.ip` with `TypeError: invalid IP address`.
describe('TRUST_PROXY', () => {
  it.each(['garbage', '10.0.0.0/8,garbage', '10.0.0.0/33', '300.1.1.1'])(
    '%s is refused at start',
    (value) => {
      const [problem] = problemsOf({ TRUST_PROXY: value });
      expect(problem).toMatch(/^TRUST_PROXY: must be a hop count, true, false, or a comma-separated list/);
    },
  );

  it.each([
    ['2', 2],
    ['true', true],
    ['loopback, uniquelocal', ['loopback', 'uniquelocal']],
    ['10.0.0.0/8,fd00::/8,192.168.1.1', ['10.0.0.0/8', 'fd00::/8', '192.168.1.1']],
  ])('%s is taken', (value, parsed) => {
    expect(loadGatewayConfig({ TRUST_PROXY: value }).TRUST_PROXY).toEqual(parsed);
  });
});

describe('PUBLIC_URL', () => {
  it.each(['ftp://gateway.example.com', 'javascript:alert(1)', 'gateway.example.com'])(
    '%s is refused',
    (url) => {
      expect(problemsOf({ PUBLIC_URL: url })).toEqual(['PUBLIC_URL: must be an http or https URL']);
    },
  );

  it('an https URL is taken, trailing slashes trimmed', () => {
    expect(loadGatewayConfig({ PUBLIC_URL: 'https://a2a.example.com/' }).PUBLIC_URL).toBe(
      'https://a2a.example.com',
    );
  });
});

describe('NODE_ENV', () => {
  it.each(['Production', 'prod'])(
    '%s is refused, not run as development without the production checks',
    (mode) => {
      expect(problemsOf({ NODE_ENV: mode })[0]).toMatch(
        /^NODE_ENV: must be one of development, test, production/,
      );
    },
  );
});
