// @switchyard/agents: the agent-author API, the bundled example agents and a test harness for
// agent unit tests (the real AgentContext lives in @switchyard/engine).

export { AgentFailure, RunEndedError } from './agent.ts';
export type {
  Agent,
  AgentCardTemplate,
  AgentContext,
  AgentLogger,
  CanceledTaskContext,
  ArtifactChunk,
  ContextMemory,
  MessageInput,
  TaskSnapshot,
} from './agent.ts';

export { bundledAgents, findBundledAgent } from './registry.ts';

export { ECHO_REPLY_TRIGGER, echoAgent } from './agents/echo/echo-agent.ts';

export { invoiceReconcilerAgent } from './agents/invoice/invoice-agent.ts';
export { MATCHES_ARTIFACT_ID, MATCHES_ARTIFACT_NAME } from './agents/invoice/matches-artifact.ts';
export { ROUNDING_MEMORY_KEY, ROUNDING_QUESTION } from './agents/invoice/rounding.ts';
export { SAMPLE_INVOICES } from './agents/invoice/sample-invoices.ts';
export type {
  Invoice,
  Match,
  Payment,
  ReconcileInput,
  Reconciliation,
} from './agents/invoice/invoice-types.ts';

export { bookingAgent, createBookingAgent } from './agents/booking/booking-agent.ts';
export type { BookingAgentOptions } from './agents/booking/booking-agent.ts';
export { MAX_TRAVELLERS } from './agents/booking/booking-router.ts';
export type { BookingIntent, BookingRouter, BookingType } from './agents/booking/booking-router.ts';
export { RuleBasedRouter } from './agents/booking/rule-based-router.ts';
export { ModelBackedRouter } from './agents/booking/model-backed-router.ts';
export type { CompleteFn, ModelBackedRouterOptions } from './agents/booking/model-backed-router.ts';
export { TRAVELLERS_QUESTION } from './agents/booking/booking-result.ts';

export { PROGRESS_ARTIFACT_ID, slowAgent } from './agents/slow/slow-agent.ts';
export { conformanceAgent } from './agents/conformance/conformance-agent.ts';
export { SLOW_DEFAULTS } from './agents/slow/slow-settings.ts';
export type { ProgressMode, SlowSettings } from './agents/slow/slow-settings.ts';

export { AgentHarness, runAgentForTest } from './testing/agent-harness.ts';
export type { HarnessMessage } from './testing/harness-messages.ts';
export type {
  AgentHarnessOptions,
  CallKind,
  CallStatus,
  HarnessRun,
  HarnessTask,
  LogEntry,
  PlatformEvent,
  RecordedCall,
  RunResult,
  SendOptions,
} from './testing/harness-types.ts';
