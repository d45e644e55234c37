import { describe, expect, it } from 'vitest';
import { FAULT_KINDS } from '../src/check-types.ts';
import { formatReport } from '../src/report.ts';
import { runChaos } from '../src/run-chaos.ts';

// A short seeded run of the fault-injection suite (issue 8): real gateway, worker and pusher
// processes on a private Postgres and Redis, every fault kind at least once, and a clean report.
describe('fault-injection suite', () => {
  it(
    'keeps every promise through kills, freezes, Redis and Postgres restarts, and a hung Postgres',
    { timeout: 300_000 },
    async () => {
      const report = await runChaos({ durationMs: 60_000, seed: 8, clients: 6 });
      const text = formatReport(report);
      if (report.violations.length) console.log(text);
      expect(new Set(report.faults.map((f) => f.kind))).toEqual(new Set(FAULT_KINDS));
      // The frozen worker's runs were really taken over (else "no write after a takeover" held
      // vacuously for it): its writes after SIGCONT are what the fencing must refuse.
      expect(report.faults.some((f) => f.kind === 'freeze-worker' && (f.takenOver ?? 0) > 0)).toBe(true);
      expect(report.stats.resumedStreams).toBeGreaterThan(0);
      expect(report.stats.pushTasks).toBeGreaterThan(0);
      expect(report.calls['GetTask (HTTP+JSON)']).toBeGreaterThan(0);
      expect(report.violations).toEqual([]);
    },
  );
});
