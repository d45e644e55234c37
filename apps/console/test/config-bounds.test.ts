import { describe, expect, it } from 'vitest';
import { ConfigError, MAX_TIMER_MS } from '@switchyard/runtime';
import { consoleEnvSchema, loadConsoleConfig } from '../src/config.ts';

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConsoleConfig(env);
    return [];
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
}

describe('every *_MS setting of the console', () => {
  // CONSOLE_SESSION_TTL_MS is an age, not a timer (the *_TTL_MS rule): a 30-day session is fine.
  const timers = Object.keys(consoleEnvSchema.shape).filter(
    (name) => name.endsWith('_MS') && !name.endsWith('_TTL_MS'),
  );

  it.each(timers)('%s is refused past the timer limit, naming it', (name) => {
    expect(problemsOf({ [name]: String(MAX_TIMER_MS + 1) }).some((p) => p.startsWith(`${name}: `))).toBe(
      true,
    );
  });

  it('covers the heartbeat, the poll, the session and the grace', () => {
    expect(timers).toEqual(
      expect.arrayContaining(['CONSOLE_SSE_HEARTBEAT_MS', 'CONSOLE_LIVE_POLL_MS', 'SHUTDOWN_GRACE_MS']),
    );
  });

  it('takes a session lifetime past the timer limit (an age), up to ten years', () => {
    expect(problemsOf({ CONSOLE_SESSION_TTL_MS: String(30 * 86_400_000) })).toEqual([]);
    expect(problemsOf({ CONSOLE_SESSION_TTL_MS: String(11 * 365 * 86_400_000) })[0]).toMatch(
      /^CONSOLE_SESSION_TTL_MS: /,
    );
  });
});

describe('the console', () => {
  it('refuses a SHUTDOWN_GRACE_MS the deadline would cut short', () => {
    expect(problemsOf({ SHUTDOWN_GRACE_MS: '8000', SHUTDOWN_DEADLINE_MS: '6000' })).toEqual([
      'SHUTDOWN_DEADLINE_MS: must be greater than SHUTDOWN_GRACE_MS (got "6000")',
    ]);
  });

  // The gateway's admin token, presented the same way: a token the gateway refuses is refused here.
  it.each([
    ['a space', 'correct horse battery staple'],
    ['a non-ASCII character', 'correct-horse-battery-stäple'],
  ])('refuses an admin token with %s inside', (_what, token) => {
    expect(problemsOf({ SWITCHYARD_ADMIN_TOKEN: token })).toEqual([
      'SWITCHYARD_ADMIN_TOKEN: must be printable ASCII without whitespace (it is sent as a Bearer token)',
    ]);
  });

  it('refuses a GATEWAY_PUBLIC_URL that is not http(s)', () => {
    expect(problemsOf({ GATEWAY_PUBLIC_URL: 'ftp://gateway.example.com' })[0]).toMatch(
      /^GATEWAY_PUBLIC_URL: must be a http: or https: URL/,
    );
  });

  it('refuses a NODE_ENV it does not know', () => {
    expect(problemsOf({ NODE_ENV: 'prod' })[0]).toMatch(/^NODE_ENV: must be one of/);
  });
});
