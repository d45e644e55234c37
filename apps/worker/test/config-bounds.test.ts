import { describe, expect, it } from 'vitest';
import { ConfigError, MAX_TIMER_MS } from '@switchyard/runtime';
import { loadWorkerConfig, workerEnvSchema } from '../src/config.ts';

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadWorkerConfig(env);
    return [];
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
}

/** Ages compared with timestamps, never a timer: their 30-day defaults are past the timer limit. */
const AGES = [
  'TERMINAL_TASK_TTL_MS',
  'EVENT_TTL_MS',
  'IDEMPOTENCY_TTL_MS',
  'DELIVERED_PUSH_TTL_MS',
  'CONTEXT_MEMORY_TTL_MS',
];

// Node fires a timer longer than 2^31 - 1 ms after 1 ms: LEASE_MS=9999999999 renewed every ms.
describe('every *_MS setting of the worker that a timer waits', () => {
  const timers = Object.keys(workerEnvSchema.shape).filter(
    (name) => name.endsWith('_MS') && !AGES.includes(name),
  );

  it.each(timers)('%s is refused past the timer limit, naming it', (name) => {
    expect(problemsOf({ [name]: String(MAX_TIMER_MS + 1) }).some((p) => p.startsWith(`${name}: `))).toBe(
      true,
    );
  });

  it.each([
    ['LEASE_MS', '86400001'],
    ['REAPER_INTERVAL_MS', '3600001'],
    ['SHUTDOWN_GRACE_MS', '3600001'],
  ])('%s keeps a smaller ceiling, for the timers derived from it', (name, value) => {
    expect(problemsOf({ [name]: value })[0]).toMatch(new RegExp(`^${name}: must be at most`));
  });
});

describe('the retention TTLs', () => {
  it('go past the timer limit (they are ages), up to ten years', () => {
    expect(loadWorkerConfig({ TERMINAL_TASK_TTL_MS: String(90 * 86_400_000) }).TERMINAL_TASK_TTL_MS).toBe(
      90 * 86_400_000,
    );
    expect(problemsOf({ CONTEXT_MEMORY_TTL_MS: '99999999999999' })[0]).toMatch(/^CONTEXT_MEMORY_TTL_MS: /);
  });
});

describe('the drain', () => {
  it('refuses a SHUTDOWN_GRACE_MS the deadline would cut short', () => {
    expect(problemsOf({ SHUTDOWN_GRACE_MS: '45000', SHUTDOWN_DEADLINE_MS: '30000' })).toEqual([
      'SHUTDOWN_DEADLINE_MS: must be greater than SHUTDOWN_GRACE_MS + 2000 (the agents\' stop grace) (got "30000")',
    ]);
    // Found in review: past the grace but inside the stop grace that follows it, the deadline cut
    // the hand-back of the runs told to stop.
    expect(problemsOf({ SHUTDOWN_GRACE_MS: '20000', SHUTDOWN_DEADLINE_MS: '21000' })).toEqual([
      'SHUTDOWN_DEADLINE_MS: must be greater than SHUTDOWN_GRACE_MS + 2000 (the agents\' stop grace) (got "21000")',
    ]);
  });
});
