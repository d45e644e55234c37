import type { CheckInput, CheckResult, StoredEvent, Violation, ViolationKind } from './check-types.ts';
import { checkDelivery } from './check-delivery.ts';
import { checkExecutions } from './check-executions.ts';
import { groupBy, INTERRUPTED, isSettledState, isTerminalState, range } from './check-util.ts';
import { artifactIdFor } from './plan.ts';

/**
 * Proves the platform's promises from what the run recorded (issue 8, fault-injection suite): no
 * task lost, one terminal state per task, no execution beyond the first unless a fault explains
 * it, no write from a worker after another took its task over, every chunk once, every push at
 * least once and in order, every resumed SSE client every event once.
 */
export function check(input: CheckInput): CheckResult {
  const violations: Violation[] = [];
  const add = (kind: ViolationKind, detail: string, taskId?: string) =>
    violations.push({ kind, detail, ...(taskId ? { taskId } : {}) });
  const eventsByTask = groupBy(input.events, (e) => e.taskId);
  for (const list of eventsByTask.values()) list.sort((a, b) => a.seq - b.seq);

  // A fault the platform must survive never takes a process down with it.
  for (const crash of input.crashes) add('process-crashed', crash.split('\n').slice(0, 4).join(' | '));
  checkSends(input, eventsByTask, add);
  checkOneTaskPerMessage(input, add);
  checkTerminals(input, eventsByTask, add);
  const reexecutions = checkExecutions(input, eventsByTask, add);
  checkChunks(input, add);
  checkPlannedChunks(input, add);
  checkDelivery(input, eventsByTask, add);

  const resumed = input.streams.filter((s) => s.resumes > 0);
  return {
    violations,
    reexecutions,
    stats: {
      sends: input.sends.length,
      accepted: input.sends.filter((s) => s.accepted).length,
      retriedSends: input.sends.filter((s) => s.attempts > 1).length,
      tasks: input.tasks.length,
      events: input.events.length,
      executions: input.executions.length,
      extraExecutions: Object.values(reexecutions).reduce((a, b) => a + b, 0),
      chunks: input.chunks.length,
      streams: input.streams.length,
      resumedStreams: resumed.length,
      resumes: input.streams.reduce((a, s) => a + s.resumes, 0),
      pushTasks: new Set(input.deliveries.map((d) => d.taskId)).size,
      pushesReceived: input.pushes.length,
      faults: input.faults.length,
    },
  };
}

type Add = (kind: ViolationKind, detail: string, taskId?: string) => void;

function checkSends(input: CheckInput, eventsByTask: Map<string, StoredEvent[]>, add: Add): void {
  const tasks = new Map(input.tasks.map((t) => [t.id, t]));
  for (const send of input.sends) {
    if (send.gaveUp)
      add('client-gave-up', `${send.scenario} ${send.messageId}: ${send.gaveUp}`, send.taskId ?? undefined);
    const taskId =
      input.messageTasks[send.messageId] ?? (send.kind === 'continuation' ? undefined : send.taskId);
    if (!taskId) {
      if (send.accepted)
        add(
          'task-lost',
          `${send.scenario} send ${send.messageId} was accepted but the store has no task for it`,
        );
      continue;
    }
    const task = tasks.get(taskId);
    if (!task) {
      add(
        'task-lost',
        `${send.scenario} send ${send.messageId} names task ${taskId}, which the store does not have`,
        taskId,
      );
      continue;
    }
    if (send.taskId && send.taskId !== taskId)
      add(
        'task-lost',
        `send ${send.messageId} was answered with task ${send.taskId} but is stored for ${taskId}`,
        taskId,
      );
    if (
      !isTerminalState(task.state) &&
      !(send.scenario === 'input-required' && send.kind === 'initial' && INTERRUPTED.has(task.state))
    ) {
      add('task-not-settled', `${send.scenario} task is ${task.state} after the run`, taskId);
      continue;
    }
    const expected =
      send.scenario === 'cancel'
        ? ['TASK_STATE_CANCELED', 'TASK_STATE_COMPLETED']
        : send.scenario === 'input-required' && send.kind === 'initial' && !isTerminalState(task.state)
          ? ['TASK_STATE_INPUT_REQUIRED']
          : ['TASK_STATE_COMPLETED'];
    if (!expected.includes(task.state))
      add(
        'unexpected-final-state',
        `${send.scenario} task ended ${task.state}, expected ${expected.join(' or ')}`,
        taskId,
      );
    const firstAnswer = send.message ? 'message' : send.taskId;
    if (send.duplicateAnswer && send.kind === 'initial' && send.duplicateAnswer !== firstAnswer)
      add(
        'idempotency-broken',
        `repeat of ${send.messageId} answered ${send.duplicateAnswer}, first ${firstAnswer}`,
        taskId,
      );
    // A cancel acknowledged as CANCELED is final: the task must not complete after all.
    if (send.cancelAnswer === 'TASK_STATE_CANCELED' && task.state !== 'TASK_STATE_CANCELED')
      add(
        'state-changed-after-client-saw-it',
        `CancelTask answered CANCELED, store has ${task.state}`,
        taskId,
      );
    // A run planned to ask for input did: its task passed through INPUT_REQUIRED.
    if (
      send.scenario === 'input-required' &&
      send.kind === 'initial' &&
      !(eventsByTask.get(taskId) ?? []).some((e) => e.state === 'TASK_STATE_INPUT_REQUIRED')
    )
      add('unexpected-final-state', `the input-required task never asked for input`, taskId);
    if (send.observedState && isTerminalState(send.observedState) && send.observedState !== task.state)
      add(
        'state-changed-after-client-saw-it',
        `client saw ${send.observedState}, store has ${task.state}`,
        taskId,
      );
  }
  // Work nobody is waiting for must still settle: a task left live is lost work.
  for (const task of input.tasks) {
    if (!isSettledState(task.state))
      add(
        'task-not-settled',
        `task is still ${task.state} (visibility ${task.visibility}) after the run`,
        task.id,
      );
  }
}

