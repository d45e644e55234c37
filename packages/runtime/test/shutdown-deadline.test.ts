import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '@switchyard/telemetry';
import { startProcess, waitFor, type RunningProcess } from '@switchyard/testing';
import { closeWithin, commonEnvSchema, parseEnv, shutdownDeadlineMs } from '../src/index.ts';

const hangingDrain = fileURLToPath(new URL('./fixtures/hanging-drain.ts', import.meta.url));
const failingExit = fileURLToPath(new URL('./fixtures/failing-exit.ts', import.meta.url));
let proc: RunningProcess | undefined;
afterEach(() => proc?.signal('SIGKILL'));

/** The fixture at `entry`, once it has said it started (so a signal finds its handlers). */
async function started(entry: string, env: Record<string, string>): Promise<RunningProcess> {
  const running = startProcess(entry, env);
  proc = running;
  await waitFor(() => running.logs().some((l) => l.msg === 'started'), {
    what: 'the process to start',
    timeoutMs: 20_000,
  });
  return running;
}

describe('the shutdown deadline', () => {
  it('ends a drain that never finishes: logged, traces flushed, exit code 1', async () => {
    const running = await started(hangingDrain, { DEADLINE_MS: '300' });
    running.signal('SIGTERM');
    expect(await running.exited).toBe(1);
    const said = running.logs().map((l) => l.msg);
    expect(said).toContain('shutdown deadline passed: exiting with the drain unfinished');
    expect(said).toContain('traces flushed');
    expect(said).not.toContain('stopped');
  });

  // Found in review: a failed drain and an uncaught exception exited without flushing traces, so
  // the spans around the failure, the ones wanted most, were lost.
  it('flushes traces before exiting 1 after a failed drain', async () => {
    const running = await started(failingExit, { FAILURE: 'stop' });
    running.signal('SIGTERM');
    expect(await running.exited).toBe(1);
    expect(running.logs().map((l) => l.msg)).toEqual(
      expect.arrayContaining(['shutdown failed', 'traces flushed']),
    );
  });

  it('flushes traces before exiting 1 after an uncaught exception', async () => {
    proc = startProcess(failingExit, { FAILURE: 'crash' });
    expect(await proc.exited).toBe(1);
    expect(proc.logs().map((l) => l.msg)).toEqual(
      expect.arrayContaining(['uncaught exception: exiting', 'traces flushed']),
    );
  });

  it('is SHUTDOWN_DEADLINE_MS when set, else the drain grace plus a margin', () => {
    expect(shutdownDeadlineMs(parseEnv(commonEnvSchema, {}), 15_000)).toBe(20_000);
    expect(shutdownDeadlineMs(parseEnv(commonEnvSchema, { SHUTDOWN_DEADLINE_MS: '25000' }), 15_000)).toBe(
      25_000,
    );
    expect(() => parseEnv(commonEnvSchema, { SHUTDOWN_DEADLINE_MS: '10' })).toThrow(/SHUTDOWN_DEADLINE_MS/);
  });
});

describe('closeWithin', () => {
  it('waits for a close at most its timeout, and never rejects', async () => {
    const log = silentLogger();
    expect(await closeWithin('prompt', async () => undefined, log, 1000)).toBe(true);
    expect(await closeWithin('hanging', () => new Promise(() => undefined), log, 50)).toBe(false);
    expect(await closeWithin('failing', () => Promise.reject(new Error('refused')), log, 1000)).toBe(false);
    expect(
      await closeWithin(
        'throwing',
        () => {
          throw new Error('at once');
        },
        log,
        1000,
      ),
    ).toBe(false);
  });
});
