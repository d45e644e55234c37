import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { CachedAgentDirectory, engineConfig, TaskService, TaskWriter, type EngineConfig } from '@switchyard/engine';
import { HintPublisher, SubscriptionHub } from '@switchyard/events';
import { TaskQueue, type QueueKeys } from '@switchyard/queue';
import {
  createDb,
  PostgresAdminStore,
  PostgresOutboxStore,
  PostgresPushConfigStore,
  PostgresTaskStore,
  type SecretBox,
} from '@switchyard/store';
import type { Logger } from '@switchyard/telemetry';
import { agentRouter } from './a2a/agent-router.ts';
import { A2AOperations } from './a2a/operations.ts';
import { adminRouter } from './admin/admin-router.ts';
import { ApiKeyCache } from './auth/api-key-cache.ts';
import { authChallenges, Authenticator } from './auth/authenticator.ts';
import { createJwtVerifier } from './auth/jwt-verifier.ts';
import { subscribeRevocations } from './auth/revocation-channel.ts';
import { CardBuilder } from './cards/card-builder.ts';
import { cardRoutes } from './cards/card-routes.ts';
import type { GatewayConfig } from './config.ts';
import { notFound } from './http/edge-error.ts';
import { createErrorHandler } from './http/error-handler.ts';
import { requestLog } from './http/request-log.ts';
import { opsRoutes } from './ops/ops-routes.ts';
import { RequestLimiter } from './rate-limit/request-limiter.ts';
import { StreamRegistry } from './sse/stream-registry.ts';

export interface GatewayDeps {
  pool: pg.Pool;
  /** Commands: queue, hints, rate limits, revocation publishes. */
  redis: Redis;
  /** A dedicated pub/sub connection; the gateway owns it from here and closes it in stop(). */
  subscriber: Redis;
  keys: QueueKeys;
  secrets: SecretBox;
  log: Logger;
  config: GatewayConfig;
  /** Engine settings beyond what the config sets (tests shorten poll intervals). */
  engine?: Partial<EngineConfig>;
}

export interface Gateway {
  app: Express;
  /** The gateway's admin store (tests and tooling). */
  admin: PostgresAdminStore;
  streams: StreamRegistry;
  /** Listens on `port` (0 = ephemeral) once revocations are subscribed; resolves to the bound port. */
  start(port?: number): Promise<number>;
  /**
   * Drains (STYLE.md rule 10): stop accepting, answer blocking waits with the task as it stands,
   * end SSE streams with a final comment, give in-flight requests the grace period, then cut what
   * is left and close the gateway's own clients.
   */
  stop(): Promise<void>;
}

