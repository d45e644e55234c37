import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createTaskService } from '@switchyard/engine';
import { HintPublisher, RevocationChannel } from '@switchyard/events';
import type { QueueKeys } from '@switchyard/queue';
import { PostgresConsoleStore, PostgresOutboxStore, type SecretBox } from '@switchyard/store';
import { createMetrics, type Logger, type Metrics } from '@switchyard/telemetry';
import express, { type Express } from 'express';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { apiRoutes } from './api/api-routes.ts';
import { csrfGuard } from './auth/csrf-guard.ts';
import { loginRoutes, logoutRoutes } from './auth/login-routes.ts';
import { requireAuth } from './auth/request-auth.ts';
import { createSessionSigner } from './auth/session-token.ts';
import type { ConsoleConfig } from './config.ts';
import type { ConsoleServices } from './console-services.ts';
import { contextRoutes } from './contexts/context-routes.ts';
import { errorHandler } from './http/error-handler.ts';
import { notFound } from './http/http-error.ts';
import { securityHeaders } from './http/security-headers.ts';
import { createLinks } from './links.ts';
import { StreamRegistry } from './live/sse-stream.ts';
import { closeWithin, opsHandler, serviceReadiness } from '@switchyard/runtime';
import { queueRoutes } from './queues/queue-routes.ts';
import { tenantRoutes } from './tenants/tenant-routes.ts';
import { taskRoutes } from './tasks/task-routes.ts';

const PUBLIC_DIR = fileURLToPath(new URL('../public', import.meta.url));

export interface ConsoleDeps {
  pool: pg.Pool;
  /** BullMQ's connection: queue stats, dead-letter replays, cancel notices to agents. */
  redis: Redis;
  /**
   * The advisory commands (the cancel hint, push wake-ups, fair-order counters), with a time limit
   * and a breaker (the queue's guardCommands), so a hung Redis does not hold a cancel's answer;
   * `redis` when absent.
   */
  commands?: Redis;
  /** A dedicated pub/sub connection for live pages; the console owns it and closes it in stop(). */
  subscriber: Redis;
  keys: QueueKeys;
  secrets: SecretBox;
  log: Logger;
  config: ConsoleConfig;
  /** Prometheus metrics of this process; a private registry when absent. */
  metrics?: Metrics;
}

export interface Console {
  app: Express;
  services: ConsoleServices;
  /** Listens on `port` (0 = ephemeral); resolves to the bound port. */
  start(port?: number): Promise<number>;
  /** Ends live streams, stops accepting, gives requests the grace period, closes what it owns. */
  stop(): Promise<void>;
}

/** The ops web UI (ARCHITECTURE.md §2): server-rendered pages over the same store and queues. */
export function createConsole(deps: ConsoleDeps): Console {
  const { pool, redis, subscriber, keys, secrets, log, config } = deps;
  const commands = deps.commands ?? redis;
  if (config.adminTokenIsDefault)
    log.warn('SWITCHYARD_ADMIN_TOKEN is not set: using the development admin token');
  // The console never registers push configs; a closed URL policy documents that.
  const bundle = createTaskService({
    pool,
    redis,
    commands,
    subscriber,
    keys,
    secrets,
    log,
    urlPolicy: { allowCidrs: [], allowHttp: false },
  });
  const services: ConsoleServices = {
    config,
    log,
    pool,
    redis,
    keys,
    tasks: bundle.store,
    reads: new PostgresConsoleStore({ db: bundle.db }),
    outbox: new PostgresOutboxStore({ db: bundle.db, secrets }),
    admin: bundle.admin,
    service: bundle.service,
    queue: bundle.queue,
    hub: bundle.hub,
    hints: new HintPublisher({ redis: commands, keys }),
    signer: createSessionSigner(config.SWITCHYARD_ADMIN_TOKEN, config.CONSOLE_SESSION_TTL_MS),
    links: createLinks({
      traceUiUrl: config.TRACE_UI_URL,
      traceService: config.TRACE_SERVICE_NAME,
      gatewayUrl: config.GATEWAY_PUBLIC_URL,
    }),
    streams: new StreamRegistry(),
    // A tenant disabled here must be refused on every gateway before the answer, as one disabled
    // through the admin API is: the console announces it on the gateways' channel and collects
    // their acks. It caches no credentials, so there is nothing for it to apply or forget.
    revocations: new RevocationChannel({
      // The queue's connection, as the gateway's: with Redis away a PUBLISH waits for it within
      // the acks' time limit rather than failing at once as the guarded command connection does.
      redis,
      subscriber,
      keys,
      apply: () => undefined,
      resync: () => undefined,
      log,
    }),
  };
  let accepting = true;

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Which hops' X-Forwarded-* to believe: the sign-in log's address and the same-origin check.
  if (config.TRUST_PROXY !== undefined) app.set('trust proxy', config.TRUST_PROXY);
  app.use(securityHeaders());
  const metrics = deps.metrics ?? createMetrics({ service: 'console', defaultMetrics: false });
  // Probes and metrics without auth (the console's own port). Redis is reported, not required:
  // the task pages read Postgres, and a Redis outage is exactly when operators need them.
  app.use(
    opsHandler({
      health: () => true,
      ready: async () => ({
        ...(await serviceReadiness(services.pool, services.redis)),
        accepting,
      }),
      advisory: ['redis'],
      metrics: () => metrics.text(),
    }),
  );
  app.get('/favicon.ico', (_req, res) => {
    res.status(204).end();
  });
  app.use('/assets', express.static(PUBLIC_DIR, { index: false, maxAge: '1h', fallthrough: false }));
  app.use(express.urlencoded({ extended: false, limit: '16kb' }));
  app.use(express.json({ limit: '64kb' }));
  app.use(loginRoutes(services));
  app.use(requireAuth(services.signer, (sid) => services.reads.isSessionEnded(sid)));
  app.use(csrfGuard(services.signer));
  app.use(logoutRoutes(services));
  app.use('/api', apiRoutes(services));
  app.use(taskRoutes(services));
  app.use(contextRoutes(services));
  app.use(queueRoutes(services));
  app.use(tenantRoutes(services));
  app.use(() => {
    throw notFound();
  });
  app.use(errorHandler(log));

  let server: Server | undefined;
  return {
    app,
    services,
    async start(port = config.CONSOLE_PORT) {
      const listening = app.listen(port);
      server = listening;
      await new Promise<void>((resolve, reject) => {
        listening.once('listening', resolve);
        listening.once('error', reject);
      });
      const bound = (listening.address() as AddressInfo).port;
      // Not awaited: with Redis away the SUBSCRIBE waits for it, and the pages from Postgres must
      // not. Until it is subscribed, a disable waits out the acks' time limit (2 s) and says that
      // not every gateway confirmed.
      services.revocations
        .start()
        .catch((err: unknown) => log.warn({ err }, 'could not subscribe to the revocation channel'));
      log.info({ port: bound }, 'console listening');
      return bound;
    },
    async stop() {
      accepting = false;
      services.streams.closeAll();
      if (server) {
        const s = server;
        const closed = new Promise<void>((resolve) => s.close(() => resolve()));
        s.closeIdleConnections();
        const timer = setTimeout(() => s.closeAllConnections(), config.SHUTDOWN_GRACE_MS);
        await closed;
        clearTimeout(timer);
      }
      await closeWithin('revocation channel', () => services.revocations.stop(), log);
      // Its queue and hub need Redis, and with Redis away a close would wait for it.
      await closeWithin('task service', () => bundle.close(), log);
    },
  };
}
