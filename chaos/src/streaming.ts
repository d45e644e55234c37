import { randomUUID } from 'node:crypto';
import { sse, sseRest, RpcError } from './a2a-http.ts';
import type { SendRecord, StreamSession } from './check-types.ts';
import { isSettledState } from './check-util.ts';
import { sleep } from './free-port.ts';
import { encodePlan } from './plan.ts';
import { tally } from './retrying.ts';
import type { WorkloadDeps } from './scenarios.ts';

export interface StreamingDeps extends WorkloadDeps {
  streams: StreamSession[];
}

interface StreamResult {
  task?: { id: string; status: { state: string } };
  message?: { messageId: string };
  statusUpdate?: { taskId: string; status: { state: string } };
}

/**
 * SendStreamingMessage, dropped on purpose after a few events and resumed with SubscribeToTask
 * and Last-Event-ID on a random gateway, as after any break (a killed gateway, a dead socket),
 * until a final event. Before the first event the send itself is retried with the same messageId.
 */
export async function streaming(d: StreamingDeps): Promise<void> {
  const messageId = randomUUID();
  const plan = { chunks: d.rng.int(3, 6), stepMs: d.rng.int(60, 150) };
  const message = { messageId, role: 'ROLE_USER', parts: [{ text: encodePlan(plan) }] };
  const record: SendRecord = {
    scenario: 'streaming',
    messageId,
    taskId: null,
    kind: 'initial',
    accepted: false,
    attempts: 0,
    plannedChunks: plan.chunks,
  };
  const session: StreamSession = {
    taskId: null,
    messageId,
    ids: [],
    finished: false,
    connections: 0,
    resumes: 0,
  };
  d.sends.push(record);
  d.streams.push(session);
  let dropsLeft = d.rng.int(0, 2);
  const deadline = Date.now() + 2 * d.requestBudgetMs;
  for (let attempt = 0; !session.finished && Date.now() < deadline; attempt++) {
    const endpoint = d.rng.pick(d.endpoints);
    const stop = new AbortController();
    const last = session.ids.at(-1);
    const resume = session.taskId !== null && last !== undefined;
    // A resume goes to any gateway and either binding: event ids are the task's, not the connection's.
    const options = { lastEventId: last, idleMs: 10_000, signal: stop.signal };
    const binding = resume && d.rng.chance(0.5) ? 'HTTP+JSON' : 'JSON-RPC';
    const events = !resume
      ? sse(endpoint, 'SendStreamingMessage', { message }, { idleMs: 10_000, signal: stop.signal })
      : binding === 'HTTP+JSON'
        ? sseRest(endpoint, session.taskId!, options)
        : sse(endpoint, 'SubscribeToTask', { id: session.taskId }, options);
    const call = resume ? `SubscribeToTask + Last-Event-ID (${binding})` : 'SendStreamingMessage (JSON-RPC)';
    session.connections++;
    if (resume) session.resumes++;
    else record.attempts++;
    const dropAfter = dropsLeft > 0 ? d.rng.int(1, 3) : Infinity;
    let received = 0;
    try {
      for await (const event of events) {
        if (received === 0) tally(d, call);
        const result = event.data as StreamResult;
        if (event.id !== null) session.ids.push(event.id);
        record.accepted = true;
        if (result.task) session.taskId = record.taskId = result.task.id;
        const state = result.task?.status.state ?? result.statusUpdate?.status.state;
        if (result.message || isSettledState(state)) {
          session.finished = true;
          record.message = !!result.message;
          if (state) record.observedState = state;
          break;
        }
        if (++received >= dropAfter) {
          dropsLeft--;
          break;
        }
      }
    } catch (err) {
      if (err instanceof RpcError && !resume && session.ids.length === 0 && err.code === -32602) {
        record.gaveUp = err.message;
        return;
      }
      await sleep(d.rng.next() * Math.min(1000, 50 * 2 ** attempt));
    } finally {
      stop.abort();
    }
  }
  if (!session.finished) record.gaveUp = `stream of ${messageId} never reached a final event`;
}
