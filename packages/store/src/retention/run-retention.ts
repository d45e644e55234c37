import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { deleteDeliveredPushes } from './delete-delivered-pushes.ts';
import { deleteExpiredEvents } from './delete-expired-events.ts';
import { deleteExpiredContextMemory } from './delete-expired-context-memory.ts';
import { deleteExpiredIdempotencyKeys } from './delete-expired-idempotency-keys.ts';
import { deleteExpiredTasks } from './delete-expired-tasks.ts';
import {
  resolveRetentionOptions,
  type ResolvedRetentionOptions,
  type RetentionOptions,
} from './retention-options.ts';

/** Rows deleted, per table. */
export interface RetentionResult {
  tasks: number;
  taskMessages: number;
  artifactChunks: number;
  /** Events of deleted tasks plus expired events of terminal tasks. */
  taskEvents: number;
  pushConfigs: number;
  /** Rows of deleted tasks plus delivered rows past their TTL. */
  pushDeliveries: number;
  idempotencyKeys: number;
  contextMemory: number;
  /** Another run held the deployment's retention lock: this one deleted nothing. */
  skipped?: true;
}

/** One step of a run that failed; the steps after it still ran. */
export interface RetentionStepFailure {
  step: string;
  error: unknown;
}

/** A run in which some steps failed: what the others deleted, and why the failed ones did not. */
export class RetentionError extends AggregateError {
  readonly result: RetentionResult;
  readonly failures: RetentionStepFailure[];

  constructor(result: RetentionResult, failures: RetentionStepFailure[]) {
    super(
      failures.map((f) => f.error),
      `retention: ${failures.map((f) => f.step).join(', ')} failed; the other steps ran`,
    );
    this.name = 'RetentionError';
    this.result = result;
    this.failures = failures;
  }
}

/**
 * Retention (ARCHITECTURE.md §8), run by a scheduled job. How long ids stay valid, with defaults:
 *
 * - A task id answers GetTask (and its history and artifacts) while the task is live, forever,
 *   and for `terminalTaskTtlMs` (30 days) after its last update once terminal; then TaskNotFound.
 * - Its event log (SubscribeToTask, Last-Event-ID resume) is complete while the task is live and
 *   for `eventTtlMs` (24 hours) after it ended; later a resume gets the Task snapshot in place of
 *   the events gone. Events a pending or dead push delivery still needs are kept with it.
 * - A messageId deduplicates resends for `idempotencyTtlMs` (24 hours) after first use; a later
 *   resend starts a new task. It never outlives its task (the options are checked for that).
 * - Agents' per-context memory lasts `contextMemoryTtlMs` (30 days) after its last write.
 * - A push delivery id (webhook-id) is kept `deliveredPushTtlMs` (7 days) after delivery; pending
 *   and dead deliveries stay, with their events, until their task is deleted (dead letters can be
 *   replayed till then).
 *
 * Every delete is bounded (at most `batchSize` rows, or tasks, per statement or transaction) and
 * repeated until a batch comes back short, so no statement touches a whole table or holds locks
 * for long, and a run that is stopped midway has done consistent work. The task sweep's batches
 * are bounded in rows too (`taskRowsPerBatch`). Each step runs whatever the ones before it met: a
 * step that fails (a batch past the statement timeout, a deadlock) must not stop the others for
 * good, run after run; the run then throws a RetentionError naming the failed steps.
 */
export async function runRetention(db: Db, options: RetentionOptions = {}): Promise<RetentionResult> {
  const o = resolveRetentionOptions(options);
  // One run at a time across the deployment: a catch-up run that outlasts its interval would meet
  // the next one (taken by another worker) on the same rows, and the two would wait on each
  // other's row locks or deadlock. The lock is the session's: the steps run on the same
  // connection, so a run takes one connection of the pool, and the lock goes with the session if
  // the connection dies.
  return db.connection().execute(async (conn) => {
    const [lock] = (
      await sql<{ held: boolean }>`SELECT pg_try_advisory_lock(${RETENTION_LOCK}) AS held`.execute(conn)
    ).rows;
    if (!lock?.held) return { ...emptyResult(), skipped: true };
    try {
      return await runSteps(conn, o, options.now);
    } finally {
      await sql`SELECT pg_advisory_unlock(${RETENTION_LOCK})`.execute(conn);
    }
  });
}

/** The advisory lock key of retention (any constant no other code of the platform uses). */
const RETENTION_LOCK = 7_379_657_502;

function emptyResult(): RetentionResult {
  return {
    tasks: 0,
    taskMessages: 0,
    artifactChunks: 0,
    taskEvents: 0,
    pushConfigs: 0,
    pushDeliveries: 0,
    idempotencyKeys: 0,
    contextMemory: 0,
  };
}

async function runSteps(db: Db, o: ResolvedRetentionOptions, at: Date | undefined): Promise<RetentionResult> {
  const now = at ?? (await databaseNow(db));
  const before = (ms: number) => new Date(now.getTime() - ms);
  const result = emptyResult();

  const failures: RetentionStepFailure[] = [];
  const step = async (name: string, run: () => Promise<void>) => {
    try {
      await run();
    } catch (error) {
      failures.push({ step: name, error });
    }
  };

  const taskCutoff = before(o.terminalTaskTtlMs);
  await step('expired tasks', async () => {
    for (;;) {
      const { more, ...batch } = await deleteExpiredTasks(db, taskCutoff, o.batchSize, o.taskRowsPerBatch);
      for (const key of Object.keys(batch) as (keyof typeof batch)[]) result[key] += batch[key];
      if (!more) break;
    }
  });
  await step('expired events', async () => {
    result.taskEvents += await deleteExpiredEvents(db, before(o.eventTtlMs), o.batchSize);
  });
  await step('idempotency keys', async () => {
    result.idempotencyKeys += await drain(
      (n) => deleteExpiredIdempotencyKeys(db, before(o.idempotencyTtlMs), n),
      o.batchSize,
    );
  });
  await step('context memory', async () => {
    result.contextMemory += await drain(
      (n) => deleteExpiredContextMemory(db, before(o.contextMemoryTtlMs), n),
      o.batchSize,
    );
  });
  await step('delivered pushes', async () => {
    result.pushDeliveries += await drain(
      (n) => deleteDeliveredPushes(db, before(o.deliveredPushTtlMs), n),
      o.batchSize,
    );
  });
  if (failures.length > 0) throw new RetentionError(result, failures);
  return result;
}

async function databaseNow(db: Db): Promise<Date> {
  const { rows } = await sql<{ now: Date }>`SELECT now() AS now`.execute(db);
  const row = rows[0];
  if (!row) throw new Error('SELECT now() returned no row');
  return row.now;
}

/** Repeats a bounded delete until a batch comes back short; the total deleted. */
async function drain(
  deleteBatch: (batchSize: number) => Promise<number>,
  batchSize: number,
): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await deleteBatch(batchSize);
    total += n;
    if (n < batchSize) return total;
  }
}
