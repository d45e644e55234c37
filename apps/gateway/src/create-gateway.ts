import { setMaxListeners } from 'node:events';
import { createServer, type Server, type ServerOptions } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { PostgresAdminStore } from '@switchyard/store';
import { TenantStatus } from '@switchyard/engine';
import { ApiKeyCache } from './auth/api-key-cache.ts';
import { apiKeyCredentialId } from './auth/authenticator.ts';
import { recheckOpenStreams } from './auth/recheck-streams.ts';
import { RevocationChannel } from '@switchyard/events';
import { CardBuilder } from './cards/card-builder.ts';
import { buildApp } from './compose/build-app.ts';
import { buildServices } from './compose/build-services.ts';
import type { GatewayDeps } from './compose/gateway-deps.ts';
import { StreamRegistry } from './sse/stream-registry.ts';
import { queueDashboard } from './admin/queue-dashboard.ts';
import { createMetrics } from '@switchyard/telemetry';
import { redisAnswers } from '@switchyard/queue';
import {
  closeWithin,
  migrationsProbe,
  postgresProbe,
  startOpsServer,
  type OpsHandlers,
} from '@switchyard/runtime';

export type { GatewayDeps } from './compose/gateway-deps.ts';

export interface Gateway {
  app: Express;
  /** The gateway's admin store (tests and tooling). */
  admin: PostgresAdminStore;
  /** Open SSE streams (drained by stop()). */
  streams: StreamRegistry;
  /**
   * Listens on `port` (0 = ephemeral) at once, and resolves to the bound port once the revocation
   * channel is subscribed. Until then /readyz says not accepting: a pod started while Redis is away
   * answers its probes (instead of failing its startup probe into CrashLoopBackOff) but gets no
   * traffic, since a revocation announced meanwhile would not reach it.
   */
  start(port?: number): Promise<number>;
  /** The bound port of the ops listener (GATEWAY_OPS_PORT) once started; undefined without one. */
  opsPort(): number | undefined;
  /**
   * Drains (STYLE.md rule 10): stop accepting, answer blocking waits with the task as it stands,
   * end SSE streams with a final comment, give in-flight requests the grace period, then cut what
   * is left and close the gateway's own clients. Idempotent.
   */
  stop(): Promise<void>;
}

