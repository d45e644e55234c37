import type { Agent } from '@switchyard/agents';
import type { TaskStore } from '@switchyard/store';
import type { Logger, TaskMetrics } from '@switchyard/telemetry';
import type { EngineConfig } from '../engine-config.ts';
import type { AgentDirectory, Dispatcher, HintSource } from '../ports.ts';
import type { TaskWriter } from '../task-writer.ts';

export interface RunnerDeps {
  store: TaskStore;
  writer: TaskWriter;
  dispatcher: Dispatcher;
  hub: HintSource;
  agents: AgentDirectory;
  /** Whether a tenant is enabled (TenantStatus): a disabled tenant's runs do not start. */
  tenants?: { isActive(tenantId: string, maxAgeMs?: number): Promise<boolean> };
  /** Executor name → agent implementation (the bundled agents by default). */
  findAgent(executor: string): Agent | undefined;
  config: EngineConfig;
  /** Unique per process: the lease owner written to Postgres. */
  workerId: string;
  log: Logger;
  /** Dispatch latency of each run claimed (the task families). */
  metrics?: Pick<TaskMetrics, 'dispatched'>;
}
