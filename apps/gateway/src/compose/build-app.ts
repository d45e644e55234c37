import express, { type Express, type Request } from 'express';
import type { TenantStatus } from '@switchyard/engine';
import { opsHandler, type OpsHandlers } from '@switchyard/runtime';
import { httpServerSpans, type Metrics } from '@switchyard/telemetry';
import { agentRouter } from '../a2a/agent-router.ts';
import { BlockingWaits } from '../a2a/blocking-waits.ts';
import { ListTaskSlots } from '../a2a/list-slots.ts';
import { A2AOperations } from '../a2a/operations.ts';
import { adminRouter } from '../admin/admin-router.ts';
import type { ApiKeyCache } from '../auth/api-key-cache.ts';
import type { RevocationChannel } from '@switchyard/events';
import { AuthFailureThrottle } from '../auth/auth-failure-throttle.ts';
import { authChallenges, Authenticator } from '../auth/authenticator.ts';
import { createJwtVerifier } from '../auth/jwt-verifier.ts';
import type { CardBuilder } from '../cards/card-builder.ts';
import { cardRoutes } from '../cards/card-routes.ts';
import { BodyBudget } from '../http/body-budget.ts';
import { corsPolicy } from '../http/cors-policy.ts';
import { unknownRoute } from '../http/edge-error.ts';
import { createErrorHandler } from '../http/error-handler.ts';
import { replyDrainDeadline } from '../http/reply-drain.ts';
import { requestLog } from '../http/request-log.ts';
import { stateOf } from '../http/request-state.ts';
import type { QueueDashboard } from '../admin/queue-dashboard.ts';
import { RequestLimiter } from '../rate-limit/request-limiter.ts';
import type { StreamRegistry } from '../sse/stream-registry.ts';
import type { Services } from './build-services.ts';
import type { GatewayDeps } from './gateway-deps.ts';

export interface AppParts {
  services: Services;
  metrics: Metrics;
  dashboard: QueueDashboard;
  apiKeys: ApiKeyCache;
  tenants: TenantStatus;
  revocations: RevocationChannel;
  cards: CardBuilder;
  streams: StreamRegistry;
  shutdown: AbortSignal;
  /** /healthz, /readyz and, unless the ops port serves it, /metrics (create-gateway.ts). */
  ops: OpsHandlers;
}

/**
 * The express app: ops endpoints and public cards first (no credentials), then the admin API
 * (its own token), then each agent's A2A interfaces; anything else is 404, and one error handler
 * writes every failure in the binding's format.
 */
