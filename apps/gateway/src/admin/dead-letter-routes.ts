import { Router } from 'express';
import { pathParam } from '../http/path-param.ts';
import { z } from '@switchyard/runtime';
import { adminInvalid, adminNotFound } from './admin-error.ts';
import type { AdminDeps } from './admin-deps.ts';
import { parseAdmin } from './admin-schemas.ts';

const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.string().min(1).optional(),
});

const deliveryKey = z.object({
  taskId: z.uuid(),
  configId: z.string().min(1).max(256),
  seq: z.coerce.number().int().min(1),
});

/**
 * Push deliveries that exhausted their retries (ARCHITECTURE.md §7). Replaying puts them back to
 * pending with a fresh attempt budget and wakes the pushers.
 */
export function deadLetterRoutes({ outbox, hints }: AdminDeps): Router {
  const router = Router();
  router.get('/tenants/:tenantId/dead-letters', async (req, res) => {
    const query = parseAdmin(
      listQuery,
      Object.fromEntries(new URLSearchParams(req.originalUrl.split('?')[1] ?? '')),
    );
    try {
      const page = await outbox.listDeadLetters({ tenantId: pathParam(req, 'tenantId'), ...query });
      res.json({ deadLetters: page.deliveries, nextCursor: page.nextCursor });
    } catch (err) {
      if (err instanceof RangeError)
        throw adminInvalid('cursor is not one this server issued', [
          { field: 'cursor', description: 'invalid' },
        ]);
      throw err;
    }
  });
  router.post('/tenants/:tenantId/dead-letters\\:replay', async (req, res) => {
    const replayed = await outbox.replayAllDeadLetters(pathParam(req, 'tenantId'));
    if (replayed > 0) await hints.publishPushDue();
    res.json({ replayed });
  });
  router.post('/tenants/:tenantId/dead-letters/:taskId/:configId/:seq\\:replay', async (req, res) => {
    const key = parseAdmin(deliveryKey, {
      taskId: pathParam(req, 'taskId'),
      configId: pathParam(req, 'configId'),
      seq: pathParam(req, 'seq'),
    });
    if (!(await outbox.replayDeadLetter({ tenantId: pathParam(req, 'tenantId'), ...key })))
      throw adminNotFound('dead letter');
    await hints.publishPushDue();
    res.json({ replayed: 1 });
  });
  return router;
}
