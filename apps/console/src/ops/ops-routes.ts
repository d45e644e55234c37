import { Router } from 'express';
import { databaseReadiness } from '@switchyard/store';
import type { Metrics } from '@switchyard/telemetry';
import type { ConsoleServices } from '../console-services.ts';

/** Liveness, readiness and metrics on the console's own port, without auth (probes). */
export function opsRoutes(
  { pool, redis }: Pick<ConsoleServices, 'pool' | 'redis'>,
  accepting: () => boolean,
  metrics: Metrics,
): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const [{ postgres, migrations }, redisOk] = await Promise.all([
      databaseReadiness(pool),
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
  router.get('/metrics', async (_req, res) => {
    const { contentType, body } = await metrics.text();
    res.set('Cache-Control', 'no-store').type(contentType).send(body);
  });
  return router;
}
