import type { CheckInput, Execution, Fault, StoredEvent, ViolationKind } from './check-types.ts';
import { groupBy } from './check-util.ts';
import { LEASE_MS } from './fleet.ts';

type Add = (kind: ViolationKind, detail: string, taskId?: string) => void;

/** Clock slack between the harness (fault times) and Postgres (execution times): one machine. */
const SLACK_MS = 250;
/**
 * The shortest Postgres freeze that can cost a run its lease: a run stops itself once no renewal
 * has been confirmed for 3/4 of a lease (the engine's lease keeper). A shorter freeze only delays
 * statements; it fails none and takes no lease.
 */
const FREEZE_COSTS_LEASE_MS = 0.75 * LEASE_MS;
const CONNECTION_ERROR =
  /terminat|ECONNREFUSED|ECONNRESET|not queryable|Connection|shutting down|starting up|did not answer|timeout exceeded/i;

/**
 * Each run of a task (one per user message it started from) should execute once. An extra
 * execution is explained only by its predecessor's worker being killed or frozen, by a Postgres
 * outage during the predecessor (its writes and renewals fail), or by the predecessor's worker
 * logging that it lost the lease.
 */
export function checkExecutions(
  input: CheckInput,
  eventsByTask: Map<string, StoredEvent[]>,
  add: Add,
): Record<string, number> {
  const explained: Record<string, number> = {};
  const runs = groupBy(input.executions, (e) => `${e.taskId} ${e.messageId}`);
  for (const list of runs.values()) {
    // Claim order: a claim bumps the attempt. Not the recording time, since a worker frozen
    // between its claim and its agent's start records its execution after its successor's. A run
    // handed back with its attempt refunded (Postgres away: its writes or renewals failed) is
    // followed by one of the same attempt, later in time; it needs its explanation like any other.
    list.sort((a, b) => a.attempt - b.attempt || a.at - b.at);
    for (let i = 1; i < list.length; i++) {
      const prev = list[i - 1]!;
      const next = list[i]!;
      // The same attempt twice is a refund, which only a Postgres outage gives: a killed or
      // frozen worker's run is claimed again with its attempt counted.
      const refunded = prev.attempt === next.attempt;
      const why = explain(prev, next, input, refunded);
      if (why) explained[why] = (explained[why] ?? 0) + 1;
      else if (refunded)
        add(
          'unexplained-reexecution',
          `run of message ${prev.messageId} claimed twice as attempt ${prev.attempt} (pids ${prev.pid}, ${next.pid}) ` +
            `with no Postgres outage to explain a refunded hand-back` +
            notesOf(input, prev),
          prev.taskId,
        );
      else
        add(
          'unexplained-reexecution',
          `run of message ${prev.messageId} executed again by pid ${next.pid} (attempt ${next.attempt}, ${iso(next.at)}) ` +
            `after pid ${prev.pid} (attempt ${prev.attempt}, ${iso(prev.at)}) with no fault or lease loss to explain it` +
            notesOf(input, prev),
          prev.taskId,
        );
    }
  }
  // A worker that lost its task must not write after the new owner started (the lease fences it).
  const byExec = new Map(input.executions.map((e) => [e.execId, e]));
  const byTask = groupBy(input.executions, (e) => e.taskId);
  for (const [taskId, events] of eventsByTask) {
    const execs = byTask.get(taskId) ?? [];
    for (const event of events) {
      const writer = event.exec ? byExec.get(event.exec) : undefined;
      if (!writer) continue;
      const successor = execs.find((e) => follows(e, writer) && e.at < event.createdAt);
      if (successor)
        add(
          'write-after-takeover',
          `event ${event.seq} (${event.kind}) written by pid ${writer.pid} at ${iso(event.createdAt)}, ` +
            `after pid ${successor.pid} started the task at ${iso(successor.at)}`,
          taskId,
        );
    }
  }
  return explained;
}

/**
 * `later` took the task over from `earlier`: a later claim of the same run (a higher attempt, or
 * the same one after a refunded hand-back), or a later run.
 */
function follows(later: Execution, earlier: Execution): boolean {
  if (later.messageId !== earlier.messageId) return later.at > earlier.at;
  return later.attempt > earlier.attempt || (later.attempt === earlier.attempt && later.at > earlier.at);
}

function explain(prev: Execution, next: Execution, input: CheckInput, refundOnly = false): string | null {
  // prev may have recorded itself after next did (frozen before its agent started): the window
  // runs from the earlier of the two.
  const from = Math.min(prev.at, next.at) - SLACK_MS;
  const to = Math.max(prev.at, next.at) + SLACK_MS;
  const during = (f: Fault) => f.until >= from && f.at <= to;
  for (const f of input.faults) {
    if (refundOnly) break;
    if ((f.kind === 'kill-worker' || f.kind === 'freeze-worker') && f.pid === prev.pid && during(f))
      return f.kind;
  }
  if (input.faults.some((f) => f.kind === 'restart-postgres' && during(f))) return 'restart-postgres';
  if (
    input.faults.some(
      (f) => f.kind === 'freeze-postgres' && during(f) && f.until - f.at >= FREEZE_COSTS_LEASE_MS,
    )
  )
    return 'freeze-postgres';
  // What the earlier run's worker logged about it from its start until a lease after the takeover
  // (by then it has heard, at its next renewal): a note from another time explains nothing here.
  const notes = input.workerNotes.filter(
    (n) => n.pid === prev.pid && n.taskId === prev.taskId && n.at >= from && n.at <= to + LEASE_MS,
  );
  if (notes.some((n) => n.reason === 'lease-lost')) return 'lease lost (logged by the worker)';
  // A pooled connection that died with the server fails its next statement, possibly a while
  // after the restart, and a statement that outlived a freeze drops its connection: the run
  // fails and is retried, or handed back with its attempt refunded.
  const pgRestarts = input.faults.filter(
    (f) => f.kind === 'restart-postgres' || f.kind === 'freeze-postgres',
  );
  const lostConnection = notes.some(
    (n) =>
      // 'agent run failed', or its store-outage form (handed back with the attempt refunded).
      n.msg.startsWith('agent run failed') &&
      CONNECTION_ERROR.test(n.err ?? '') &&
      pgRestarts.some((f) => f.at <= n.at && f.until >= from - LEASE_MS),
  );
  return lostConnection ? 'a Postgres connection lost in the restart (logged by the worker)' : null;
}

/** What the earlier execution's worker logged about the task, for a closer look. */
function notesOf(input: CheckInput, e: Execution): string {
  const notes = input.workerNotes.filter((n) => n.pid === e.pid && n.taskId === e.taskId);
  return notes
    .map(
      (n) =>
        `; pid ${n.pid} logged at ${iso(n.at)} "${n.msg}"${n.reason ? ` (${n.reason})` : ''}${n.err ? `: ${n.err}` : ''}`,
    )
    .join('');
}

const iso = (ms: number) => new Date(ms).toISOString().slice(11, 23);
