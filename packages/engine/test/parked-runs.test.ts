import { describe, expect, it } from 'vitest';
import { createLogger } from '@switchyard/telemetry';
import { PARKED_RELEASE_AFTER_MS, releaseParkedRuns } from '../src/index.ts';

/** A logger whose lines the test reads. */
function capturedLogger() {
  const lines: Record<string, unknown>[] = [];
  const destination = {
    write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>),
  };
  return { log: createLogger({ name: 'test', destination }), lines };
}

describe('releaseParkedRuns', () => {
  it('asks for the release past the workers’ cached cap and says how many came back', async () => {
    const { log, lines } = capturedLogger();
    const asked: [string, number][] = [];
    const released = await releaseParkedRuns(
      { releaseParked: (tenantId, afterMs) => (asked.push([tenantId, afterMs]), Promise.resolve(3)) },
      'acme',
      log,
    );
    expect(released).toBe(3);
    expect(asked).toEqual([['acme', PARKED_RELEASE_AFTER_MS]]);
    expect(lines).toMatchObject([{ level: 30, tenantId: 'acme', released: 3 }]);
  });

  it('counts a failed release as none, with a warning, since the runs still return by their delays', async () => {
    const { log, lines } = capturedLogger();
    const released = await releaseParkedRuns(
      { releaseParked: () => Promise.reject(new Error('Redis is away')) },
      'acme',
      log,
    );
    expect(released).toBe(0);
    expect(lines).toMatchObject([{ level: 40, tenantId: 'acme', err: { message: 'Redis is away' } }]);
  });
});
