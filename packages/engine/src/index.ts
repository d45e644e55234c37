export { DEFAULT_ENGINE_CONFIG, engineConfig, retryDelayMs, type EngineConfig } from './engine-config.ts';
export type { AgentDirectory, AgentRegistration, Dispatcher, HintSink, HintSource } from './ports.ts';
export { TaskWriter } from './task-writer.ts';
export { statusEvent, artifactEvent, messageEvent } from './task-events.ts';
export { TaskService, type SendResult } from './service/task-service.ts';
export type { ServiceDeps, TraceCarrier } from './service/service-deps.ts';
export type { OpenedStream, StreamItem, StreamSink } from './service/task-stream.ts';
export { closesStream, streamItems } from './service/task-stream.ts';
export { TaskRunner, FAILED_MESSAGE, FAILURE_CODE_METADATA_KEY } from './runner/task-runner.ts';
export type { RunnerDeps } from './runner/runner-deps.ts';
export { Reaper, LEASE_EXHAUSTED_MESSAGE, type ReaperStats } from './reaper.ts';
export { claimReaperTurn } from './reaper-turn.ts';
export {
  checkWebhookUrl,
  isAllowedAddress,
  systemLookup,
  UrlRefusedError,
  type UrlPolicy,
  type LookupFn,
} from './push/url-policy.ts';
export { createGuardedAgent, type GuardedAgentOptions } from './push/guarded-agent.ts';
export { CachedAgentDirectory, type LoadAgent } from './cached-agent-directory.ts';
export { TenantStatus, type LoadTenant } from './tenant-status.ts';
export {
  createWorkerRuntime,
  PARKED_RELEASE_AFTER_MS,
  type WorkerOptions,
  type WorkerRuntime,
  type WorkerState,
} from './worker-runtime.ts';
export { releaseParkedRuns, type ParkedRuns } from './parked-runs.ts';
export { createTaskService, type TaskServiceOptions, type TaskServiceBundle } from './create-task-service.ts';
