// Worker entry of the chaos run: the standard worker runtime with the bundled agents plus the
// counting agent, which records every execution in chaos_executions. Configured like
// apps/worker (same variables), so the fault suite exercises the real runtime.
import { findBundledAgent, RunEndedError } from '@switchyard/agents';
import { createWorkerRuntime } from '@switchyard/engine';
import {
  commonEnvSchema,
  handleProcessErrors,
  handleSignals,
  intVar,
  openProcessResources,
  parseEnv,
  shutdownDeadlineMs,
  z,
} from '@switchyard/runtime';
import { createCountingAgent } from './counting-agent.ts';
import { insertExecution } from './executions.ts';

const config = parseEnv(
  commonEnvSchema.extend({
    WORKER_CONCURRENCY: intVar(8, 1, 1000),
    TENANT_MAX_RUNNING: intVar(0, 0, 1_000_000),
    LEASE_MS: intVar(3000, 500),
    MAX_ATTEMPTS: intVar(20, 1, 100),
    RETRY_BASE_MS: intVar(100, 10),
    RETRY_MAX_MS: intVar(1000, 10),
    REAPER_INTERVAL_MS: intVar(500, 100),
    DISPATCH_GRACE_MS: intVar(2000, 100),
    SHUTDOWN_GRACE_MS: intVar(500, 0),
    WORKER_ID: z.string().min(1),
  }),
  process.env,
);
const resources = await openProcessResources('worker', config, process.env);
const { log, pool, close, flushTracing } = resources;
handleProcessErrors(log, { isExpected: (reason) => reason instanceof RunEndedError });
const counting = createCountingAgent({
  record: (row) => insertExecution(pool, row),
  pid: process.pid,
  workerId: config.WORKER_ID,
});
const worker = createWorkerRuntime({
  ...resources,
  concurrency: config.WORKER_CONCURRENCY,
  ...(config.TENANT_MAX_RUNNING > 0 ? { maxRunningPerTenant: config.TENANT_MAX_RUNNING } : {}),
  shutdownGraceMs: config.SHUTDOWN_GRACE_MS,
  workerId: config.WORKER_ID,
  retention: false,
  findAgent: (executor) => (executor === counting.executor ? counting : findBundledAgent(executor)),
  engine: {
    leaseMs: config.LEASE_MS,
    maxAttempts: config.MAX_ATTEMPTS,
    retryBaseMs: config.RETRY_BASE_MS,
    retryMaxMs: config.RETRY_MAX_MS,
    reaperIntervalMs: config.REAPER_INTERVAL_MS,
    dispatchGraceMs: config.DISPATCH_GRACE_MS,
  },
});
worker.start();
handleSignals(
  {
    async stop() {
      await worker.stop();
      await close();
    },
  },
  log,
  { deadlineMs: shutdownDeadlineMs(config, config.SHUTDOWN_GRACE_MS), beforeForcedExit: flushTracing },
);
