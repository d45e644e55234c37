import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { bundledAgents } from '@switchyard/agents';
import { createPusher, loadPusherConfig, pusherSettings } from '@switchyard/pusher';
import { silentLogger } from '@switchyard/telemetry';
import { startProcess, waitFor, type RunningProcess } from '@switchyard/testing';
import type { BenchPlatform } from './bench-platform.ts';
import { timedPool, type BenchResult } from './stats.ts';

const message = (text: string) => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] });

/**
 * The gateway as its own process, as deployed: the benchmark's client and the in-process workers
 * do not share its event loop, so the HTTP figures are the gateway's.
 */
async function startGateway(
  p: BenchPlatform,
): Promise<{ gateway: RunningProcess; url: string; key: string }> {
  const port = await freePort();
  const gateway = startProcess('apps/gateway/src/main.ts', {
    DATABASE_URL: p.dbHandle.url,
    REDIS_URL: p.redisHandle.url,
    SWITCHYARD_REDIS_PREFIX: p.redisHandle.prefix,
    SWITCHYARD_SECRET_KEY: 'bench-secret-key-0123456789',
    RATE_LIMIT_TENANT_PER_SEC: '1000000',
    RATE_LIMIT_KEY_PER_SEC: '1000000',
    WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
    LOG_LEVEL: 'error',
    PORT: String(port),
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${url}/readyz`).catch(() => null))?.ok, {
    timeoutMs: 30_000,
    what: 'gateway ready',
  });
  const { plaintext } = await p.admin.createApiKey({
    tenantId: 'bench-a',
    principal: 'bench-http',
    role: 'user',
  });
  return { gateway, url, key: plaintext };
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

function rpc(url: string, key: string, agent: string, method: string, params: unknown): Promise<Response> {
  return fetch(`${url}/agents/bench-a/${agent}/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key, 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
}

/** Non-blocking SendMessage and GetTask through the real HTTP stack (express, auth, rate limits). */
export async function httpScenarios(p: BenchPlatform, n: (x: number) => number): Promise<BenchResult[]> {
  const { gateway, url, key } = await startGateway(p);
  try {
    const ids: string[] = [];
    const send = await timedPool(
      Array.from({ length: n(3000) }, (_, i) => i),
      32,
      async (i) => {
        const res = await rpc(url, key, 'echo', 'SendMessage', {
          message: message(`h${i}`),
          configuration: { returnImmediately: true },
        });
        const body = (await res.json()) as { result?: { task?: { id: string } } };
        if (body.result?.task) ids.push(body.result.task.id);
      },
    );
    const target = ids[0]!;
    const get = await timedPool(
      Array.from({ length: n(5000) }, (_, i) => i),
      32,
      async () => {
        const res = await fetch(`${url}/agents/bench-a/echo/rest/tasks/${target}?historyLength=1`, {
          headers: { 'x-api-key': key, 'a2a-version': '1.0' },
        });
        await res.arrayBuffer();
      },
    );
    const fanout = await sseFanout(p, url, key, n);
    return [
      {
        scenario: 'HTTP SendMessage',
        unit: 'JSON-RPC, returnImmediately, 32 clients, gateway process',
        ops: ids.length,
        seconds: send.seconds,
        latenciesMs: send.latenciesMs,
      },
      {
        scenario: 'HTTP GetTask',
        unit: 'HTTP+JSON, 32 clients, gateway process',
        ops: get.latenciesMs.length,
        seconds: get.seconds,
        latenciesMs: get.latenciesMs,
      },
      fanout,
    ];
  } finally {
    gateway.signal('SIGTERM');
    await gateway.exited;
  }
}

/** Reads an SSE response, calling `onEvent` with each event's id and data. */
async function readSse(
  res: Response,
  onEvent: (id: string | undefined, data: string) => void,
): Promise<void> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let id: string | undefined;
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('id: ')) id = line.slice(4);
        else if (line.startsWith('data: ')) data += line.slice(6);
      }
      if (data) onEvent(id, data);
    }
  }
}

/**
 * Fan-out: many SSE streams on many running tasks. Latency is commit (the event row's created_at,
 * same machine clock) to the client reading the event.
 */
