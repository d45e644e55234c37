import type { TenantRecord } from '@switchyard/store';
import { Router, type Request } from 'express';
import { csrfOf } from '../auth/request-auth.ts';
import type { ConsoleServices } from '../console-services.ts';
import { html } from '../html/html.ts';
import { badRequest, notFound } from '../http/http-error.ts';
import { isUuid, queryInt, queryString, taskIdParam, tenantParam } from '../http/params.ts';
import { sendPage, withParam } from '../http/send-page.ts';
import { paths } from '../links.ts';
import { endWithSession } from '../live/end-with-session.ts';
import { openSseStream } from '../live/sse-stream.ts';
import { streamTask } from '../live/task-stream.ts';
import { loadTimeline } from '../timeline/load-timeline.ts';
import { renderTaskPage } from '../timeline/task-page.ts';
import { cancelTaskAsAdmin } from './cancel-task.ts';
import { parseTaskListQuery } from './task-filter-query.ts';
import { renderTasksPage } from './tasks-page.ts';

/** The demo tenant when it exists (script/server seeds it), else the first by id. */
export function defaultTenant(tenants: readonly TenantRecord[]): string | undefined {
  return (tenants.find((t) => t.id === 'demo') ?? tenants[0])?.id;
}

export function taskRoutes(services: ConsoleServices): Router {
  const { admin, reads, links, config } = services;
  const router = Router();

  router.get('/', (_req, res) => res.redirect(303, '/tasks'));

  router.get('/tasks', async (req, res) => {
    const query = parseTaskListQuery(req);
    const tenants = await admin.listTenants();
    const tenantId = query.filter.tenantId ?? defaultTenant(tenants);
    if (tenantId === undefined) {
      return sendPage(req, res, {
        title: 'Tasks',
        section: 'tasks',
        body: html`<div class="page-head"><h1>Tasks</h1></div><p class="empty">No tenants yet. Create one with the admin API or <code>switchyard admin</code>.</p>`,
      });
    }
    if (!tenants.some((t) => t.id === tenantId)) throw notFound('tenant');
    const filter = { ...query.filter, tenantId };
    const [agents, page, count] = await Promise.all([
      admin.listAgents(tenantId),
      reads.listTasks({ ...filter, limit: query.limit, ...(query.cursor ? { cursor: query.cursor } : {}) }),
      reads.countTasks(filter),
    ]);
    sendPage(req, res, {
      title: `Tasks of ${tenantId}`,
      section: 'tasks',
      body: renderTasksPage({ tenants, agents, query: { ...query, filter }, page, count }),
    });
  });

  router.get('/tasks/:tenantId/:taskId', async (req, res) => {
    const tenantId = tenantParam(req);
    const timeline = await loadTimeline(services, tenantId, taskIdParam(req));
    if (!timeline) throw notFound('task');
    sendPage(req, res, {
      title: `Task ${timeline.record.id.slice(0, 8)}`,
      section: 'tasks',
      body: renderTaskPage(timeline, { csrf: csrfOf(req), links, notice: queryString(req, 'notice', 40) }),
    });
  });

  router.get('/tasks/:tenantId/:taskId/stream', async (req, res) => {
    const tenantId = tenantParam(req);
    const taskId = taskIdParam(req);
    const afterSeq = resumeSeq(req) ?? queryInt(req, 'after', 0, 0, 2 ** 31 - 1);
    const afterPosition = queryInt(req, 'msg', -1, -1, 2 ** 31 - 1);
    // Looked up before the stream opens: an unknown task is a 404, not a stream that ends.
    const record = await services.tasks.getTaskRecord(tenantId, taskId);
    if (!record) throw notFound('task');
    const stream = openSseStream(res, {
      heartbeatMs: config.CONSOLE_SSE_HEARTBEAT_MS,
      registry: services.streams,
    });
    endWithSession(req, stream, services);
    await streamTask(services, stream, {
      tenantId,
      taskId,
      afterSeq,
      afterPosition,
      csrf: csrfOf(req),
      record,
    });
  });

  router.post('/tasks/:tenantId/:taskId/cancel', async (req, res) => {
    const tenantId = tenantParam(req);
    const taskId = taskIdParam(req);
    const outcome = await cancelTaskAsAdmin(services, tenantId, taskId);
    if (outcome === 'not-found') throw notFound('task');
    res.redirect(303, withParam(paths.task(tenantId, taskId), 'notice', outcome));
  });

  // "Go to task": one primary-key probe per tenant, so an id found in a log or a trace is enough.
  router.get('/find', async (req, res) => {
    const id = queryString(req, 'id', 64);
    if (id === undefined || !isUuid(id)) {
      throw badRequest('Enter a task id (a uuid). Search context ids with the filters on the Tasks page.');
    }
    const found = await reads.findTaskTenants(id);
    const only = found[0];
    if (found.length === 1 && only) return res.redirect(303, paths.task(only.tenantId, only.taskId));
    if (found.length === 0) throw notFound(`task ${id}`);
    sendPage(req, res, {
      title: 'Task found in several tenants',
      section: 'tasks',
      body: html`<div class="page-head"><h1>Task <code>${id}</code></h1></div>
<p>This id exists in several tenants:</p>
<ul>${found.map((f) => html`<li><a href="${paths.task(f.tenantId, f.taskId)}">${f.tenantId}</a> — ${f.agentId}</li>`)}</ul>`,
    });
  });

  return router;
}

/** EventSource sends the last `id:` it saw when it reconnects. */
function resumeSeq(req: Request): number | undefined {
  const header = req.get('last-event-id');
  return header !== undefined && /^\d{1,9}$/.test(header) ? Number(header) : undefined;
}
