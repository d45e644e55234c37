import type { BacklogSlot, Dispatch } from '@switchyard/queue';
import type { TaskHint } from '@switchyard/events';

/**
 * Narrow ports the engine depends on (STYLE.md rule 6), so tests pass the real Redis-backed
 * implementations with a per-test prefix.
 */
export interface Dispatcher {
  /** `slot`: the dispatch's place in the fair order, asked for by `reserve` as its task committed. */
  enqueue(dispatch: Dispatch, slot?: BacklogSlot): Promise<void>;
  /**
   * Asks for a dispatch's place in the fair order ahead of its enqueue (TaskQueue.reserve), so
   * that round trip overlaps the commit; the caller passes the slot to enqueue, or drops it.
   * Optional: without it, enqueue asks.
   */
  reserve?(tenantId: string): BacklogSlot;
  /**
   * The reaper's enqueue of work nobody claimed: also revives a failed job of the same id, which
   * would swallow the enqueue (TaskQueue.redispatch). Without it, the reaper uses enqueue.
   * Resolves to whether a job was added or revived (false: the task's job was queued already).
   */
  redispatch?(dispatch: Dispatch): Promise<boolean>;
  /**
   * A task no run was working on (waiting for input or auth, queued, backing off) was canceled:
   * tell a worker, so its agent can clean up (runner/cancel-notices.ts).
   */
  notifyCanceled?(tenantId: string, taskId: string): Promise<void>;
}

export interface HintSink {
  publish(hint: TaskHint): Promise<void>;
  publishPushDue(): Promise<void>;
}

export interface HintSource {
  watch(tenantId: string, taskId: string, listener: (hint: TaskHint | 'resync') => void): () => void;
}

/** An agent registration as the engine needs it. */
export interface AgentRegistration {
  tenantId: string;
  id: string;
  executor: string;
  settings: Record<string, unknown>;
  card: Record<string, unknown>;
}

export interface AgentDirectory {
  getAgent(tenantId: string, agentId: string): Promise<AgentRegistration | null>;
  /**
   * What getAgent would answer without asking the store (a registration or a miss it holds), or
   * undefined when it would have to ask: public card routes throttle only the lookups that cost.
   */
  peekAgent?(tenantId: string, agentId: string): AgentRegistration | null | undefined;
}
