// The dashboard's BullMQ queues, without an `error` listener, printed every error of a Redis
// outage with console.error: a multi-line dump per reconnect attempt per queue.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Redis } from 'ioredis';
import { createQueueKeys } from '@switchyard/queue';
import { createLogger } from '@switchyard/telemetry';
import { freePort, waitFor } from '@switchyard/testing';
import { queueDashboard } from '../src/admin/queue-dashboard.ts';

let connection: Redis | undefined;
afterEach(() => {
  connection?.disconnect();
  vi.restoreAllMocks();
});

describe('the queue dashboard with Redis unreachable', () => {
  it('logs the first error once through the logger, and nothing on the console', async () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    connection = new Redis({ port: await freePort(), maxRetriesPerRequest: null, retryStrategy: () => 20 });
    let attempts = 0;
    connection.on('error', () => (attempts += 1));
    const lines: Array<Record<string, unknown>> = [];
    const log = createLogger({
      name: 'test',
      level: 'info',
      destination: { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
    });
    const dashboard = queueDashboard({
      redis: connection,
      keys: createQueueKeys('dashboard-errors'),
      token: 'an-admin-token-for-tests',
      log,
    });
    await waitFor(() => attempts >= 5, { what: 'reconnect attempts' });
    expect(consoleError).not.toHaveBeenCalled();
    expect(lines.map((l) => [l.level, l.msg])).toEqual([[40, 'queue dashboard: Redis error; retrying']]);
    void dashboard.close().catch(() => undefined);
  });
});
