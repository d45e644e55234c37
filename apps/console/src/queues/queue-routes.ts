import { Router } from 'express';
import { csrfOf } from '../auth/request-auth.ts';
import type { ConsoleServices } from '../console-services.ts';
import { badRequest, notFound } from '../http/http-error.ts';
import { bodyString, isSlug, knownTenant, queryString } from '../http/params.ts';
import { safeLocalPath, sendPage, withParam } from '../http/send-page.ts';
import { paths } from '../links.ts';
import { DEAD_LETTER_CURSOR_MAX, deliveryKeyOf, listDeadLetters } from './dead-letter-requests.ts';
import { loadQueueOverview, type DeadLetterView } from './queue-overview.ts';
import { renderQueuesPage } from './queues-page.ts';
import { replayAllDeadLetters, replayDeadLetter } from './replay-dead-letters.ts';

/** Queue depth and age, the push outbox, dead letters per tenant with replay. */
export function queueRoutes(services: ConsoleServices): Router {
  const router = Router();

  router.get('/queues', async (req, res) => {
    const overview = await loadQueueOverview(services);
    const requested = queryString(req, 'tenant', 63);
    // The overview lists every tenant: one it does not is unknown, not one without dead letters.
    if (requested !== undefined && !overview.deadLetters.some((t) => t.tenantId === requested))
      throw notFound('tenant');
    const tenantId = requested ?? overview.deadLetters.find((t) => t.deadLetters.count > 0)?.tenantId;
    const cursor = queryString(req, 'cursor', DEAD_LETTER_CURSOR_MAX);
    let deadLetters: DeadLetterView | null = null;
    if (tenantId !== undefined) {
      const page = await listDeadLetters(services, tenantId, cursor);
      deadLetters = { tenantId, page, ...(cursor ? { cursor } : {}) };
    }
    const replayed = queryString(req, 'replayed', 9);
    sendPage(req, res, {
      title: 'Queues',
      section: 'queues',
      body: renderQueuesPage(overview, deadLetters, {
        csrf: csrfOf(req),
        notice: queryString(req, 'notice', 40),
        replayed: replayed !== undefined && /^\d+$/.test(replayed) ? Number(replayed) : undefined,
      }),
    });
  });

  router.post('/dead-letters/replay', async (req, res) => {
    const key = deliveryKeyOf(req.body);
    const replayed = await replayDeadLetter(services, key);
    const back = safeLocalPath(
      (req.body as Record<string, unknown> | undefined)?.back,
      paths.task(key.tenantId, key.taskId),
    );
    res.redirect(303, withParam(back, 'notice', replayed ? 'replayed' : 'not-dead'));
  });

  router.post('/dead-letters/replay-all', async (req, res) => {
    const tenantId = bodyString(req.body, 'tenant', 63);
    if (!isSlug(tenantId)) throw badRequest('tenant is not a tenant id');
    await knownTenant(services, tenantId);
    const replayed = await replayAllDeadLetters(services, tenantId);
    res.redirect(303, paths.queues({ tenant: tenantId, replayed: String(replayed) }));
  });

  return router;
}
