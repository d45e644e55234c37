import type { VersionSweep } from '@switchyard/events';
import type { Logger } from '@switchyard/telemetry';
import type { PushConfigStore, TaskStore } from '@switchyard/store';
import type { EngineConfig } from '../engine-config.ts';
import type { AgentDirectory, Dispatcher, HintSource } from '../ports.ts';
import type { UrlPolicy } from '../push/url-policy.ts';
import type { TaskWriter } from '../task-writer.ts';

/** What the task service needs, passed as one options object. */
export interface ServiceDeps {
  store: TaskStore;
  pushConfigs: PushConfigStore;
  writer: TaskWriter;
  dispatcher: Dispatcher;
  hub: HintSource;
  /** The streams' shared safety net for lost hints; without it each stream polls its own log. */
  sweep?: Pick<VersionSweep, 'track' | 'soon'>;
  agents: AgentDirectory;
  config: EngineConfig;
  urlPolicy: UrlPolicy;
  log: Logger;
}

/** Trace context of the request, carried into the job so the worker joins the trace. */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}