/**
 * A message creates at most one task: a retried send whose first answer was lost must find the
 * task the first attempt created. A second task for it is invisible to the other checks (the key
 * and the client both name the second), so the histories are searched for every task holding it.
 */
function checkOneTaskPerMessage(input: CheckInput, add: Add): void {
  for (const [messageId, taskIds] of Object.entries(input.messageTaskIds))
    if (taskIds.length > 1)
      add(
        'idempotency-broken',
        `message ${messageId} is in ${taskIds.length} tasks: ${taskIds.join(', ')}`,
        taskIds[0],
      );
}

function checkTerminals(input: CheckInput, eventsByTask: Map<string, StoredEvent[]>, add: Add): void {
  // The row and its log are written in one transaction: a terminal row whose log ends in another
  // state (or none), or a log with a hole, lost a write the other checks read through the log.
  for (const task of input.tasks) {
    const events = eventsByTask.get(task.id) ?? [];
    const holes = range(1, Math.max(0, ...events.map((e) => e.seq))).filter(
      (seq) => !events.some((e) => e.seq === seq),
    );
    if (holes.length) add('event-log-gap', `the event log lacks seqs ${holes.join(',')}`, task.id);
    const lastState = events.findLast((e) => e.state !== null)?.state;
    const endsWithReply = events.at(-1)?.kind === 'message';
    if (isTerminalState(task.state) && !endsWithReply && lastState !== task.state)
      add('state-diverged', `the row is ${task.state}, its log's last state ${lastState ?? 'none'}`, task.id);
  }
  for (const [taskId, events] of eventsByTask) {
    const terminal = events.filter((e) => isTerminalState(e.state) || e.kind === 'message');
    if (terminal.length > 1)
      add(
        'two-terminal-states',
        `terminal events at seqs ${terminal.map((e) => `${e.seq}:${e.state ?? e.kind}`).join(', ')}`,
        taskId,
      );
    const first = terminal[0];
    const after = first ? events.filter((e) => e.seq > first.seq) : [];
    if (after.length > 0)
      add(
        'event-after-terminal',
        `events ${after.map((e) => e.seq).join(',')} after the terminal event ${first!.seq}`,
        taskId,
      );
  }
}

/**
 * A completed task has every chunk its completing run planned. The check above sees only artifacts
 * with at least one stored chunk: a run that completed with none of them would pass it.
 */
function checkPlannedChunks(input: CheckInput, add: Add): void {
  const tasks = new Map(input.tasks.map((t) => [t.id, t]));
  const stored = groupBy(input.chunks, (c) => `${c.taskId} ${c.artifactId}`);
  for (const send of input.sends) {
    if (!send.accepted || send.message || send.plannedChunks === 0) continue;
    const taskId = input.messageTasks[send.messageId];
    if (!taskId || tasks.get(taskId)?.state !== 'TASK_STATE_COMPLETED') continue;
    const artifactId = artifactIdFor(send.messageId);
    const chunks = new Set((stored.get(`${taskId} ${artifactId}`) ?? []).map((c) => c.chunk));
    const missing = range(1, send.plannedChunks).filter((k) => !chunks.has(k));
    if (missing.length)
      add(
        'chunk-missing',
        `${artifactId} of the completed task lacks chunks ${missing.join(',')} of the ${send.plannedChunks} planned`,
        taskId,
      );
  }
}

function checkChunks(input: CheckInput, add: Add): void {
  const byArtifact = groupBy(input.chunks, (c) => `${c.taskId} ${c.artifactId}`);
  const tasks = new Map(input.tasks.map((t) => [t.id, t]));
  for (const list of byArtifact.values()) {
    const { taskId, artifactId } = list[0]!;
    const seen = new Map<number, number>();
    for (const c of list) if (c.chunk !== null) seen.set(c.chunk, (seen.get(c.chunk) ?? 0) + 1);
    for (const [k, n] of seen)
      if (n > 1) add('chunk-duplicated', `${artifactId} chunk ${k} stored ${n} times`, taskId);
    // A completed task has all its chunks; a canceled one may stop early, but never skip one.
    const completed = tasks.get(taskId)?.state === 'TASK_STATE_COMPLETED';
    const last = completed ? Math.max(0, ...list.map((c) => c.of ?? 0)) : Math.max(0, ...seen.keys());
    const missing = range(1, last).filter((k) => !seen.has(k));
    if (missing.length)
      add('chunk-missing', `${artifactId} lacks chunks ${missing.join(',')} of ${last}`, taskId);
  }
}
