import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  createTestRedis,
  freePort,
  REPO_ROOT,
  waitFor,
  waitForReadiness,
  type TestDatabase,
  type TestRedis,
} from '@switchyard/testing';

// The README promises `script/server` runs the whole platform: bootstrap, migrations, the demo
// seed (key from SWITCHYARD_DEMO_API_KEY), gateway, worker, pusher and console; SIGTERM drains.
const KEY = 'sy_script_server_smoke_key_0123456789';
let db: TestDatabase;
let redis: TestRedis;

beforeAll(async () => {
  db = await createTestDatabase();
  redis = createTestRedis();
});
afterAll(async () => {
  await redis.cleanup();
  await db.drop();
});

describe('script/server (README)', () => {
  it('starts the platform with the demo tenant and key, serves A2A, and drains on SIGTERM', async () => {
    const [port, consolePort, workerPort, pusherPort] = await Promise.all([
      freePort(),
      freePort(),
      freePort(),
      freePort(),
    ]);
    const child = spawn('bash', ['script/server'], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        DATABASE_URL: db.url,
        REDIS_URL: redis.url,
        SWITCHYARD_REDIS_PREFIX: redis.prefix,
        SWITCHYARD_DEMO_API_KEY: KEY,
        PORT: String(port),
        CONSOLE_PORT: String(consolePort),
        WORKER_OPS_PORT: String(workerPort),
        PUSHER_OPS_PORT: String(pusherPort),
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await waitFor(() => output.includes('platform running'), {
        timeoutMs: 120_000,
        what: 'script/server to start',
      });
      expect(output).toContain(KEY);
      expect(output).toContain(`http://localhost:${port}/agents/demo/echo/rpc`);
      const base = `http://127.0.0.1:${port}`;
      await waitForReadiness(base, { what: 'gateway ready', timeoutMs: 30_000 });
      const reply = await fetch(`${base}/agents/demo/echo/rpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': KEY, 'a2a-version': '1.0' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'SendMessage',
          params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
        }),
      });
      const body = (await reply.json()) as { result: { task: { status: { state: string } } } };
      expect(body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
      for (const p of [consolePort, workerPort, pusherPort]) {
        await waitFor(async () => (await fetch(`http://127.0.0.1:${p}/healthz`).catch(() => null))?.ok, {
          what: `process on ${p}`,
        });
      }
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(output).not.toContain('forcing');
  });
});
