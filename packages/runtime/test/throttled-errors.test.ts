import { describe, expect, it } from 'vitest';
import { createLogger } from '@switchyard/telemetry';
import { throttledErrors } from '../src/index.ts';

function captured() {
  const lines: Array<Record<string, unknown>> = [];
  const log = createLogger({
    name: 'test',
    level: 'info',
    destination: { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  return { log, lines };
}

// A Redis outage is an error per reconnect attempt: the log gets the first and then one line per
// 30 s with the count, not one per attempt.
describe('throttledErrors', () => {
  it('logs the first error at warn, then at most one line per interval with how many it stands for', () => {
    const { log, lines } = captured();
    let now = 0;
    const report = throttledErrors(log, 'Redis error; reconnecting', { everyMs: 30_000, now: () => now });
    for (; now < 95_000; now += 100) report(new Error(`connect ECONNREFUSED (${now})`));
    expect(lines.map((l) => [l.level, l.msg, l.repeated])).toEqual([
      [40, 'Redis error; reconnecting', undefined],
      [40, 'Redis error; reconnecting (still failing)', 300],
      [40, 'Redis error; reconnecting (still failing)', 300],
      [40, 'Redis error; reconnecting (still failing)', 300],
    ]);
    expect(lines[0]!.err).toMatchObject({ message: 'connect ECONNREFUSED (0)' });
  });

  it('after a recovery, the next error is a first one again', () => {
    const { log, lines } = captured();
    let now = 0;
    const report = throttledErrors(log, 'down', { now: () => now });
    report(new Error('a'));
    report.recovered();
    now = 1000;
    report(new Error('b'));
    expect(lines.map((l) => l.msg)).toEqual(['down', 'down']);
  });
});
