import type { CheckInput, StoredEvent, ViolationKind } from './check-types.ts';
import { groupBy, isSettledState, isTerminalState } from './check-util.ts';

type Add = (kind: ViolationKind, detail: string, taskId?: string) => void;

/** Push (at least once, in order per task) and SSE (every event once after a resume). */
export function checkDelivery(input: CheckInput, eventsByTask: Map<string, StoredEvent[]>, add: Add): void {
  checkPushes(input, eventsByTask, add);
  checkStreams(input, eventsByTask, add);
}

function checkPushes(input: CheckInput, eventsByTask: Map<string, StoredEvent[]>, add: Add): void {
  const received = groupBy(input.pushes, (p) => `${p.taskId} ${p.configId}`);
  // The outbox is the platform's own record: a push task with no rows at all would pass every
  // check below. Each task a push send created has some.
  const withRows = new Set(input.deliveries.map((d) => d.taskId));
  for (const send of input.sends) {
    const taskId = input.messageTasks[send.messageId];
    if (send.scenario !== 'push' || !send.accepted || send.message || !taskId) continue;
    if (!withRows.has(taskId)) add('push-missing', `push task has no deliveries at all`, taskId);
  }
  for (const rows of groupBy(input.deliveries, (d) => `${d.taskId} ${d.configId}`).values()) {
    const { taskId, configId } = rows[0]!;
    // Once a config is registered, every event of the task is one delivery (in the same
    // transaction): an event from the first delivery on without a row was never going to be sent.
    const from = Math.min(...rows.map((d) => d.seq));
    const rowSeqs = new Set(rows.map((d) => d.seq));
    const unqueued = (eventsByTask.get(taskId) ?? [])
      .map((e) => e.seq)
      .filter((seq) => seq >= from && !rowSeqs.has(seq));
    if (unqueued.length)
      add('push-missing', `config ${configId}: events ${unqueued.join(',')} have no delivery row`, taskId);
    const undelivered = rows.filter((d) => d.status !== 'delivered');
    if (undelivered.length)
      add(
        'push-not-delivered',
        `config ${configId}: seqs ${undelivered.map((d) => `${d.seq}:${d.status}`).join(',')}`,
        taskId,
      );
    const firstSeen: number[] = [];
    for (const p of received.get(`${taskId} ${configId}`) ?? [])
      if (!firstSeen.includes(p.seq)) firstSeen.push(p.seq);
    const expected = rows.map((d) => d.seq).sort((a, b) => a - b);
    const missing = expected.filter((seq) => !firstSeen.includes(seq));
    if (missing.length)
      add('push-missing', `config ${configId}: seqs ${missing.join(',')} never reached the receiver`, taskId);
    const outOfOrder = firstSeen.some((seq, i) => i > 0 && seq < firstSeen[i - 1]!);
    if (outOfOrder)
      add('push-out-of-order', `config ${configId}: first seen in order ${firstSeen.join(',')}`, taskId);
    // The final state must be among the deliveries: a receiver must learn that the task ended.
    const final = (eventsByTask.get(taskId) ?? []).findLast((e) => isSettledState(e.state));
    if (final && isTerminalState(final.state) && !expected.includes(final.seq))
      add(
        'push-missing',
        `config ${configId}: no delivery of the final ${final.state} (seq ${final.seq})`,
        taskId,
      );
  }
}

function checkStreams(input: CheckInput, eventsByTask: Map<string, StoredEvent[]>, add: Add): void {
  for (const s of input.streams) {
    const label = `stream of ${s.messageId} (${s.connections} connections, ${s.resumes} resumes)`;
    if (!s.finished) {
      add(
        'sse-unfinished',
        `${label} never received a final event (ids ${s.ids.join(',')})`,
        s.taskId ?? undefined,
      );
      continue;
    }
    const dup = s.ids.filter((id, i) => s.ids.indexOf(id) !== i);
    if (dup.length)
      add(
        'sse-duplicate',
        `${label}: ids ${[...new Set(dup)].join(',')} received twice`,
        s.taskId ?? undefined,
      );
    if (s.ids.some((id, i) => i > 0 && id < s.ids[i - 1]!))
      add('sse-out-of-order', `${label}: ids in arrival order ${s.ids.join(',')}`, s.taskId ?? undefined);
    if (!s.taskId || s.ids.length === 0) continue;
    // After the first event (the snapshot, or the Message reply), every later event up to the
    // final one, exactly as the log has it.
    const first = s.ids[0]!;
    const last = Math.max(...s.ids);
    const logged = (eventsByTask.get(s.taskId) ?? [])
      .map((e) => e.seq)
      .filter((seq) => seq > first && seq <= last);
    const gaps = logged.filter((seq) => !s.ids.includes(seq));
    if (gaps.length)
      add('sse-gap', `${label}: never received seqs ${gaps.join(',')} (got ${s.ids.join(',')})`, s.taskId);
  }
}
