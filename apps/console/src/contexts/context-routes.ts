import { Router } from 'express';
import type { ConsoleServices } from '../console-services.ts';
import { contextIdParam, knownTenant, queryString, tenantParam } from '../http/params.ts';
import { sendPage } from '../http/send-page.ts';
import { streamContext, parsePositions } from '../live/context-stream.ts';
import { endWithSession } from '../live/end-with-session.ts';
import { openSseStream } from '../live/sse-stream.ts';
import { loadTimeline, type TaskTimeline } from '../timeline/load-timeline.ts';
import { MAX_COLUMNS, renderContextPage } from './context-page.ts';

/** The threads view: the tasks of one context side by side, live. */
export function contextRoutes(services: ConsoleServices): Router {
  const router = Router();

  router.get('/contexts/:tenantId/:contextId', async (req, res) => {
    const tenantId = await knownTenant(services, tenantParam(req));
    const contextId = contextIdParam(req);
    const tasks = await services.reads.listContextTasks(tenantId, contextId, MAX_COLUMNS);
    const columns = (await Promise.all(tasks.map((t) => loadTimeline(services, tenantId, t.id)))).filter(
      (c): c is TaskTimeline => c !== null,
    );
    sendPage(req, res, {
      title: `Context ${contextId.slice(0, 12)}`,
      section: 'tasks',
      body: renderContextPage(tenantId, contextId, columns),
    });
  });

  router.get('/contexts/:tenantId/:contextId/stream', async (req, res) => {
    const tenantId = await knownTenant(services, tenantParam(req));
    const contextId = contextIdParam(req);
    const positions = parsePositions(queryString(req, 'v', 64 * MAX_COLUMNS));
    const stream = openSseStream(res, {
      heartbeatMs: services.config.CONSOLE_SSE_HEARTBEAT_MS,
      registry: services.streams,
    });
    endWithSession(req, stream, services);
    await streamContext(services, stream, { tenantId, contextId, positions });
  });

  return router;
}
