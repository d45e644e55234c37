import { Router } from 'express';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { migrationsCurrent } from '@switchyard/store';

export interface OpsDeps {
  pool: pg.Pool;
  redis: Redis;
  /** False once the gateway is draining: load balancers stop sending new requests. */
  accepting: () => boolean;
}

/** Liveness, readiness and metrics on the gateway's own port (ARCHITECTURE.md §10 probes). */
export function opsRoutes({ pool, redis, accepting }: OpsDeps): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const [postgres, migrations, redisOk] = await Promise.all([
      pool.query('SELECT 1').then(
        () => true,
        () => false,
      ),
      migrationsCurrent(pool).catch(() => false),
      redis.ping().then(
        () => true,
        () => false,
      ),
    ]);
    const checks = { postgres, migrations, redis: redisOk, accepting: accepting() };
    const ok = Object.values(checks).every(Boolean);
    res
      .set('Cache-Control', 'no-store')
      .status(ok ? 200 : 503)
      .json({ status: ok ? 'ready' : 'not ready', checks });
  });
  // Observability is a later issue: an empty, valid exposition keeps scrapers configured meanwhile.
  router.get('/metrics', (_req, res) => {
    res.type('text/plain; version=0.0.4').send('');
  });
  return router;
}
