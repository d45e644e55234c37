// What the orchestrator asks the load generator to do, and what it answers (JSON both ways).
import type { Target } from './http.ts';

export type LoadJob =
  | (Target & { kind: 'submit-closed'; agent: string; clients: number; durationMs: number; push?: string })
  | (Target & { kind: 'submit-open'; agent: string; rate: number; durationMs: number; push?: string })
  | (Target & {
      kind: 'requests';
      op: 'blocking' | 'get' | 'list';
      agent: string;
      clients: number;
      durationMs: number;
      taskIds: string[];
    })
  | (Target & { kind: 'fanout'; agent: string; tasks: number; streamsPerTask: number })
  | (Target & { kind: 'idle-streams'; agent: string; tasks: number; streamsPerTask: number });

export interface ErrorSummary {
  count: number;
  first?: string;
}

/** Non-blocking submits: per task its id, when it was sent (epoch ms) and the submit latency. */
export interface SubmitResult {
  ids: string[];
  sentAt: number[];
  latencyMs: number[];
  /**
   * Open loop only: how late the load generator sent each request after it was due (its own event
   * loop waiting for a CPU). The submit latency counts from the due time, so this is part of it.
   */
  lateMs?: number[];
  seconds: number;
  errors: ErrorSummary;
}

export interface RequestResult {
  latencyMs: number[];
  seconds: number;
  errors: ErrorSummary;
}

/** Every event each stream read after its snapshot: [task index, sequence, received at]. */
export interface FanoutResult {
  taskIds: string[];
  streams: number;
  received: Array<[number, number, number]>;
  seconds: number;
  errors: ErrorSummary;
}

export interface IdleStreamsResult {
  taskIds: string[];
  opened: number;
  errors: ErrorSummary;
}
