import { describe, expect, it } from 'vitest';
import type { CheckInput, ViolationKind } from '../src/check-types.ts';
import { check } from '../src/checker.ts';

// The checker is only worth its report if it sees each kind of violation: every test below breaks
// one promise in hand-made data and expects exactly that violation; the clean run expects none.
const T = '11111111-1111-4111-8111-111111111111';
const M = 'msg-1';
const t0 = Date.parse('2026-01-01T00:00:00Z');

function clean(): CheckInput {
  const exec = 'exec-a';
  return {
    sends: [
      {
        scenario: 'push',
        messageId: M,
        taskId: T,
        kind: 'initial',
        accepted: true,
        attempts: 2,
        observedState: 'TASK_STATE_COMPLETED',
        plannedChunks: 2,
      },
    ],
    streams: [{ taskId: T, messageId: M, ids: [1, 2, 3, 4, 5], finished: true, connections: 2, resumes: 1 }],
    pushes: [1, 2, 2, 3, 4, 5].map((seq, i) => ({ taskId: T, configId: 'c', seq, at: t0 + i })),
    faults: [],
    workerNotes: [],
    crashes: [],
    tasks: [{ id: T, state: 'TASK_STATE_COMPLETED', visibility: 'task', version: 5 }],
    messageTasks: { [M]: T },
    messageTaskIds: { [M]: [T] },
    events: [
      { taskId: T, seq: 1, kind: 'task', state: 'TASK_STATE_SUBMITTED', exec: null, createdAt: t0 },
      {
        taskId: T,
        seq: 2,
        kind: 'statusUpdate',
        state: 'TASK_STATE_WORKING',
        exec: null,
        createdAt: t0 + 10,
      },
      { taskId: T, seq: 3, kind: 'artifactUpdate', state: null, exec, createdAt: t0 + 20 },
      { taskId: T, seq: 4, kind: 'artifactUpdate', state: null, exec, createdAt: t0 + 30 },
      { taskId: T, seq: 5, kind: 'statusUpdate', state: 'TASK_STATE_COMPLETED', exec, createdAt: t0 + 40 },
    ],
    chunks: [
      { taskId: T, seq: 3, artifactId: 'out-msg-1', chunk: 1, of: 2 },
      { taskId: T, seq: 4, artifactId: 'out-msg-1', chunk: 2, of: 2 },
    ],
    executions: [{ execId: exec, taskId: T, messageId: M, attempt: 1, pid: 100, at: t0 + 15 }],
    deliveries: [1, 2, 3, 4, 5].map((seq) => ({ taskId: T, configId: 'c', seq, status: 'delivered' })),
  };
}

function kinds(input: CheckInput): ViolationKind[] {
  return check(input).violations.map((v) => v.kind);
}

/** A second execution of the same run, by pid 200. */
function rerun(input: CheckInput, { attempt = 2, at = t0 + 25 } = {}): CheckInput {
  input.executions.push({ execId: 'exec-b', taskId: T, messageId: M, attempt, pid: 200, at });
  return input;
}

