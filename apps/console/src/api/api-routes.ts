import { Router } from 'express';
import { redactAgent } from '@switchyard/store';
import type { ConsoleServices } from '../console-services.ts';
import { badRequest, conflict, notFound } from '../http/http-error.ts';
import { isUuid, knownTenant, queryString, taskIdParam, tenantParam } from '../http/params.ts';
import { DEAD_LETTER_CURSOR_MAX, deliveryKeyOf, listDeadLetters } from '../queues/dead-letter-requests.ts';
import { loadQueueOverview } from '../queues/queue-overview.ts';
import { replayAllDeadLetters, replayDeadLetter } from '../queues/replay-dead-letters.ts';
import { cancelTaskAsAdmin } from '../tasks/cancel-task.ts';
import { parseTaskListQuery } from '../tasks/task-filter-query.ts';
import { runCapOfJson } from '../tenants/run-cap-text.ts';
import { loadTenantOverview } from '../tenants/tenant-overview.ts';
import { setRunCap, setTenantDisabled } from '../tenants/tenant-routes.ts';
import { loadTimeline } from '../timeline/load-timeline.ts';

/**
 * The same reads and actions as the pages, as JSON under /api (scripts, tests): bearer token or
 * session cookie (+ CSRF token on POST). Shapes mirror the store's records.
 */
export function apiRoutes(services: ConsoleServices): Router {
  const { admin, reads } = services;
  const router = Router();

  router.get('/tenants', async (_req, res) => {
    res.json({ tenants: await loadTenantOverview(services) });
  });

  // As the admin API's PATCH /admin/v1/tenants/{id}: {"maxRunning": N | 0 (no cap) | null (default)}.
  router.patch('/tenants/:tenantId', async (req, res) => {
    const tenantId = tenantParam(req);
    await setRunCap(services, tenantId, runCapOfJson(req.body));
    const [tenant] = await loadTenantOverview(services, tenantId);
    if (!tenant) throw notFound('tenant');
    res.json(tenant);
  });

  for (const [action, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const) {
    router.post(`/tenants/:tenantId/${action}`, async (req, res) => {
      const tenantId = tenantParam(req);
      const { confirmed } = await setTenantDisabled(services, tenantId, disabled);
      const [tenant] = await loadTenantOverview(services, tenantId);
      if (!tenant) throw notFound('tenant');
      // confirmed: every gateway dropped its cached keys and status before this answer.
      res.json({ ...tenant, confirmed });
    });
  }

  router.get('/tenants/:tenantId/agents', async (req, res) => {
    const tenantId = await knownTenant(services, tenantParam(req));
    // Sealed upstream credentials are shown masked, as the gateway's admin API shows them.
    res.json({ agents: (await admin.listAgents(tenantId)).map(redactAgent) });
  });

  router.get('/tasks', async (req, res) => {
    const query = parseTaskListQuery(req);
    const tenantId = query.filter.tenantId;
    if (tenantId === undefined) throw badRequest('tenant is required');
    await knownTenant(services, tenantId);
    const filter = { ...query.filter, tenantId };
    const [page, count] = await Promise.all([
      reads.listTasks({ ...filter, limit: query.limit, ...(query.cursor ? { cursor: query.cursor } : {}) }),
      reads.countTasks(filter),
    ]);
    res.json({ tasks: page.tasks, nextCursor: page.nextCursor, count });
  });

  router.get('/tasks/:tenantId/:taskId', async (req, res) => {
    const timeline = await loadTimeline(services, tenantParam(req), taskIdParam(req));
    if (!timeline) throw notFound('task');
    const { latest, counts } = timeline.deliveries;
    // The latest deliveries, as the page shows them; counts null: more than TASK_DELIVERY_COUNT_CAP.
    res.json({
      task: timeline.record,
      timeline: timeline.entries,
      // Only the task's beginning: it has more events, messages or chunks than one read takes.
      truncated: timeline.truncated,
      deliveries: latest,
      deliveryCounts: counts,
    });
  });

  router.post('/tasks/:tenantId/:taskId/cancel', async (req, res) => {
    const outcome = await cancelTaskAsAdmin(services, tenantParam(req), taskIdParam(req));
    if (outcome === 'not-found') throw notFound('task');
    if (outcome === 'not-cancelable') throw conflict('the task is already in a terminal state');
    res.json({ outcome });
  });

  router.get('/find', async (req, res) => {
    const id = queryString(req, 'id', 64);
    if (id === undefined || !isUuid(id)) throw badRequest('id must be a task id (uuid)');
    res.json({ locations: await reads.findTaskTenants(id) });
  });

  router.get('/queues', async (_req, res) => {
    res.json(await loadQueueOverview(services));
  });

  router.get('/tenants/:tenantId/dead-letters', async (req, res) => {
    const tenantId = await knownTenant(services, tenantParam(req));
    const page = await listDeadLetters(
      services,
      tenantId,
      queryString(req, 'cursor', DEAD_LETTER_CURSOR_MAX),
    );
    res.json({ deadLetters: page.deliveries, nextCursor: page.nextCursor });
  });

  router.post('/dead-letters/replay', async (req, res) => {
    res.json({ replayed: await replayDeadLetter(services, deliveryKeyOf(req.body)) });
  });

  router.post('/tenants/:tenantId/dead-letters/replay-all', async (req, res) => {
    const tenantId = await knownTenant(services, tenantParam(req));
    res.json({ replayed: await replayAllDeadLetters(services, tenantId) });
  });

  return router;
}
