import os from 'node:os';
import path from 'node:path';
import { startProcess, waitFor, type RunningProcess } from '@switchyard/testing';
import { SECRET } from './bench-environment.ts';
import { freePort } from '@switchyard/testing';

/** Node's on-disk compile cache cuts each child's start CPU by about a third; it changes nothing else. */
export const COMPILE_CACHE = path.join(os.tmpdir(), 'switchyard-bench-compile-cache');

export type Role = 'gateway' | 'worker' | 'pusher';

const ENTRY: Record<Role, string> = {
  gateway: 'apps/gateway/src/main.ts',
  worker: 'apps/worker/src/main.ts',
  pusher: 'apps/pusher/src/main.ts',
};

/**
 * The V8 settings the platform's processes run with, as deploy/Dockerfile and script/server set
 * them: a smaller young generation (see README, Operating) keeps resident size and scavenge pauses
 * down.
 */
export const PLATFORM_NODE_OPTIONS = '--max-semi-space-size=4';

/** One real platform process, started from its app's entry point exactly as deployed. */
export interface PlatformProcess {
  role: Role;
  name: string;
  /** The gateway's base URL, or the worker's / pusher's ops URL. */
  url: string;
  proc: RunningProcess;
  pid: number;
}

export interface Connection {
  databaseUrl: string;
  redisUrl: string;
  redisPrefix: string;
}

/** Starts one process and resolves when its /readyz answers 200. */
export async function startPlatformProcess(
  role: Role,
  name: string,
  conn: Connection,
  extraEnv: Record<string, string> = {},
): Promise<PlatformProcess> {
  const port = await freePort();
  const env: Record<string, string> = {
    DATABASE_URL: conn.databaseUrl,
    REDIS_URL: conn.redisUrl,
    SWITCHYARD_REDIS_PREFIX: conn.redisPrefix,
    SWITCHYARD_SECRET_KEY: SECRET,
    LOG_LEVEL: 'error',
    // The benchmark measures the platform, not the per-tenant limiter; its 1,000 streams share a key.
    RATE_LIMIT_TENANT_PER_SEC: '1000000',
    RATE_LIMIT_KEY_PER_SEC: '1000000',
    SSE_MAX_STREAMS_PER_CREDENTIAL: '1000000',
    WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
    SHUTDOWN_GRACE_MS: '1000',
    OTEL_EXPORTER_OTLP_ENDPOINT: '',
    NODE_COMPILE_CACHE: COMPILE_CACHE,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} ${PLATFORM_NODE_OPTIONS}`.trim(),
    ...(role === 'gateway' ? { PORT: String(port) } : {}),
    ...(role === 'worker' ? { WORKER_OPS_PORT: String(port) } : {}),
    // The bench has one tenant and one receiver: the fairness caps (a quarter of the slots each by
    // default) would measure the cap, not the pusher.
    ...(role === 'pusher'
      ? {
          PUSHER_OPS_PORT: String(port),
          PUSHER_CONCURRENCY: '64',
          PUSHER_MAX_IN_FLIGHT_PER_TENANT: '64',
          PUSHER_MAX_IN_FLIGHT_PER_HOST: '64',
        }
      : {}),
    ...extraEnv,
  };
  const proc = startProcess(ENTRY[role], env);
  const url = `http://127.0.0.1:${port}`;
  const exited = proc.exited.then((code) => {
    throw new Error(`${name} exited with ${code} before it was ready:\n${proc.lines.slice(-20).join('\n')}`);
  });
  await Promise.race([
    exited,
    waitFor(async () => (await fetch(`${url}/readyz`).catch(() => null))?.ok, {
      timeoutMs: 90_000,
      intervalMs: 100,
      what: `${name} ready`,
    }),
  ]);
  exited.catch(() => undefined);
  return { role, name, url, proc, pid: proc.child.pid! };
}

/** SIGTERM (drain), then SIGKILL whatever has not exited within a few seconds. */
export async function stopPlatformProcess(p: PlatformProcess): Promise<void> {
  p.proc.signal('SIGTERM');
  const timer = setTimeout(() => p.proc.signal('SIGKILL'), 5000);
  await p.proc.exited;
  clearTimeout(timer);
}
