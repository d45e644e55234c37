// Worker entry point: validated config → process resources → worker runtime; drain on SIGTERM.
import { findBundledAgent, RunEndedError } from '@switchyard/agents';
import { createWorkerRuntime, DEFAULT_ENGINE_CONFIG } from '@switchyard/engine';
import { createUpstreamAgent, UPSTREAM_EXECUTOR } from '@switchyard/upstream';
import {
  handleProcessErrors,
  handleSignals,
  listenOrExit,
  loadConfigOrExit,
  openProcessResources,
  shutdownDeadlineMs,
  startOpsServer,
} from '@switchyard/runtime';
import { loadWorkerConfig } from './config.ts';

const config = loadConfigOrExit('switchyard-worker', () => loadWorkerConfig(process.env));
const resources = await openProcessResources('worker', config, process.env);
const { log, metrics, secrets, close, flushTracing } = resources;
// An agent's context call that it did not await, refused because its run had ended (a cancel, a
// lost lease), is that agent's mistake: a warning, never the end of every other run here.
handleProcessErrors(log, {
  isExpected: (reason) => reason instanceof RunEndedError,
  beforeFatalExit: flushTracing,
});
// Bundled agents run in-process; `a2a-upstream` registrations are existing A2A servers we call.
const upstreamAgent = createUpstreamAgent({
  secrets,
  policy: { allowCidrs: config.WEBHOOK_ALLOW_CIDRS, allowHttp: config.WEBHOOK_ALLOW_HTTP },
  requestTimeoutMs: config.UPSTREAM_TIMEOUT_MS,
});
const worker = createWorkerRuntime({
  findAgent: (executor) => (executor === UPSTREAM_EXECUTOR ? upstreamAgent : findBundledAgent(executor)),
  // The connections, pool, logger and metrics as opened; the runtime takes what WorkerOptions names.
  ...resources,
  concurrency: config.WORKER_CONCURRENCY,
  ...(config.TENANT_MAX_RUNNING > 0 ? { maxRunningPerTenant: config.TENANT_MAX_RUNNING } : {}),
  shutdownGraceMs: config.SHUTDOWN_GRACE_MS,
  ...(config.WORKER_ID ? { workerId: config.WORKER_ID } : {}),
  retention: {
    everyMs: config.RETENTION_INTERVAL_MS,
    terminalTaskTtlMs: config.TERMINAL_TASK_TTL_MS,
    eventTtlMs: config.EVENT_TTL_MS,
    idempotencyTtlMs: config.IDEMPOTENCY_TTL_MS,
    deliveredPushTtlMs: config.DELIVERED_PUSH_TTL_MS,
    contextMemoryTtlMs: config.CONTEXT_MEMORY_TTL_MS,
  },
  tableUpkeepEveryMs: config.TABLE_UPKEEP_INTERVAL_MS > 0 ? config.TABLE_UPKEEP_INTERVAL_MS : false,
  engine: {
    leaseMs: config.LEASE_MS,
    maxAttempts: config.MAX_ATTEMPTS,
    retryBaseMs: config.RETRY_BASE_MS,
    retryMaxMs: config.RETRY_MAX_MS,
    reaperIntervalMs: config.REAPER_INTERVAL_MS,
    dispatchGraceMs: config.DISPATCH_GRACE_MS,
    runTimeoutMs: config.RUN_TIMEOUT_MS,
    taskMaxArtifactBytes: config.TASK_MAX_ARTIFACT_BYTES,
  },
});
const ops = await listenOrExit(log, { WORKER_OPS_PORT: config.WORKER_OPS_PORT }, () =>
  startOpsServer(config.WORKER_OPS_PORT, {
    health: () => worker.state === 'starting' || worker.state === 'running' || worker.state === 'draining',
    ready: () => worker.ready(),
    metrics: () => metrics.text(),
  }),
);
// After the ops port is bound: a port that cannot be ends the process before it takes any work.
worker.start();
handleSignals(
  {
    async stop() {
      await worker.stop();
      ops.close();
      await close();
    },
  },
  log,
  {
    // After the grace, agents that ignore their stop signal get stopGraceMs before they are let go
    // and their tasks handed back: the deadline leaves them that too (45 + 2 + 5 s, and the trace
    // flush's 5 s, within the manifest's 60 s).
    deadlineMs: shutdownDeadlineMs(config, config.SHUTDOWN_GRACE_MS + DEFAULT_ENGINE_CONFIG.stopGraceMs),
    beforeForcedExit: flushTracing,
  },
);
