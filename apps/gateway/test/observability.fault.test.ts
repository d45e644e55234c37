import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledAgents } from '@switchyard/agents';
import { createDb, createSecretBox, PostgresAdminStore } from '@switchyard/store';
import { createOtlpCapture, type OtlpCapture } from '@switchyard/telemetry/testing';
import {
  createTestDatabase,
  createTestRedis,
  freePort,
  startProcess,
  waitFor,
  waitForReadiness,
  type RunningProcess,
  type TestDatabase,
  type TestRedis,
} from '@switchyard/testing';

// Issue 6 proof with the real processes: one trace across gateway, worker and pusher; /metrics
// families with the right values after a known workload; readiness while Postgres is unreachable.
const SECRET = 'observability-secret-key-0123';
const KEY = 'sy_observability_test_key_0123456789';
let db: TestDatabase;
let redis: TestRedis;
let capture: OtlpCapture;
let proxy: PgProxy;
let receiver: http.Server;
const received: Array<{ body: Record<string, unknown>; headers: http.IncomingHttpHeaders }> = [];
const procs: RunningProcess[] = [];
let gatewayUrl = '';
let workerOps = '';
let pusherOps = '';

/** A TCP proxy in front of Postgres that the test can cut and restore (Postgres "goes down"). */
interface PgProxy {
  port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
}

async function startPgProxy(target: URL): Promise<PgProxy> {
  const sockets = new Set<net.Socket>();
  let server: net.Server;
  const listen = (port: number) =>
    new Promise<number>((resolve) => {
      server = net.createServer((client) => {
        const upstream = net.connect(Number(target.port || 5432), target.hostname);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => s.destroy());
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
    });
  const port = await listen(0);
  return {
    port,
    async cut() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
    },
    async restore() {
      await listen(port);
    },
  };
}

async function rpc(method: string, params: unknown) {
  const res = await fetch(`${gatewayUrl}/agents/obs/echo/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': KEY, 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as {
    result?: { task?: { id: string; status: { state: string } } } & Record<string, unknown>;
  };
}

async function scrape(url: string): Promise<string> {
  return (await fetch(`${url}/metrics`)).text();
}

/** The value of one series, e.g. value(text, 'switchyard_requests_total', {method: 'GetTask'}). */
function value(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)))
      return Number(line.split(' ').at(-1));
  }
  return 0;
}

beforeAll(async () => {
  db = await createTestDatabase();
  redis = createTestRedis();
  capture = await createOtlpCapture();
  proxy = await startPgProxy(new URL(db.url));
  const admin = new PostgresAdminStore({ db: createDb(db.pool), secrets: createSecretBox(SECRET) });
  await admin.ensureTenant({ id: 'obs', name: 'Observability' });
  const echo = bundledAgents.find((a) => a.executor === 'echo')!;
  await admin.upsertAgent({
    tenantId: 'obs',
    id: 'echo',
    card: echo.card as unknown as Record<string, unknown>,
    executor: 'echo',
    settings: {},
  });
  await admin.createApiKey({ tenantId: 'obs', principal: 'ops', role: 'user', plaintext: KEY });
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
        headers: req.headers,
      });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));

  const viaProxy = new URL(db.url);
  viaProxy.host = `127.0.0.1:${proxy.port}`;
  const [gatewayPort, workerPort, pusherPort] = [await freePort(), await freePort(), await freePort()];
  const common = {
    DATABASE_URL: db.url,
    REDIS_URL: redis.url,
    SWITCHYARD_REDIS_PREFIX: redis.prefix,
    SWITCHYARD_SECRET_KEY: SECRET,
    LOG_LEVEL: 'warn',
    WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
    ...capture.env,
  };
  procs.push(
    startProcess('apps/gateway/src/main.ts', {
      ...common,
      DATABASE_URL: viaProxy.toString(),
      PORT: String(gatewayPort),
      OTEL_SERVICE_NAME: 'switchyard-gateway',
    }),
  );
  procs.push(
    startProcess('apps/worker/src/main.ts', {
      ...common,
      WORKER_OPS_PORT: String(workerPort),
      OTEL_SERVICE_NAME: 'switchyard-worker',
    }),
  );
  procs.push(
    startProcess('apps/pusher/src/main.ts', {
      ...common,
      PUSHER_OPS_PORT: String(pusherPort),
      PUSH_POLL_MS: '200',
      OTEL_SERVICE_NAME: 'switchyard-pusher',
    }),
  );
  gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  workerOps = `http://127.0.0.1:${workerPort}`;
  pusherOps = `http://127.0.0.1:${pusherPort}`;
  for (const url of [gatewayUrl, workerOps, pusherOps]) {
    await waitForReadiness(url, { what: `${url} ready`, timeoutMs: 30_000 });
  }
});

afterAll(async () => {
  for (const p of procs) {
    p.signal('SIGKILL');
    await p.exited;
  }
  receiver?.close();
  await capture?.close();
  await redis?.cleanup();
  await db?.drop();
});

