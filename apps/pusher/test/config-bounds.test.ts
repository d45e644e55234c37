import { describe, expect, it } from 'vitest';
import { ConfigError, MAX_TIMER_MS } from '@switchyard/runtime';
import { loadPusherConfig, pusherEnvSchema } from '../src/config.ts';

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadPusherConfig(env);
    return [];
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
}

describe('every *_MS setting of the pusher', () => {
  const timers = Object.keys(pusherEnvSchema.shape).filter((name) => name.endsWith('_MS'));

  it.each(timers)('%s is refused past the timer limit, naming it', (name) => {
    expect(problemsOf({ [name]: String(MAX_TIMER_MS + 1) }).some((p) => p.startsWith(`${name}: `))).toBe(
      true,
    );
  });
});

describe('the drain', () => {
  // In-flight sends get PUSH_TIMEOUT_MS (+ 5 s) on SIGTERM: a deadline under it cuts every drain short.
  it('refuses a SHUTDOWN_DEADLINE_MS inside the drain (PUSH_TIMEOUT_MS + 7 s)', () => {
    expect(problemsOf({ PUSH_TIMEOUT_MS: '30000', SHUTDOWN_DEADLINE_MS: '20000' })).toEqual([
      'SHUTDOWN_DEADLINE_MS: must be greater than PUSH_TIMEOUT_MS + 7000 (the drain) (got "20000")',
    ]);
    expect(problemsOf({ PUSH_TIMEOUT_MS: '10000', SHUTDOWN_DEADLINE_MS: '12000' })).toEqual([
      'SHUTDOWN_DEADLINE_MS: must be greater than PUSH_TIMEOUT_MS + 7000 (the drain) (got "12000")',
    ]);
    expect(problemsOf({ PUSH_TIMEOUT_MS: '10000', SHUTDOWN_DEADLINE_MS: '20000' })).toEqual([]);
  });
});
