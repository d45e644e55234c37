import {
  CachedAgentDirectory,
  engineConfig,
  TaskService,
  TaskWriter,
  type EngineConfig,
} from '@switchyard/engine';
import { HintPublisher, SubscriptionHub } from '@switchyard/events';
import { TaskQueue } from '@switchyard/queue';
import {
  createDb,
  PostgresAdminStore,
  PostgresOutboxStore,
  PostgresPushConfigStore,
  PostgresTaskStore,
} from '@switchyard/store';
import type { GatewayDeps } from './gateway-deps.ts';

/** The stores and engine services one gateway process uses, built from its deps and config. */
export function buildServices({ pool, redis, subscriber, keys, secrets, log, config, engine }: GatewayDeps) {
  const db = createDb(pool);
  const admin = new PostgresAdminStore({ db, secrets });
  const store = new PostgresTaskStore({ db, secrets });
  const hints = new HintPublisher({ redis, keys });
  const dispatcher = new TaskQueue({ connection: redis, keys });
  const hub = new SubscriptionHub({ subscriber, keys });
  // Typed by hand: the engine's declaration of `load` refers to a private member and loses its type.
  const agents = new CachedAgentDirectory({
    load: (tenantId: string, agentId: string) => admin.getAgent(tenantId, agentId),
  });
  const settings: Partial<EngineConfig> = {
    blockingTimeoutMs: config.BLOCKING_TIMEOUT_MS,
    closeStreamOnInputRequired: config.STREAM_CLOSE_ON_INPUT_REQUIRED,
    closeStreamOnAuthRequired: config.STREAM_CLOSE_ON_AUTH_REQUIRED,
    ...engine,
  };
  const service = new TaskService({
    store,
    pushConfigs: new PostgresPushConfigStore({ db, secrets }),
    writer: new TaskWriter({ store, hints, log }),
    dispatcher,
    hub,
    agents,
    config: engineConfig(settings),
    // Plain http stays allowed for webhooks on private networks the operator allow-lists.
    urlPolicy: { allowCidrs: config.WEBHOOK_ALLOW_CIDRS, allowHttp: true },
    log,
  });
  const outbox = new PostgresOutboxStore({ db, secrets });
  return { admin, outbox, hints, dispatcher, hub, agents, service };
}

export type Services = ReturnType<typeof buildServices>;
