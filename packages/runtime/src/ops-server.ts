import http from 'node:http';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { redisAnswers } from '@switchyard/queue';
import { databaseReadiness } from '@switchyard/store';

export interface OpsHandlers {
  /** Liveness: the process is running its loop. */
  health(): Promise<boolean> | boolean;
  /** Readiness: dependencies reachable, migrations current. Returns failing checks by name. */
  ready(): Promise<Record<string, boolean>>;
  /** Checks reported by /readyz that do not make the process unready (it serves without them). */
  advisory?: readonly string[];
  /** Prometheus text exposition; absent, /metrics is left to `next` (served on another port). */
  metrics?(): Promise<{ contentType: string; body: string }>;
}

/** The readiness checks every process shares: Postgres reachable and migrated, Redis answering. */
export async function serviceReadiness(pool: pg.Pool, redis: Redis): Promise<Record<string, boolean>> {
  const [{ postgres, migrations }, redisOk] = await Promise.all([
    databaseReadiness(pool),
    redisAnswers(redis),
  ]);
  return { postgres, migrations, redis: redisOk };
}

/**
 * /healthz, /readyz and /metrics as one request handler. Other paths go to `next` (the gateway
 * and console mount it in front of their routes) or, without one, get 404.
 */
export function opsHandler(
  handlers: OpsHandlers,
): (req: http.IncomingMessage, res: http.ServerResponse, next?: () => void) => void {
  return (req, res, next) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, body: string, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    (async () => {
      if (path === '/healthz') return send((await handlers.health()) ? 200 : 503, '{"status":"ok"}');
      if (path === '/readyz') {
        const checks = await handlers.ready();
        const ok = Object.entries(checks).every(([name, up]) => up || handlers.advisory?.includes(name));
        return send(ok ? 200 : 503, JSON.stringify({ status: ok ? 'ready' : 'not ready', checks }));
      }
      if (path === '/metrics' && handlers.metrics) {
        const m = await handlers.metrics();
        return send(200, m.body, m.contentType);
      }
      if (next) return next();
      return send(404, '{"error":"not found"}');
    })().catch(() => send(500, '{"error":"internal"}'));
  };
}

/**
 * The ops endpoints on a port of their own, for processes that serve no other HTTP (worker, pusher).
 * Without `host` it listens as the gateway and the console do: on `::`, which takes IPv4 too, where
 * the machine has IPv6, else on 0.0.0.0 (Node picks). An IPv4-only listener failed every probe of
 * an IPv6-only Kubernetes cluster.
 */
export function startOpsServer(port: number, handlers: OpsHandlers, host?: string): Promise<http.Server> {
  const handle = opsHandler(handlers);
  const server = http.createServer((req, res) => handle(req, res));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    if (host === undefined) server.listen(port, () => resolve(server));
    else server.listen(port, host, () => resolve(server));
  });
}
