import { setMaxListeners } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { PostgresAdminStore } from '@switchyard/store';
import { ApiKeyCache } from './auth/api-key-cache.ts';
import { TenantStatus } from './auth/tenant-status.ts';
import { apiKeyCredentialId } from './auth/authenticator.ts';
import { recheckOpenStreams } from './auth/recheck-streams.ts';
import { RevocationChannel } from './auth/revocation-channel.ts';
import { CardBuilder } from './cards/card-builder.ts';
import { buildApp } from './compose/build-app.ts';
import { buildServices } from './compose/build-services.ts';
import type { GatewayDeps } from './compose/gateway-deps.ts';
import { StreamRegistry } from './sse/stream-registry.ts';
import { queueDashboard } from './admin/queue-dashboard.ts';
import { createMetrics } from '@switchyard/telemetry';
import { serviceReadiness, startOpsServer, type OpsHandlers } from '@switchyard/runtime';

export type { GatewayDeps } from './compose/gateway-deps.ts';

export interface Gateway {
  app: Express;
  /** The gateway's admin store (tests and tooling). */
  admin: PostgresAdminStore;
  /** Open SSE streams (drained by stop()). */
  streams: StreamRegistry;
  /** Listens on `port` (0 = ephemeral) once revocations are subscribed; resolves to the bound port. */
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
  const dashboard = queueDashboard({ redis: deps.redis, keys, token: config.SWITCHYARD_ADMIN_TOKEN });
  const apiKeys = new ApiKeyCache({ lookup: (key) => services.admin.authenticateApiKey(key) });
  const streams = new StreamRegistry(metrics.sse, {
    perGateway: config.SSE_MAX_STREAMS,
    perTenant: config.SSE_MAX_STREAMS_PER_TENANT,
    perCredential: config.SSE_MAX_STREAMS_PER_CREDENTIAL,
  });
  const tenants = new TenantStatus({ load: (tenantId) => services.admin.getTenant(tenantId) });
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
    resync: () => {
      apiKeys.clear();
      tenants.forget();
      // Announcements missed while away may have revoked the credentials of open streams.
      recheckOpenStreams({
        streams,
        liveApiKeyIds: (keyIds) => services.admin.liveApiKeyIds(keyIds),
        isTenantActive: (tenantId) => tenants.isActive(tenantId),
      }).then(
        (closed) =>
          closed > 0 && log.info({ closed }, 'ended streams whose credential was revoked meanwhile'),
        (err: unknown) => log.warn({ err }, 'could not re-check the credentials of open streams'),
      );
    },
  });
  const shutdown = new AbortController();
  // Every open request listens on it (client-signal.ts): not a leak, so no listener-count warning.
  setMaxListeners(0, shutdown.signal);
  let accepting = true;
  // False `accepting` while draining makes load balancers stop sending new requests.
  // Redis is reported but not required: without it a gateway still takes sends (Postgres is the
  // truth; the reaper dispatches once Redis is back) and streams poll the log, while taking every
  // replica out of the load balancer at once would turn a Redis outage into a full one.
  const probes = {
    health: () => true,
    ready: async () => ({ ...(await serviceReadiness(deps.pool, deps.redis)), accepting }),
    advisory: ['redis'],
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
    await revocations.stop();
    await services.dispatcher.close();
    await services.hub.close();
    await dashboard.close();
    // Last, so /metrics can be scraped while the drain runs.
    if (opsServer) await closeServer(opsServer, 0);
  };

  return {
    app,
    admin: services.admin,
    streams,
    async start(port: number = config.PORT): Promise<number> {
      await revocations.start();
      const listening = app.listen(port);
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
      return bound;
    },
    opsPort: boundOpsPort,
    stop(): Promise<void> {
      stopping ??= drain();
      return stopping;
    },
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
