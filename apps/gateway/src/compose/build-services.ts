import { createTaskService, type EngineConfig } from '@switchyard/engine';
import { HintPublisher } from '@switchyard/events';
import { PostgresOutboxStore } from '@switchyard/store';
import type { GatewayDeps } from './gateway-deps.ts';

/** The stores and engine services one gateway process uses, built from its deps and config. */
export function buildServices({
  pool,
  redis,
  commands = redis,
  subscriber,
  keys,
  secrets,
  log,
  config,
  engine,
  metrics,
}: GatewayDeps) {
  const settings: Partial<EngineConfig> = {
    blockingTimeoutMs: config.BLOCKING_TIMEOUT_MS,
    closeStreamOnInputRequired: config.STREAM_CLOSE_ON_INPUT_REQUIRED,
    closeStreamOnAuthRequired: config.STREAM_CLOSE_ON_AUTH_REQUIRED,
    messageIdIdempotency: config.MESSAGE_ID_IDEMPOTENCY,
    listTasksMaxPageBytes: config.LIST_TASKS_MAX_PAGE_BYTES,
    taskMaxHistoryBytes: config.TASK_MAX_HISTORY_BYTES,
    ...engine,
  };
  const bundle = createTaskService({
    pool,
    redis,
    commands,
    subscriber,
    keys,
    secrets,
    log,
    engine: settings,
    // The pusher's own rules (the same settings), so no URL is accepted here that it would refuse.
    urlPolicy: { allowCidrs: config.WEBHOOK_ALLOW_CIDRS, allowHttp: config.WEBHOOK_ALLOW_HTTP },
    ...(metrics ? { metrics } : {}),
  });
  const agents = {
    getAgent: (tenantId: string, agentId: string) => bundle.service.resolveAgent(tenantId, agentId),
    peekAgent: (tenantId: string, agentId: string) => bundle.service.peekAgent(tenantId, agentId),
  };
  return {
    admin: bundle.admin,
    outbox: new PostgresOutboxStore({ db: bundle.db, secrets }),
    hints: new HintPublisher({ redis: commands, keys }),
    dispatcher: bundle.queue,
    hub: bundle.hub,
    agents,
    service: bundle.service,
  };
}

export type Services = ReturnType<typeof buildServices>;