describe('observability of the real processes (issue 6)', () => {
  let taskId = '';

  it("one task's spans form one trace across the gateway, worker and pusher processes", async () => {
    const { port } = receiver.address() as AddressInfo;
    const reply = await rpc('SendMessage', {
      message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'trace me' }] },
      configuration: { taskPushNotificationConfig: { url: `http://127.0.0.1:${port}/hook` } },
    });
    taskId = reply.result?.task?.id ?? '';
    expect(reply.result?.task?.status.state).toBe('TASK_STATE_COMPLETED');
    await waitFor(() => received.some((r) => JSON.stringify(r.body).includes('TASK_STATE_COMPLETED')), {
      what: 'the COMPLETED push',
    });
    const spans = await waitFor(
      () => {
        const mine = capture.spans().filter((s) => s.attributes['switchyard.task_id'] === taskId);
        const services = new Set(mine.map((s) => s.service));
        return (
          services.has('switchyard-gateway') &&
          services.has('switchyard-worker') &&
          services.has('switchyard-pusher') &&
          mine
        );
      },
      { timeoutMs: 20_000, what: 'spans from all three processes' },
    );
    if (new Set(spans.map((s) => s.traceId)).size !== 1)
      console.log(
        JSON.stringify(
          spans.map((s) => [
            s.service,
            s.name,
            s.traceId.slice(0, 6),
            s.spanId.slice(0, 6),
            s.parentSpanId.slice(0, 6),
          ]),
        ),
      );
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    const names = new Set(spans.map((s) => s.name));
    for (const name of ['run-task', 'deliver-push', 'store.change-task']) expect(names).toContain(name);
  });

  it('/metrics on every process exposes the families with the values of a known workload', async () => {
    for (let i = 0; i < 3; i++) await rpc('GetTask', { id: taskId });
    await rpc('GetTask', { id: crypto.randomUUID() });
    const gateway = await scrape(gatewayUrl);
    expect(
      value(gateway, 'switchyard_requests_total', { method: 'GetTask', binding: 'jsonrpc', outcome: 'ok' }),
    ).toBe(3);
    expect(
      value(gateway, 'switchyard_requests_total', {
        method: 'GetTask',
        binding: 'jsonrpc',
        outcome: 'TaskNotFound',
      }),
    ).toBe(1);
    expect(
      value(gateway, 'switchyard_requests_total', {
        method: 'SendMessage',
        binding: 'jsonrpc',
        outcome: 'ok',
      }),
    ).toBe(1);
    expect(value(gateway, 'switchyard_tasks_created_total', { agent: 'echo' })).toBe(1);
    for (const family of [
      'switchyard_request_duration_seconds_bucket',
      'switchyard_sse_connections',
      'switchyard_pg_pool_connections',
      'switchyard_redis_up',
    ]) {
      expect(gateway).toContain(family);
    }
    const worker = await scrape(workerOps);
    expect(
      value(worker, 'switchyard_tasks_finished_total', { agent: 'echo', state: 'TASK_STATE_COMPLETED' }),
    ).toBe(1);
    for (const family of [
      'switchyard_queue_depth',
      'switchyard_queue_oldest_age_seconds',
      'switchyard_lease_expiries_total',
      'switchyard_reaper_actions_total',
      'switchyard_dispatch_latency_seconds_bucket',
    ]) {
      expect(worker).toContain(family);
    }
    const pusher = await scrape(pusherOps);
    expect(value(pusher, 'switchyard_push_deliveries_total', { outcome: 'delivered' })).toBe(received.length);
    for (const family of ['switchyard_push_delivery_duration_seconds_bucket', 'switchyard_push_pending'])
      expect(pusher).toContain(family);
  });

  it('/readyz reports Postgres unreachable without failing: the API answers 503 + Retry-After itself', async () => {
    // Readiness gated on Postgres took every replica out at once under pool pressure or a
    // failover, and clients got the ingress's HTML 503 instead of the gateway's own.
    await proxy.cut();
    const down = await waitForReadiness(gatewayUrl, {
      until: (r) => r.code === 200 && r.body.checks['postgres'] === false,
      what: 'readiness to report Postgres down',
      timeoutMs: 15_000,
    });
    expect(down.body.checks['migrations']).toBe(true);
    const api = await fetch(`${gatewayUrl}/agents/obs/echo/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEY, 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: crypto.randomUUID() } }),
    });
    expect(api.status).toBe(503);
    expect(api.headers.get('retry-after')).toBe('2');
    expect((await fetch(`${gatewayUrl}/healthz`)).status).toBe(200);
    await proxy.restore();
    await waitForReadiness(gatewayUrl, {
      until: (r) => r.code === 200 && r.body.checks['postgres'] === true,
      what: 'readiness to report Postgres back',
      timeoutMs: 20_000,
    });
  });
});
