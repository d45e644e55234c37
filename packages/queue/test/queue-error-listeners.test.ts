// A BullMQ queue without an `error` listener prints every error with console.error: during a
// Redis outage a multi-line, non-JSON dump per reconnect attempt, in a JSON log.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Redis } from 'ioredis';
import { createLogger } from '@switchyard/telemetry';
import { freePort, waitFor } from '@switchyard/testing';
import { createQueueKeys, MaintenanceScheduler, TaskQueue } from '../src/index.ts';
import { throttled } from '../src/task-queue.ts';

const opened: Redis[] = [];
afterEach(() => {
  for (const connection of opened.splice(0)) connection.disconnect();
  vi.restoreAllMocks();
});

/** A connection to a port nobody listens on, retrying fast, and a count of its failed attempts. */
async function unreachableRedis(): Promise<{ connection: Redis; attempts: () => number }> {
  const connection = new Redis({
    port: await freePort(),
    host: '127.0.0.1',
    maxRetriesPerRequest: null,
    retryStrategy: () => 20,
  });
  opened.push(connection);
  let attempts = 0;
  connection.on('error', () => (attempts += 1));
  return { connection, attempts: () => attempts };
}

function captured() {
  const lines: Array<Record<string, unknown>> = [];
  const log = createLogger({
    name: 'test',
    level: 'info',
    destination: { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  return { log, lines };
}

describe('with Redis unreachable', () => {
  it('a TaskQueue logs its first error through the logger, and nothing on the console', async () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { connection, attempts } = await unreachableRedis();
    const { log, lines } = captured();
    const queue = new TaskQueue({ connection, keys: createQueueKeys('errors'), log });
    await waitFor(() => attempts() >= 5, { what: 'reconnect attempts' });
    expect(consoleError).not.toHaveBeenCalled();
    expect(lines.map((l) => [l.level, l.msg])).toEqual([[40, 'task queue: Redis error; retrying']]);
    void queue.close().catch(() => undefined);
  });

  it('a TaskQueue without a logger still keeps its errors off the console', async () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { connection, attempts } = await unreachableRedis();
    const queue = new TaskQueue({ connection, keys: createQueueKeys('errors') });
    await waitFor(() => attempts() >= 5, { what: 'reconnect attempts' });
    expect(consoleError).not.toHaveBeenCalled();
    void queue.close().catch(() => undefined);
  });

  it("the maintenance scheduler's queue is listened to, and its errors passed on throttled", async () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { connection, attempts } = await unreachableRedis();
    const errors: unknown[] = [];
    const scheduler = new MaintenanceScheduler({
      connection,
      keys: createQueueKeys('errors'),
      jobs: [],
      onError: (err) => errors.push(err),
    });
    await waitFor(() => attempts() >= 5, { what: 'reconnect attempts' });
    expect(consoleError).not.toHaveBeenCalled();
    expect(errors).toHaveLength(1);
    void scheduler.close(100);
  });
});

describe('throttled', () => {
  it('passes on the first error, then one per interval with how many it stands for', () => {
    let now = 0;
    const passed: Array<[unknown, number]> = [];
    const report = throttled((err, repeated) => passed.push([err, repeated]), {
      everyMs: 30_000,
      now: () => now,
    });
    for (; now < 65_000; now += 1000) report(now);
    expect(passed).toEqual([
      [0, 1],
      [30_000, 30],
      [60_000, 30],
    ]);
  });
});