async function sseFanout(
  p: BenchPlatform,
  url: string,
  key: string,
  n: (x: number) => number,
): Promise<BenchResult> {
  const streamsPerTask = 10;
  const tasks = Math.max(2, Math.round(n(1000) / streamsPerTask));
  const slow = bundledAgents.find((a) => a.executor === 'slow')!;
  await p.admin.upsertAgent({
    tenantId: 'bench-a',
    id: 'fanout',
    card: slow.card as unknown as Record<string, unknown>,
    executor: 'slow',
    settings: { steps: 20, delayMs: 6000 },
  });
  const received: Array<{ taskId: string; seq: number; at: number }> = [];
  const streams: Array<Promise<void>> = [];
  const taskIds: string[] = [];
  const started = performance.now();
  for (let t = 0; t < tasks; t++) {
    const res = await rpc(url, key, 'fanout', 'SendMessage', {
      message: message('go'),
      configuration: { returnImmediately: true },
    });
    const taskId = ((await res.json()) as { result: { task: { id: string } } }).result.task.id;
    taskIds.push(taskId);
    for (let s = 0; s < streamsPerTask; s++) {
      streams.push(
        fetch(`${url}/agents/bench-a/fanout/rest/tasks/${taskId}:subscribe`, {
          headers: { 'x-api-key': key, 'a2a-version': '1.0' },
        }).then((r) =>
          readSse(r, (id, data) => {
            if (id && !data.startsWith('{"task"')) received.push({ taskId, seq: Number(id), at: Date.now() });
          }),
        ),
      );
    }
  }
  await Promise.all(streams);
  const seconds = (performance.now() - started) / 1000;
  const { rows } = await p.dbHandle.pool.query<{ task_id: string; seq: number; at: Date }>(
    'SELECT task_id, seq, created_at AS at FROM task_events WHERE tenant_id = $1 AND task_id = ANY($2::uuid[])',
    ['bench-a', taskIds],
  );
  const committed = new Map(rows.map((r) => [`${r.task_id}/${r.seq}`, r.at.getTime()]));
  const latenciesMs = received.flatMap((r) => {
    const at = committed.get(`${r.taskId}/${r.seq}`);
    return at === undefined ? [] : [Math.max(0, r.at - at)];
  });
  return {
    scenario: 'SSE fan-out',
    unit: `event commit → SSE client, ${tasks * streamsPerTask} concurrent streams`,
    ops: latenciesMs.length,
    seconds,
    latenciesMs,
  };
}

/** Push deliveries per second: tasks with a webhook each, a local receiver, one pusher. */
export async function pushScenario(p: BenchPlatform, n: (x: number) => number): Promise<BenchResult> {
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const config = loadPusherConfig({
    WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
    PUSHER_CONCURRENCY: '64',
    PUSH_POLL_MS: '200',
    LOG_LEVEL: 'silent',
  });
  const pusher = createPusher({
    pool: p.dbHandle.pool,
    subscriber: p.redisHandle.connect(),
    keys: p.keys,
    secrets: p.secrets,
    log: silentLogger(),
    settings: pusherSettings(config),
  });
  await pusher.start();
  try {
    const caller = { tenantId: 'bench-a', principal: 'bench-push', admin: false };
    const agent = (await p.admin.getAgent('bench-a', 'echo'))!;
    const tasks = n(500);
    const ids: string[] = [];
    await timedPool(
      Array.from({ length: tasks }, (_, i) => i),
      16,
      async (i) => {
        const r = await p.service.send(caller, agent, {
          message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: `p${i}` }] },
          configuration: { returnImmediately: true, taskPushNotificationConfig: { url: hook } },
        });
        if ('task' in r) ids.push(r.task.id);
      },
    );
    const query = () =>
      p.dbHandle.pool.query<{ ms: number; created: Date; delivered: Date | null; status: string }>(
        `SELECT extract(epoch FROM (delivered_at - created_at)) * 1000 AS ms, created_at AS created, delivered_at AS delivered, status
           FROM push_deliveries WHERE tenant_id = 'bench-a' AND task_id = ANY($1::uuid[])`,
        [ids],
      );
    for (;;) {
      const { rows } = await query();
      const live = await p.dbHandle.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM tasks WHERE tenant_id = 'bench-a' AND id = ANY($1::uuid[]) AND state <> 'TASK_STATE_COMPLETED'`,
        [ids],
      );
      if (live.rows[0]!.n === 0 && rows.every((r) => r.status !== 'pending')) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const { rows } = await query();
    const first = Math.min(...rows.map((r) => r.created.getTime()));
    const last = Math.max(...rows.map((r) => r.delivered?.getTime() ?? first));
    return {
      scenario: 'push deliveries',
      unit: 'event commit → webhook 2xx (one pusher, 64 in flight)',
      ops: rows.length,
      seconds: (last - first) / 1000,
      latenciesMs: rows.map((r) => Number(r.ms)),
    };
  } finally {
    await pusher.stop();
    receiver.close();
  }
}