describe('the chaos checker', () => {
  it('passes a clean run', () => {
    expect(check(clean()).violations).toEqual([]);
  });

  it('detects an accepted send without a task, and a task left running', () => {
    const lost = clean();
    lost.messageTasks = {};
    lost.sends[0]!.taskId = null;
    expect(kinds(lost)).toEqual(['task-lost']);
    const live = clean();
    live.tasks[0]!.state = 'TASK_STATE_WORKING';
    expect(kinds(live)).toContain('task-not-settled');
  });

  it('detects a wrong final state and a state that changed after the client read it', () => {
    const failed = clean();
    failed.tasks[0]!.state = 'TASK_STATE_FAILED';
    failed.events[4]!.state = 'TASK_STATE_FAILED';
    expect(kinds(failed)).toEqual(['unexpected-final-state', 'state-changed-after-client-saw-it']);
  });

  it('detects two terminal states and events after the terminal one', () => {
    const input = clean();
    input.events.push({
      taskId: T,
      seq: 6,
      kind: 'statusUpdate',
      state: 'TASK_STATE_CANCELED',
      exec: null,
      createdAt: t0 + 50,
    });
    input.deliveries.push({ taskId: T, configId: 'c', seq: 6, status: 'delivered' });
    input.pushes.push({ taskId: T, configId: 'c', seq: 6, at: t0 + 60 });
    // The row keeps one of the two: its log ends with the other.
    expect(kinds({ ...input, streams: [] })).toEqual([
      'state-diverged',
      'two-terminal-states',
      'event-after-terminal',
    ]);
  });

  it('detects a re-execution no fault explains, and accepts one a fault explains', () => {
    // pid 100 also wrote seqs 4 and 5 after pid 200 had started.
    expect(kinds(rerun(clean()))).toEqual([
      'unexplained-reexecution',
      'write-after-takeover',
      'write-after-takeover',
    ]);
    const killed = rerun(clean());
    killed.faults.push({ kind: 'kill-worker', pid: 100, at: t0 + 20, until: t0 + 20 });
    // The killed worker's events were written before the successor started, except the last two.
    killed.events = killed.events.filter((e) => e.seq < 4);
    killed.events.forEach((e) => (e.createdAt = Math.min(e.createdAt, t0 + 20)));
    killed.chunks = killed.chunks.slice(0, 1);
    killed.tasks[0]!.state = 'TASK_STATE_COMPLETED';
    const result = check({ ...killed, streams: [], deliveries: [], pushes: [] });
    expect(result.reexecutions).toEqual({ 'kill-worker': 1 });
    // What this hand-made case leaves out (the successor's own events and chunks, the outbox)
    // shows as such; no re-execution is reported.
    expect(result.violations.map((v) => v.kind)).toEqual([
      'state-diverged',
      'chunk-missing',
      'chunk-missing',
      'push-missing',
    ]);
    const pgDown = rerun(clean(), { at: t0 + 45 });
    pgDown.faults.push({ kind: 'restart-postgres', at: t0 + 30, until: t0 + 44 });
    expect(check(pgDown).reexecutions).toEqual({ 'restart-postgres': 1 });
    expect(kinds(pgDown)).toEqual([]);
    const pgFrozen = rerun(clean(), { at: t0 + 45 });
    pgFrozen.faults.push({ kind: 'freeze-postgres', at: t0 - 3000, until: t0 + 44 });
    expect(check(pgFrozen).reexecutions).toEqual({ 'freeze-postgres': 1 });
    expect(kinds(pgFrozen)).toEqual([]);
    // A freeze too short to cost a lease fails no statement and takes no lease: it explains nothing.
    const briefFreeze = rerun(clean(), { at: t0 + 45 });
    briefFreeze.faults.push({ kind: 'freeze-postgres', at: t0 + 30, until: t0 + 330 });
    expect(kinds(briefFreeze)).toContain('unexplained-reexecution');
    const noted = rerun(clean(), { at: t0 + 45 });
    noted.workerNotes.push({
      pid: 100,
      taskId: T,
      msg: 'agent run stopped',
      reason: 'lease-lost',
      at: t0 + 42,
    });
    expect(kinds(noted)).toEqual([]);
    // The same note logged long after the takeover is about something else.
    const lateNote = rerun(clean(), { at: t0 + 45 });
    lateNote.workerNotes.push({
      pid: 100,
      taskId: T,
      msg: 'agent run stopped',
      reason: 'lease-lost',
      at: t0 + 60_000,
    });
    expect(kinds(lateNote)).toContain('unexplained-reexecution');
  });

  it('detects two claims of the same attempt, unless a Postgres outage explains a refunded hand-back', () => {
    // A killed worker's run is claimed again with its attempt counted: no refund to explain it.
    const input = rerun(clean(), { attempt: 1, at: t0 + 45 });
    input.faults.push({ kind: 'kill-worker', pid: 100, at: t0 + 41, until: t0 + 41 });
    expect(kinds(input)).toEqual(['unexplained-reexecution']);
    // The runner hands a run Postgres's restart ended back with its attempt refunded.
    const refunded = rerun(clean(), { attempt: 1, at: t0 + 45 });
    refunded.faults.push({ kind: 'restart-postgres', at: t0 + 30, until: t0 + 44 });
    expect(check(refunded).reexecutions).toEqual({ 'restart-postgres': 1 });
    expect(kinds(refunded)).toEqual([]);
  });

  it('sees a write after a refunded hand-back took over (the same attempt, later)', () => {
    // pid 100 wrote seqs 4 and 5 after pid 200 had started as the same attempt.
    const input = rerun(clean(), { attempt: 1, at: t0 + 25 });
    input.faults.push({ kind: 'restart-postgres', at: t0 + 20, until: t0 + 24 });
    expect(check(input).violations.map((v) => v.kind)).toEqual([
      'write-after-takeover',
      'write-after-takeover',
    ]);
  });

  it('detects a frozen worker writing after its successor started, even when the rerun is explained', () => {
    const input = rerun(clean(), { at: t0 + 25 });
    input.faults.push({ kind: 'freeze-worker', pid: 100, at: t0 + 16, until: t0 + 35 });
    const result = check(input);
    expect(result.reexecutions).toEqual({ 'freeze-worker': 1 });
    expect(result.violations.map((v) => [v.kind, v.detail.slice(0, 8)])).toEqual([
      ['write-after-takeover', 'event 4 '],
      ['write-after-takeover', 'event 5 '],
    ]);
  });

  it('orders a run by attempt: a worker frozen before its agent started records itself last', () => {
    const input = clean();
    input.executions[0]!.attempt = 2;
    input.executions.push({
      execId: 'exec-stale',
      taskId: T,
      messageId: M,
      attempt: 1,
      pid: 300,
      at: t0 + 60,
    });
    input.faults.push({ kind: 'freeze-worker', pid: 300, at: t0 - 100, until: t0 + 55 });
    expect(kinds(input)).toEqual([]);
  });

  it('detects a duplicated and a missing chunk', () => {
    const dup = clean();
    dup.chunks.push({ taskId: T, seq: 6, artifactId: 'out-msg-1', chunk: 2, of: 2 });
    expect(kinds(dup)).toEqual(['chunk-duplicated']);
    const missing = clean();
    missing.chunks = missing.chunks.slice(0, 1);
    // Seen twice: a gap in the stored chunks, and short of the plan.
    expect(kinds(missing)).toEqual(['chunk-missing', 'chunk-missing']);
    // None stored at all: only the plan shows what the completed task lacks.
    const none = clean();
    none.chunks = [];
    expect(kinds(none)).toEqual(['chunk-missing']);
  });

  it('detects a push never received, received out of order, or left undelivered', () => {
    const missing = clean();
    missing.pushes = missing.pushes.filter((p) => p.seq !== 3);
    expect(kinds(missing)).toEqual(['push-missing']);
    const disordered = clean();
    disordered.pushes = [1, 3, 2, 4, 5].map((seq, i) => ({ taskId: T, configId: 'c', seq, at: t0 + i }));
    expect(kinds(disordered)).toEqual(['push-out-of-order']);
    const dead = clean();
    dead.deliveries[4]!.status = 'dead';
    expect(kinds(dead)).toEqual(['push-not-delivered']);
    const noFinal = clean();
    noFinal.deliveries = noFinal.deliveries.slice(0, 4);
    expect(check(noFinal).violations.map((v) => v.detail)).toEqual([
      'config c: events 5 have no delivery row',
      'config c: no delivery of the final TASK_STATE_COMPLETED (seq 5)',
    ]);
    // An event in the middle that was never queued, and a push task with no outbox rows at all.
    const unqueued = clean();
    unqueued.deliveries = unqueued.deliveries.filter((d) => d.seq !== 3);
    unqueued.pushes = unqueued.pushes.filter((p) => p.seq !== 3);
    expect(kinds(unqueued)).toEqual(['push-missing']);
    const noRows = clean();
    noRows.deliveries = [];
    noRows.pushes = [];
    expect(check(noRows).violations.map((v) => v.detail)).toEqual(['push task has no deliveries at all']);
  });

  it('detects a cancel acknowledged as CANCELED that completed after all, and an input-required task that never asked', () => {
    const acked = clean();
    acked.sends[0]!.scenario = 'cancel';
    acked.sends[0]!.cancelAnswer = 'TASK_STATE_CANCELED';
    expect(kinds(acked)).toEqual(['state-changed-after-client-saw-it']);
    const neverAsked = clean();
    neverAsked.sends[0]!.scenario = 'input-required';
    expect(check(neverAsked).violations.map((v) => v.detail)).toEqual([
      'the input-required task never asked for input',
    ]);
  });

  it('detects a terminal row its log does not end with, and a hole in the log', () => {
    const diverged = clean();
    diverged.events[4]!.state = 'TASK_STATE_WORKING';
    expect(kinds(diverged)).toContain('state-diverged');
    const holed = clean();
    holed.events = holed.events.filter((e) => e.seq !== 2);
    expect(kinds({ ...holed, streams: [] })).toEqual(['event-log-gap']);
  });

  it('detects a message that created a second task (its first answer lost, the retry not matched)', () => {
    const twice = clean();
    const second = '22222222-2222-4222-8222-222222222222';
    twice.tasks.push({ id: second, state: 'TASK_STATE_COMPLETED', visibility: 'task', version: 1 });
    twice.events.push({
      taskId: second,
      seq: 1,
      kind: 'task',
      state: 'TASK_STATE_COMPLETED',
      exec: null,
      createdAt: t0,
    });
    twice.messageTaskIds[M] = [T, second];
    expect(kinds(twice)).toEqual(['idempotency-broken']);
  });

  it('detects an SSE client that got an event twice, missed one, got them out of order, or never finished', () => {
    const variants: Array<[number[], boolean, ViolationKind[]]> = [
      [[1, 2, 3, 3, 4, 5], true, ['sse-duplicate']],
      [[1, 2, 4, 5], true, ['sse-gap']],
      [[1, 3, 2, 4, 5], true, ['sse-out-of-order']],
      [[1, 2, 3], false, ['sse-unfinished']],
    ];
    for (const [ids, finished, expected] of variants) {
      const input = clean();
      input.streams[0] = { ...input.streams[0]!, ids, finished };
      expect(kinds(input)).toEqual(expected);
    }
  });

  it('detects a repeated send answered with another task, a crashed process and a client that gave up', () => {
    const input = clean();
    input.sends[0]!.duplicateAnswer = '22222222-2222-4222-8222-222222222222';
    expect(kinds(input)).toEqual(['idempotency-broken']);
    const crashed = clean();
    crashed.crashes.push('worker-1-g1 (pid 7) exited 1:\nError: read ECONNRESET');
    expect(kinds(crashed)).toEqual(['process-crashed']);
    const gaveUp = clean();
    gaveUp.sends[0]!.gaveUp = 'GetTask: fetch failed';
    expect(kinds(gaveUp)).toEqual(['client-gave-up']);
  });
});
