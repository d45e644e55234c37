/**
 * The job catalog: every job name with its data shape. Jobs carry ids and trace context only;
 * the store is the truth (ARCHITECTURE.md §3 rule 1), so a job can always be rebuilt from a row.
 */
export interface RunTaskJob {
  tenantId: string;
  taskId: string;
  /** W3C traceparent of the request that created the work, so the worker's spans join its trace. */
  traceparent?: string;
  tracestate?: string;
  /**
   * When the job was first parked behind its tenant's run cap (TenantRunCap), epoch ms: its wait
   * from then on was the cap's, not the fleet's (the dispatch-latency metric leaves it out).
   */
  parkedAt?: number;
  /**
   * How many times in a row a run of this task was handed back with its attempt refunded because
   * Postgres went away during it (engine: task-runner.ts): capped, so that a run whose own write
   * brings Postgres down cannot be refunded forever.
   */
  outageRefunds?: number;
}

/**
 * A task no run was working on (waiting for input or auth, queued, backing off) was canceled. A
 * run whose worker died holding the lease is told through a run-task check instead, once the lease
 * lapses (engine: runner/cancel-notices.ts).
 */
export interface TaskCanceledJob {
  tenantId: string;
  taskId: string;
}

export interface RetentionJob {
  /** Set by the scheduler; informational. */
  scheduledAt: string;
}

export const JOB_NAMES = {
  runTask: 'run-task',
  taskCanceled: 'task-canceled',
  retention: 'retention',
  tableUpkeep: 'table-upkeep',
} as const;

export type JobName = (typeof JOB_NAMES)[keyof typeof JOB_NAMES];

export interface JobCatalog {
  'run-task': RunTaskJob;
  'task-canceled': TaskCanceledJob;
  retention: RetentionJob;
  'table-upkeep': RetentionJob;
}

/**
 * A dispatch's job id is derived from the task row, so the gateway, a worker and every reaper
 * enqueueing the same dispatch produce one job (BullMQ ignores an add whose id exists). A new
 * version (continuation) or attempt (retry) is a new dispatch. BullMQ forbids ':' in custom ids.
 */
export function runTaskJobId(tenantId: string, taskId: string, version: number, attempts: number): string {
  return `${tenantId}.${taskId}.v${version}.a${attempts}`;
}
