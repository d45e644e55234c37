import { describe, expect, it } from 'vitest';
import {
  commonEnvSchema,
  ConfigError,
  drainFitsDeadline,
  MAX_TIMER_MS,
  msVar,
  parseEnv,
  shutdownDeadlineMs,
  z,
} from '../src/index.ts';

// Node fires a timer longer than 2^31 - 1 ms after 1 ms: such a setting must stop the start.
function problemsOf(schema: z.ZodObject, env: NodeJS.ProcessEnv): string[] {
  try {
    parseEnv(schema, env);
    return [];
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
}

describe('msVar', () => {
  const schema = z.object({ SOME_HEARTBEAT_MS: msVar(15_000, 100), SOME_POLL_MS: msVar(1000, 10, 60_000) });

  it("refuses a delay past Node's timer limit, naming the setting and the limit", () => {
    expect(problemsOf(schema, { SOME_HEARTBEAT_MS: String(MAX_TIMER_MS) })).toEqual([]);
    const [problem] = problemsOf(schema, { SOME_HEARTBEAT_MS: '99999999999' });
    expect(problem).toMatch(/^SOME_HEARTBEAT_MS: must be at most 2147483647 \(Node's timer limit/);
  });

  it('keeps a smaller maximum of its own', () => {
    expect(problemsOf(schema, { SOME_POLL_MS: '60001' })).toEqual([
      'SOME_POLL_MS: must be at most 60000 (got "60001")',
    ]);
  });

  it('takes no maximum above the timer limit', () => {
    const loose = z.object({ LOOSE_MS: msVar(1, 0, Number.MAX_SAFE_INTEGER) });
    expect(problemsOf(loose, { LOOSE_MS: String(MAX_TIMER_MS + 1) })[0]).toMatch(
      /^LOOSE_MS: must be at most 2147483647/,
    );
  });
});

describe('NODE_ENV', () => {
  it.each(['development', 'test', 'production'])('%s is taken', (mode) => {
    expect(
      parseEnv(commonEnvSchema, { NODE_ENV: mode, SWITCHYARD_SECRET_KEY: 'a-secret-of-our-own-0123' })
        .NODE_ENV,
    ).toBe(mode);
  });

  it('defaults to development', () => {
    expect(parseEnv(commonEnvSchema, {}).NODE_ENV).toBe('development');
  });

  it.each(['Production', 'prod', 'PRODUCTION', 'staging'])(
    '%s is refused rather than run as development, without the production checks',
    (mode) => {
      const [problem] = problemsOf(commonEnvSchema, { NODE_ENV: mode });
      expect(problem).toBe(
        `NODE_ENV: must be one of development, test, production (lower case) (got "${mode}")`,
      );
    },
  );
});

describe('the shutdown deadline', () => {
  it('must be past the drain grace when set', () => {
    expect(drainFitsDeadline({}, 20_000)).toBe(true);
    expect(drainFitsDeadline({ SHUTDOWN_DEADLINE_MS: 20_001 }, 20_000)).toBe(true);
    expect(drainFitsDeadline({ SHUTDOWN_DEADLINE_MS: 20_000 }, 20_000)).toBe(false);
    expect(drainFitsDeadline({ SHUTDOWN_DEADLINE_MS: 5_000 }, 20_000)).toBe(false);
  });

  it('derived from a grace stays a valid timer', () => {
    expect(shutdownDeadlineMs({}, 10_000)).toBe(15_000);
    expect(shutdownDeadlineMs({}, MAX_TIMER_MS)).toBe(MAX_TIMER_MS);
  });

  it('is refused above an hour', () => {
    expect(problemsOf(commonEnvSchema, { SHUTDOWN_DEADLINE_MS: '3600001' })[0]).toMatch(
      /^SHUTDOWN_DEADLINE_MS:/,
    );
  });
});