export function buildApp(
  deps: GatewayDeps,
  { services, metrics, dashboard, apiKeys, tenants, revocations, cards, streams, shutdown, ops }: AppParts,
): Express {
  const { redis, keys, log, config } = deps;
  const resolveAgent = (tenantId: string, agentId: string) => services.agents.getAgent(tenantId, agentId);
  const jwt = config.JWT_JWKS_URL
    ? createJwtVerifier({
        jwksUrl: config.JWT_JWKS_URL,
        issuer: config.JWT_ISSUER,
        audience: config.JWT_AUDIENCE,
        tenantClaim: config.JWT_TENANT_CLAIM,
        roleClaim: config.JWT_ROLE_CLAIM,
        maxLifetimeSec: config.JWT_MAX_LIFETIME_SEC,
      })
    : undefined;
  const limiter = new RequestLimiter({
    // Its two counters (tenant, credential) and other requests' leave in one write.
    redis: deps.commands ?? redis,
    keys,
    tenantPerSec: config.RATE_LIMIT_TENANT_PER_SEC,
    keyPerSec: config.RATE_LIMIT_KEY_PER_SEC,
    log,
  });

  const app = express();
  app.disable('x-powered-by');
  // Which hops' X-Forwarded-For to believe for the client address (express's `trust proxy`).
  if (config.TRUST_PROXY !== undefined) app.set('trust proxy', config.TRUST_PROXY);
  // Cards carry their own strong ETag; nothing else should be cached by a generated one.
  app.set('etag', false);
  // The server span first: it continues the client's trace (traceparent) and is the parent of the
  // engine's spans, whose context rides into the queued job.
  app.use(httpServerSpans({ route: (req) => stateOf(req as Request).method ?? routeKind(req.url ?? '') }));
  // Probes on the gateway's own port (ARCHITECTURE.md §10), and metrics too unless the ops port
  // serves them. Before the request log: a probe every few seconds is no API request, neither a
  // log line nor a count in the request metrics (a 503 while migrations run would read as a
  // server error to the alerts).
  app.use(opsHandler(ops));
  app.use(requestLog(log, metrics.requests));
  app.use(replyDrainDeadline((req) => stateOf(req).log));
  const bodyBudget = new BodyBudget(config.BODY_BYTES_IN_FLIGHT_MAX, config.BODY_LIMIT_BYTES);
  app.use((req, _res, next) => {
    stateOf(req).bodyBudget = bodyBudget;
    next();
  });
  app.use(dashboard.router);
  const cors = corsPolicy(config.CORS_ALLOW_ORIGINS);
  if (cors) app.use(['/agents', '/.well-known'], cors);
  app.use(
    cardRoutes({
      cards,
      resolveAgent,
      defaultAgent: config.SWITCHYARD_DEFAULT_AGENT,
      versionWithoutHeader: config.CARD_VERSION_WITHOUT_HEADER,
      peekAgent: (tenantId, agentId) => services.agents.peekAgent(tenantId, agentId),
      lookups: new AuthFailureThrottle({
        perSecond: config.AUTH_FAILURES_PER_ADDRESS_PER_SEC,
        refusal: 'Too many lookups of unregistered agent cards from this address; retry shortly',
      }),
    }),
  );
  const { admin, outbox, hints } = services;
  app.use(
    '/admin/v1',
    adminRouter(
      {
        admin,
        outbox,
        revocations,
        hints,
        parkedRuns: services.dispatcher,
        bodyLimitBytes: config.BODY_LIMIT_BYTES,
        secrets: deps.secrets,
        // The rules the workers call upstream agents under (WEBHOOK_ALLOW_HTTP: https only in
        // production), so no agent is registered that every task of would fail on.
        urlPolicy: { allowCidrs: config.WEBHOOK_ALLOW_CIDRS, allowHttp: config.WEBHOOK_ALLOW_HTTP },
      },
      { token: config.SWITCHYARD_ADMIN_TOKEN, publicUrl: config.PUBLIC_URL },
    ),
  );
  app.use(
    '/agents/:tenantId/:agentId',
    agentRouter(
      {
        authenticator: new Authenticator({ apiKeys, jwt, tenants }),
        failures: new AuthFailureThrottle({ perSecond: config.AUTH_FAILURES_PER_ADDRESS_PER_SEC }),
        limiter,
        resolveAgent,
        revocationMark: () => streams.revocationMark(),
      },
      {
        operations: new A2AOperations({
          service: services.service,
          cards,
          blockingWaits: new BlockingWaits({
            perGateway: config.BLOCKING_MAX_WAITS,
            perTenant: config.BLOCKING_MAX_WAITS_PER_TENANT,
            perPrincipal: config.BLOCKING_MAX_WAITS_PER_PRINCIPAL,
          }),
          listSlots: new ListTaskSlots(),
        }),
        cards,
        streams,
        shutdown,
        bodyLimitBytes: config.BODY_LIMIT_BYTES,
        mapping: config.HTTP_ERROR_MAPPING,
        mediaType: config.HTTP_JSON_MEDIA_TYPE,
        heartbeatMs: config.SSE_HEARTBEAT_MS,
        maxBufferBytes: config.SSE_MAX_BUFFER_BYTES,
      },
    ),
  );
  app.use(() => {
    throw unknownRoute();
  });
  app.use(
    createErrorHandler({
      mapping: config.HTTP_ERROR_MAPPING,
      mediaType: config.HTTP_JSON_MEDIA_TYPE,
      challenges: authChallenges(config.jwtEnabled),
    }),
  );
  return app;
}

/** A low-cardinality span name for routes that are not A2A calls. */
function routeKind(url: string): string {
  if (url.startsWith('/admin/queues')) return 'queue-dashboard';
  if (url.startsWith('/admin/')) return 'admin';
  if (url.includes('/.well-known/')) return 'agent-card';
  return 'other';
}
