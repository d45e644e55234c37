import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startProcess, waitFor, type RunningProcess } from '@switchyard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2ATestClient } from '../support/a2a-client.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { taskOf, userMessage } from '../support/messages.ts';

// Issue 8, security suite: a webhook registered through the gateway that answers with a redirect
// is never followed by the real pusher process (a redirect would bounce a checked URL to an
// address nobody checked). Every redirect status is tried, the method-preserving 307/308 above
// all. Loopback is allow-listed here only so the receivers can run on this machine.
const REDIRECTS = [301, 302, 303, 307, 308];
let h: Harness;
let pusher: RunningProcess;
let redirector: http.Server;
let internal: http.Server;
const internalHits: string[] = [];
const redirectorHits: string[] = [];

const listen = async (server: http.Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

beforeAll(async () => {
  h = await startHarness({ env: { WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8' } });
  internal = http.createServer((req, res) => {
    internalHits.push(`${req.method} ${req.url}`);
    res.writeHead(204).end();
  });
  const internalUrl = await listen(internal);
  redirector = http.createServer((req, res) => {
    redirectorHits.push(req.url ?? '');
    const status = Number((req.url ?? '').slice(2)) || 302;
    req.resume();
    res.writeHead(status, { location: `${internalUrl}/metadata${req.url}` }).end();
  });
  await listen(redirector);
  pusher = startProcess('apps/pusher/src/main.ts', {
    DATABASE_URL: h.db.url,
    REDIS_URL: h.redis.url,
    SWITCHYARD_REDIS_PREFIX: h.redis.prefix,
    SWITCHYARD_SECRET_KEY: 'test-secret-key-0123456789',
    LOG_LEVEL: 'warn',
    WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
    PUSHER_OPS_PORT: '0',
    PUSH_POLL_MS: '100',
    // One attempt per delivery is enough to see the answer; no retry storm while the test runs.
    PUSH_RETRY_BASE_MS: '600000',
    PUSH_RETRY_MAX_MS: '600000',
  });
});
afterAll(async () => {
  pusher?.signal('SIGKILL');
  await pusher?.exited;
  redirector?.close();
  internal?.close();
  await h?.stop();
});

describe('webhook redirects', () => {
  it('are never followed, whatever the status; the delivery stays undelivered', async () => {
    const sleepy = new A2ATestClient('rest', `${h.url}/agents/acme/sleepy`, h.fixtures.keys.alice);
    const sent = await sleepy.call('SendMessage', {
      message: userMessage('push me around'),
      configuration: { returnImmediately: true },
    });
    if (!sent.ok) throw new Error(sent.reason);
    const taskId = taskOf(sent.value).id;
    const origin = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}`;
    for (const status of REDIRECTS) {
      const created = await sleepy.call('CreateTaskPushNotificationConfig', {
        taskId,
        id: `r${status}`,
        url: `${origin}/r${status}`,
      });
      expect(created.ok).toBe(true);
    }
    // The cancel is an event every config gets a delivery of.
    expect((await sleepy.call('CancelTask', { id: taskId })).ok).toBe(true);
    const rows = await waitFor(
      async () => {
        const { rows } = await h.db.pool.query<{
          config_id: string;
          last_status: number | null;
          status: string;
        }>(
          `SELECT DISTINCT ON (config_id) config_id, last_status, status FROM push_deliveries
            WHERE tenant_id = 'acme' AND task_id = $1 AND last_status IS NOT NULL
            ORDER BY config_id, seq DESC`,
          [taskId],
        );
        return rows.length === REDIRECTS.length ? rows : undefined;
      },
      { timeoutMs: 20_000, what: 'one answered attempt per redirecting webhook' },
    );
    for (const row of rows) {
      expect(row.last_status).toBe(Number(row.config_id.slice(1)));
      expect(row.status).not.toBe('delivered');
    }
    expect(redirectorHits.length).toBeGreaterThanOrEqual(REDIRECTS.length);
    expect(internalHits).toEqual([]);
    // Bounds a stuck run (a process start and a delivery round); asserts nothing about speed.
  }, 60_000);
});
