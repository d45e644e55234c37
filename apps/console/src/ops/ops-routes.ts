import { Router } from 'express';
import { migrationsCurrent } from '@switchyard/store';
import type { ConsoleServices } from '../console-services.ts';

/** Liveness, readiness and metrics on the console's own port, without auth (probes). */
export function opsRoutes(
  { pool, redis, reads }: Pick<ConsoleServices, 'pool' | 'redis' | 'reads'>,
  accepting: () => boolean,
): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const [postgres, migrations, redisOk] = await Promise.all([
      reads.ping(),
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
  // Observability is its own issue: an empty, valid exposition keeps scrapers configured meanwhile.
  router.get('/metrics', (_req, res) => {
    res.type('text/plain; version=0.0.4').send('');
  });
  return router;
}