/** The stateless HTTP front door (ARCHITECTURE.md §2): build with one options object, then start(). */
export function createGateway(deps: GatewayDeps): Gateway {
  const { pool, redis, subscriber, keys, secrets, log, config } = deps;
  if (config.adminTokenIsDefault) log.warn('SWITCHYARD_ADMIN_TOKEN is not set: using the development admin token');
  const db = createDb(pool);
  const admin = new PostgresAdminStore({ db, secrets });
  const store = new PostgresTaskStore({ db, secrets });
  const hints = new HintPublisher({ redis, keys });
  const dispatcher = new TaskQueue({ connection: redis, keys });
  const hub = new SubscriptionHub({ subscriber, keys });
  // Typed by hand: the engine's declaration of `load` refers to a private member and loses its type.
  const agents = new CachedAgentDirectory({ load: (tenantId: string, agentId: string) => admin.getAgent(tenantId, agentId) });
  const service = new TaskService({
    store,
    pushConfigs: new PostgresPushConfigStore({ db, secrets }),
    writer: new TaskWriter({ store, hints, log }),
    dispatcher,
    hub,
    agents,
    config: engineConfig({
      blockingTimeoutMs: config.BLOCKING_TIMEOUT_MS,
      closeStreamOnInputRequired: config.STREAM_CLOSE_ON_INPUT_REQUIRED,
      closeStreamOnAuthRequired: config.STREAM_CLOSE_ON_AUTH_REQUIRED,
      ...deps.engine,
    }),
    urlPolicy: { allowCidrs: config.WEBHOOK_ALLOW_CIDRS, allowHttp: true },
    log,
  });
  const apiKeys = new ApiKeyCache({ lookup: (key) => admin.authenticateApiKey(key) });
  const cards = new CardBuilder({ publicUrl: config.PUBLIC_URL, jwtEnabled: config.jwtEnabled });
  const streams = new StreamRegistry();
  const shutdown = new AbortController();
  const resolveAgent = (tenantId: string, agentId: string) => agents.getAgent(tenantId, agentId);
  let accepting = true;

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestLog(log));
  app.use(opsRoutes({ pool, redis, accepting: () => accepting }));
  app.use(cardRoutes({ cards, resolveAgent, defaultAgent: config.SWITCHYARD_DEFAULT_AGENT }));
  app.use(
    '/admin/v1',
    adminRouter(
      { admin, outbox: new PostgresOutboxStore({ db, secrets }), redis, keys, hints, bodyLimitBytes: config.BODY_LIMIT_BYTES },
      { token: config.SWITCHYARD_ADMIN_TOKEN, publicUrl: config.PUBLIC_URL },
    ),
  );
  app.use(
    '/agents/:tenantId/:agentId',
    agentRouter(
      {
        authenticator: new Authenticator({
          apiKeys,
          jwt: config.JWT_JWKS_URL
            ? createJwtVerifier({
                jwksUrl: config.JWT_JWKS_URL,
                issuer: config.JWT_ISSUER,
                audience: config.JWT_AUDIENCE,
                tenantClaim: config.JWT_TENANT_CLAIM,
                roleClaim: config.JWT_ROLE_CLAIM,
              })
            : undefined,
        }),
        limiter: new RequestLimiter({
          redis,
          keys,
          tenantPerSec: config.RATE_LIMIT_TENANT_PER_SEC,
          keyPerSec: config.RATE_LIMIT_KEY_PER_SEC,
          log,
        }),
        resolveAgent,
      },
      {
        operations: new A2AOperations({ service, cards }),
        cards,
        streams,
        shutdown: shutdown.signal,
        bodyLimitBytes: config.BODY_LIMIT_BYTES,
        mapping: config.HTTP_ERROR_MAPPING,
        heartbeatMs: config.SSE_HEARTBEAT_MS,
        maxBufferBytes: config.SSE_MAX_BUFFER_BYTES,
      },
    ),
  );
  app.use(() => {
    throw notFound();
  });
  app.use(createErrorHandler({ mapping: config.HTTP_ERROR_MAPPING, challenges: authChallenges(config.jwtEnabled) }));

  let server: Server | undefined;
  let unsubscribe: (() => Promise<void>) | undefined;
  let stopping: Promise<void> | undefined;

  const drain = async (): Promise<void> => {
    accepting = false;
    shutdown.abort();
    streams.closeAll('server shutting down');
    if (server) {
      const listening = server;
      const closed = new Promise<void>((resolve) => listening.close(() => resolve()));
      listening.closeIdleConnections();
      const timer = setTimeout(() => listening.closeAllConnections(), config.SHUTDOWN_GRACE_MS);
      await closed;
      clearTimeout(timer);
    }
    await unsubscribe?.();
    await dispatcher.close();
    await hub.close();
  };

  return {
    app,
    admin,
    streams,
    async start(port: number = config.PORT): Promise<number> {
      unsubscribe = await subscribeRevocations(subscriber, keys, {
        onRevocation: (r) => apiKeys.revoke(r.kind === 'api-key' ? { keyId: r.keyId } : { tenantId: r.tenantId }),
        onResync: () => apiKeys.clear(),
      });
      const listening = app.listen(port);
      server = listening;
      await new Promise<void>((resolve, reject) => {
        listening.once('listening', resolve);
        listening.once('error', reject);
      });
      const bound = (listening.address() as AddressInfo).port;
      log.info({ port: bound, publicUrl: config.PUBLIC_URL }, 'gateway listening');
      return bound;
    },
    stop(): Promise<void> {
      stopping ??= drain();
      return stopping;
    },
  };
}
