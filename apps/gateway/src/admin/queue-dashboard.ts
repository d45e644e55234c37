import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { Queue } from 'bullmq';
import { Router, type RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import type { QueueKeys } from '@switchyard/queue';
import { throttledErrors } from '@switchyard/runtime';
import type { Logger } from '@switchyard/telemetry';

export const QUEUE_DASHBOARD_PATH = '/admin/queues';

/**
 * The BullMQ dashboard (bull-board) for the dispatch and maintenance queues, behind the admin
 * credential. Browsers cannot send a bearer header, so HTTP Basic with the admin token as the
 * password is accepted as well (the user name is ignored); serve it over TLS only. Its actions are
 * refused when another site's page asks for them (sameOriginChanges).
 */
export interface QueueDashboard {
  router: Router;
  close(): Promise<void>;
}

export function queueDashboard({
  redis,
  keys,
  token,
  log,
}: {
  redis: Redis;
  keys: QueueKeys;
  token: string;
  /** Where the queues' errors go, throttled; without it they are only kept off the console. */
  log?: Logger;
}): QueueDashboard {
  // Without an `error` listener BullMQ prints each error (one per reconnect attempt while Redis is
  // away) with console.error: multi-line dumps in a JSON log. One throttle for both queues.
  const reportError = log && throttledErrors(log, 'queue dashboard: Redis error; retrying');
  const queues = [keys.taskQueue, keys.maintenanceQueue].map((name) => {
    const queue = new Queue(name, { connection: redis, prefix: keys.bullPrefix });
    queue.on('error', (err) => reportError?.(err));
    return queue;
  });
  const adapter = new ExpressAdapter();
  adapter.setBasePath(QUEUE_DASHBOARD_PATH);
  createBullBoard({ queues: queues.map((q) => new BullMQAdapter(q)), serverAdapter: adapter });
  const router = Router();
  router.use(
    QUEUE_DASHBOARD_PATH,
    dashboardAuth(token),
    sameOriginChanges(),
    adapter.getRouter() as RequestHandler,
  );
  return {
    router,
    async close(): Promise<void> {
      await Promise.all(queues.map((q) => q.close()));
    },
  };
}

function dashboardAuth(token: string): RequestHandler {
  const expected = digest(token);
  return (req, res, next) => {
    const header = req.headers.authorization ?? '';
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
    const basic = /^Basic\s+(\S+)\s*$/i.exec(header)?.[1];
    const password = basic
      ? Buffer.from(basic, 'base64').toString('utf8').split(':').slice(1).join(':')
      : undefined;
    const presented = bearer ?? password;
    if (presented !== undefined && timingSafeEqual(digest(presented), expected)) return next();
    res
      .set('WWW-Authenticate', 'Basic realm="switchyard-admin", charset="UTF-8"')
      .status(401)
      .type('text/plain')
      .send('admin credentials required');
  };
}

/** Methods that change nothing in bull-board (its actions are POST, PUT, PATCH and DELETE). */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A browser keeps the dashboard's Basic credentials and sends them with any request to it, a form
 * another site posts included (cross-site request forgery: adding, retrying, removing jobs,
 * emptying a queue). So a request that changes something must come from the dashboard's own page:
 * `Sec-Fetch-Site: same-origin`, or, from a browser that does not send that header, an `Origin`
 * whose host is the request's. A request with neither header is not a browser's (curl, scripts)
 * and cannot ride on a browser's cached credentials.
 */
function sameOriginChanges(): RequestHandler {
  return (req, res, next) => {
    if (SAFE_METHODS.has(req.method) || isSameOrigin(req.headers)) return next();
    res
      .status(403)
      .type('text/plain')
      .send('the queue dashboard refuses changes requested from another site');
  };
}

function isSameOrigin(headers: IncomingHttpHeaders): boolean {
  const site = headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin';
  const origin = headers.origin;
  if (origin === undefined) return true;
  if (typeof origin !== 'string' || !URL.canParse(origin)) return false;
  return new URL(origin).host === headers.host?.toLowerCase();
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
