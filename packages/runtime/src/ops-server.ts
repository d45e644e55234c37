import http from 'node:http';

export interface OpsHandlers {
  /** Liveness: the process is running its loop. */
  health(): Promise<boolean> | boolean;
  /** Readiness: dependencies reachable, migrations current. Returns failing checks by name. */
  ready(): Promise<Record<string, boolean>>;
  /** Prometheus text exposition. */
  metrics(): Promise<{ contentType: string; body: string }>;
}

/**
 * /healthz, /readyz and /metrics for processes that serve no other HTTP (worker, pusher). The
 * gateway and console mount the same handlers on their own servers.
 */
export function startOpsServer(port: number, handlers: OpsHandlers, host = '0.0.0.0'): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, body: string, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    (async () => {
      if (path === '/healthz') return send((await handlers.health()) ? 200 : 503, '{"status":"ok"}');
      if (path === '/readyz') {
        const checks = await handlers.ready();
        const ok = Object.values(checks).every(Boolean);
        return send(ok ? 200 : 503, JSON.stringify({ status: ok ? 'ready' : 'not ready', checks }));
      }
      if (path === '/metrics') {
        const m = await handlers.metrics();
        return send(200, m.body, m.contentType);
      }
      return send(404, '{"error":"not found"}');
    })().catch(() => send(500, '{"error":"internal"}'));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}
