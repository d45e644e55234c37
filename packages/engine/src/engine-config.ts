import { DEFAULT_MAX_PAGE_BYTES } from '@switchyard/store';

/** Engine settings; every field has a default so tests override only what they test. */
export interface EngineConfig {
  /** Lease length a worker holds while running an agent. Default 8000 ms; renewed every third. */
  leaseMs: number;
  /** Runs (errors and lapsed leases both count) before a task fails. Default 3. */
  maxAttempts: number;
  /** First retry delay; doubles per attempt, with jitter. Default 500 ms. */
  retryBaseMs: number;
  /** Longest retry delay. Default 30000 ms. */
  retryMaxMs: number;
  /** Ceiling for a blocking SendMessage; then the task is returned as it stands. Default 30000 ms. */
  blockingTimeoutMs: number;
  /**
   * How long a request stays 'pending' (able to become a Message reply) when the agent declares
   * no quickReplyWindowMs. Default 250 ms.
   */
  defaultQuickReplyMs: number;
  /** How often each worker's reaper scans. Default 2000 ms (jittered). */
  reaperIntervalMs: number;
  /** A SUBMITTED task unclaimed for this long is re-enqueued by the reaper. Default 5000 ms. */
  dispatchGraceMs: number;
  /** Fallback read of the store while waiting for hints. Default 1000 ms. */
  pollIntervalMs: number;
  /** Close streams at INPUT_REQUIRED (digest §7.7). Default true. */
  closeStreamOnInputRequired: boolean;
  /** Close streams at AUTH_REQUIRED. Default false (credentials may arrive out of band). */
  closeStreamOnAuthRequired: boolean;
  /**
   * Longest one agent run may take before it is abandoned and counted as a failed attempt.
   * Default 900000 ms (15 minutes); 0 turns the limit off.
   */
  runTimeoutMs: number;
  /**
   * How long a stopped run's agent (its task canceled, its lease lost, the worker shutting down)
   * has to return once its signal aborted. An agent that ignores the signal (an HTTP or model call
   * made without it) is then abandoned as a timed-out run is: its later writes are refused, its
   * worker slot is freed, and a shutdown hands its task back instead of waiting up to the run
   * timeout. Default 2000 ms.
   */
  stopGraceMs: number;
  /**
   * messageId is the idempotency key (ARCHITECTURE.md §3 rule 5): a retried send returns the
   * first answer, and a reuse that asks for something else is refused. Default true. False makes
   * every send new work whatever its messageId, which the A2A spec allows (duplicate detection is
   * a MAY) and conformance suites that reuse ids expect; a retried send then runs twice.
   */
  messageIdIdempotency: boolean;
  /**
   * Most bytes of task JSON in one ListTasks page (the gateway's LIST_TASKS_MAX_PAGE_BYTES): the
   * page ends before the task that would pass it. Default 4 MiB (the store's DEFAULT_MAX_PAGE_BYTES).
   */
  listTasksMaxPageBytes: number;
  /**
   * Most bytes of artifact chunks one task may hold (the worker's TASK_MAX_ARTIFACT_BYTES; the
   * store's artifactChunkBytes: every stored chunk counts, one that replaces its artifact too). An
   * agent whose chunk would pass it fails its task with a status message that names the limit:
   * every GetTask, ListTasks page and run start loads all of a task's chunks, so an agent streaming
   * without end would otherwise grow every reader of the task with it. Default 16 MiB.
   */
  taskMaxArtifactBytes: number;
  /**
   * Most bytes of history JSON one task may hold (the gateway's TASK_MAX_HISTORY_BYTES): a send
   * whose message would pass it (a first message too) is refused with InvalidParams and changes
   * nothing. Every run
   * start reads the whole history. Default 16 MiB.
   */
  taskMaxHistoryBytes: number;
}

export const DEFAULT_ENGINE_CONFIG: Readonly<EngineConfig> = Object.freeze({
  leaseMs: 8000,
  maxAttempts: 3,
  retryBaseMs: 500,
  retryMaxMs: 30_000,
  blockingTimeoutMs: 30_000,
  defaultQuickReplyMs: 250,
  reaperIntervalMs: 2000,
  dispatchGraceMs: 5000,
  pollIntervalMs: 1000,
  closeStreamOnInputRequired: true,
  closeStreamOnAuthRequired: false,
  runTimeoutMs: 900_000,
  stopGraceMs: 2000,
  messageIdIdempotency: true,
  listTasksMaxPageBytes: DEFAULT_MAX_PAGE_BYTES,
  taskMaxArtifactBytes: 16 * 1024 * 1024,
  taskMaxHistoryBytes: 16 * 1024 * 1024,
});

export function engineConfig(overrides: Partial<EngineConfig> = {}): EngineConfig {
  return Object.freeze({ ...DEFAULT_ENGINE_CONFIG, ...overrides });
}

/** Exponential backoff with equal jitter: half fixed (so recovery stays prompt), half random. */
export function retryDelayMs(
  config: Pick<EngineConfig, 'retryBaseMs' | 'retryMaxMs'>,
  attempts: number,
): number {
  const ceiling = Math.min(config.retryMaxMs, config.retryBaseMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}