/** The stateless HTTP front door (ARCHITECTURE.md §2): build with one options object, then start(). */
export function createGateway(deps: GatewayDeps): Gateway {
  const { subscriber, keys, log, config } = deps;
  if (config.adminTokenIsDefault)
    log.warn('SWITCHYARD_ADMIN_TOKEN is not set: using the development admin token');
  const metrics = deps.metrics ?? createMetrics({ service: 'gateway', defaultMetrics: false });
  const services = buildServices({ ...deps, metrics });
  const dashboard = queueDashboard({ redis: deps.redis, keys, token: config.SWITCHYARD_ADMIN_TOKEN, log });
  const apiKeys = new ApiKeyCache({ lookup: (key) => services.admin.authenticateApiKey(key) });
  const streams = new StreamRegistry(metrics.sse, {
    perGateway: config.SSE_MAX_STREAMS,
    perTenant: config.SSE_MAX_STREAMS_PER_TENANT,
    perCredential: config.SSE_MAX_STREAMS_PER_CREDENTIAL,
  });
  const tenants = new TenantStatus({ load: (tenantId) => services.admin.getTenant(tenantId) });
  function forgetCredentials(): void {
    apiKeys.clear();
    tenants.forget();
    // Announcements missed while away may have revoked the credentials of open streams.
    recheckOpenStreams({
      streams,
      liveApiKeyIds: (keyIds) => services.admin.liveApiKeyIds(keyIds),
      isTenantActive: (tenantId) => tenants.isActive(tenantId),
      lateCheckFailed: (err) =>
        log.warn({ err }, 'could not check the credential of a stream opened across a resync; it stays open'),
    }).then(
      (closed) => closed > 0 && log.info({ closed }, 'ended streams whose credential was revoked meanwhile'),
      (err: unknown) => log.warn({ err }, 'could not re-check the credentials of open streams'),
    );
  }
  const revocations = new RevocationChannel({
    redis: deps.redis,
    subscriber,
    keys,
    log,
    apply: (r) => {
      apiKeys.revoke(r.kind === 'api-key' ? { keyId: r.keyId } : { tenantId: r.tenantId });
      if (r.kind === 'tenant') tenants.forget(r.tenantId);
      // Streams outlive their requests: the revoked credential's end now, not when they would.
      if (r.kind === 'api-key')
        streams.closeOwnedBy({ credentialId: apiKeyCredentialId(r.keyId) }, 'credential revoked');
      else if (r.disabled !== false) streams.closeOwnedBy({ tenantId: r.tenantId }, 'tenant disabled');
    },
    resync: forgetCredentials,
  });
  const shutdown = new AbortController();
  // Every open request listens on it (client-signal.ts): not a leak, so no listener-count warning.
  setMaxListeners(0, shutdown.signal);
  let accepting = true;
  let revocationsSubscribed = false;
  const postgresUp = postgresProbe(deps.pool);
  const schemaCurrent = migrationsProbe(deps.pool);
  // False `accepting` (draining, or revocations not subscribed yet) takes this replica out of the
  // load balancer. Postgres and Redis are reported but not required: the gateway answers a
  // Postgres outage itself (503 + Retry-After, which clients retry), and without Redis it still
  // takes sends (the reaper dispatches once Redis is back) while streams poll the log. Requiring
  // either would take every replica out at once, and clients would get the ingress's HTML 503.
  // The migrations check stays required; once current it is remembered, so a probe queries
  // nothing then, and Postgres's own check is time-boxed, so a busy pool cannot time the probe out.
  const probes = {
    health: () => true,
    ready: async () => {
      const [postgres, migrations, redis] = await Promise.all([
        postgresUp(),
        schemaCurrent(),
        redisAnswers(deps.redis),
      ]);
      return { postgres, migrations, redis, accepting: accepting && revocationsSubscribed };
    },
    advisory: ['postgres', 'redis'],
  };
  const ops: OpsHandlers = { ...probes, metrics: () => metrics.text() };
  const opsPort = config.GATEWAY_OPS_PORT;
  const app = buildApp(deps, {
    services,
    metrics,
    dashboard,
    apiKeys,
    tenants,
    revocations,
    cards: new CardBuilder({ publicUrl: config.PUBLIC_URL, jwtEnabled: config.jwtEnabled }),
    streams,
    shutdown: shutdown.signal,
    ops: opsPort === undefined ? ops : probes,
  });
  let server: Server | undefined;
  let opsServer: Server | undefined;
  // undefined before start, without GATEWAY_OPS_PORT, and once the drain closed the listener.
  const boundOpsPort = () => (opsServer?.address() as AddressInfo | null | undefined)?.port;
  let stopping: Promise<void> | undefined;

  const drain = async (): Promise<void> => {
    accepting = false;
    shutdown.abort();
    streams.closeAll('server shutting down');
    if (server) await closeServer(server, config.SHUTDOWN_GRACE_MS);
    // Each of these needs Redis, and with Redis away would wait for it: each gets a short while.
    // The revocation channel first: it unsubscribes on the connection the hub disconnects.
    await closeWithin('revocation channel', () => revocations.stop(), log);
    await Promise.all([
      closeWithin('dispatch queue', () => services.dispatcher.close(), log),
      closeWithin('subscription hub', () => services.hub.close(), log),
      closeWithin('queue dashboard', () => dashboard.close(), log),
    ]);
    // Last, so /metrics can be scraped while the drain runs.
    if (opsServer) await closeServer(opsServer, 0);
  };

  /**
   * Subscribes in the background of the listener; once confirmed, the replica may take traffic.
   * Anything cached before (a request that bypassed the load balancer) is forgotten then, as
   * after a reconnect: an announcement it needed may have gone by unheard.
   */
  async function subscribeToRevocations(): Promise<void> {
    let waited = false;
    const slow = setTimeout(() => {
      waited = true;
      log.warn('revocations not subscribed yet (Redis unreachable?): listening, unready until they are');
    }, 2000);
    try {
      await revocations.start();
    } catch (err) {
      if (stopping) return;
      log.error({ err }, 'could not subscribe to revocations');
      throw err;
    } finally {
      clearTimeout(slow);
    }
    if (stopping) return;
    forgetCredentials();
    revocationsSubscribed = true;
    if (waited) log.info('revocations subscribed: ready for traffic');
  }

  return {
    app,
    admin: services.admin,
    streams,
    async start(port: number = config.PORT): Promise<number> {
      const subscribed = subscribeToRevocations();
      // Awaited below; handled here too, in case listening fails first.
      subscribed.catch(() => undefined);
      const listening = createServer(serverOptions(config.HTTP_REQUEST_TIMEOUT_MS), app).listen(port);
      // Past this many open sockets Node closes new connections at once: memory stays bounded.
      listening.maxConnections = config.HTTP_MAX_CONNECTIONS;
      server = listening;
      await new Promise<void>((resolve, reject) => {
        listening.once('listening', resolve);
        listening.once('error', reject);
      });
      const bound = (listening.address() as AddressInfo).port;
      if (opsPort !== undefined) opsServer = await startOpsServer(opsPort, ops);
      log.info({ port: bound, opsPort: boundOpsPort(), publicUrl: config.PUBLIC_URL }, 'gateway listening');
      await subscribed;
      return bound;
    },
    opsPort: boundOpsPort,
    stop(): Promise<void> {
      stopping ??= drain();
      return stopping;
    },
  };
}

/**
 * Node's own request deadline, checked every tenth of it (Node checks every 30 s by default, so a
 * short deadline would be overrun by up to that). Headers must come within it too, and never take
 * longer than Node's default minute.
 */
function serverOptions(requestTimeoutMs: number): ServerOptions {
  return {
    requestTimeout: requestTimeoutMs,
    headersTimeout: Math.min(60_000, requestTimeoutMs),
    connectionsCheckingInterval: Math.max(100, Math.min(30_000, Math.floor(requestTimeoutMs / 10))),
  };
}

/** Stops listening, closes keep-alive connections as they go idle, and cuts the rest after the grace. */
async function closeServer(server: Server, graceMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  const idle = setInterval(() => server.closeIdleConnections(), 50);
  const cut = setTimeout(() => server.closeAllConnections(), graceMs);
  server.closeIdleConnections();
  await closed;
  clearInterval(idle);
  clearTimeout(cut);
}
