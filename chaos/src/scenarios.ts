import { randomUUID } from 'node:crypto';
import { restGetTask, rpc, TASK_NOT_CANCELABLE, type Endpoint } from './a2a-http.ts';
import type { Scenario, SendRecord } from './check-types.ts';
import { isSettledState, isTerminalState } from './check-util.ts';
import { sleep } from './free-port.ts';
import { encodePlan, type Plan } from './plan.ts';
import { GaveUpError, retrying, tally, type ClientDeps } from './retrying.ts';

export interface WorkloadDeps extends ClientDeps {
  sends: SendRecord[];
  /** Push webhook URL of the run's receiver. */
  webhookUrl: string;
}

interface TaskView {
  id: string;
  status: { state: string };
}
type SendAnswer = { task?: TaskView; message?: { messageId: string } };

const UNARY_TIMEOUT_MS = 15_000;

/**
 * Sends one message, retried with the same messageId until answered. Sometimes the client sends
 * it once more after the answer (a duplicate submission) and records what the repeat named.
 */
export async function send(
  d: WorkloadDeps,
  scenario: Scenario,
  plan: Plan,
  configuration: Record<string, unknown>,
  taskId?: string,
): Promise<{ record: SendRecord; answer: SendAnswer | null }> {
  const messageId = randomUUID();
  const record: SendRecord = {
    scenario,
    messageId,
    taskId: taskId ?? null,
    kind: taskId ? 'continuation' : 'initial',
    accepted: false,
    attempts: 0,
    plannedChunks: plan.ask || plan.reply ? 0 : plan.chunks,
  };
  d.sends.push(record);
  const message = {
    messageId,
    role: 'ROLE_USER',
    parts: [{ text: encodePlan(plan) }],
    ...(taskId ? { taskId } : {}),
  };
  const call = (ep: Endpoint) =>
    rpc<SendAnswer>(ep, 'SendMessage', { message, configuration }, UNARY_TIMEOUT_MS);
  try {
    const answer = await retrying(d, 'SendMessage', call, { onAttempt: () => record.attempts++ });
    record.accepted = true;
    if (answer.message) record.message = true;
    if (answer.task) record.taskId = answer.task.id;
    if (d.rng.chance(0.15)) {
      const again = await retrying(d, 'SendMessage (duplicate)', call, {
        onAttempt: () => record.attempts++,
      });
      record.duplicateAnswer = again.task?.id ?? (again.message ? 'message' : 'nothing');
    }
    return { record, answer };
  } catch (err) {
    record.gaveUp = err instanceof Error ? err.message : String(err);
    return { record, answer: null };
  }
}

/** Polls GetTask until `done(state)`; records the state the client last read. */
export async function pollTask(
  d: WorkloadDeps,
  record: SendRecord,
  taskId: string,
  done: (state: string) => boolean = isTerminalState,
): Promise<string | null> {
  const deadline = Date.now() + 2 * d.requestBudgetMs;
  while (Date.now() < deadline) {
    try {
      // Either binding: a task is the same task through JSON-RPC and HTTP+JSON, on any gateway.
      const task = await retrying(d, 'GetTask', async (ep) => {
        const rest = d.rng.chance(0.5);
        const answer = rest
          ? await restGetTask<TaskView>(ep, taskId, UNARY_TIMEOUT_MS)
          : await rpc<TaskView>(ep, 'GetTask', { id: taskId }, UNARY_TIMEOUT_MS);
        tally(d, rest ? 'GetTask (HTTP+JSON)' : 'GetTask (JSON-RPC)');
        return answer;
      });
      if (done(task.status.state)) {
        record.observedState = task.status.state;
        return task.status.state;
      }
    } catch (err) {
      if (err instanceof GaveUpError) break;
    }
    await sleep(100 + d.rng.next() * 200);
  }
  record.gaveUp ??= `task ${taskId} did not settle while the client waited`;
  return null;
}

const smallPlan = (d: WorkloadDeps): Plan => ({ chunks: d.rng.int(1, 3), stepMs: d.rng.int(10, 80) });

export async function blocking(d: WorkloadDeps): Promise<void> {
  const { record, answer } = await send(d, 'blocking', smallPlan(d), {});
  if (answer?.task && !isTerminalState(answer.task.status.state)) await pollTask(d, record, answer.task.id);
  else if (answer?.task) record.observedState = answer.task.status.state;
}

export async function nonBlocking(
  d: WorkloadDeps,
  scenario: 'nonblocking' | 'push' = 'nonblocking',
): Promise<void> {
  const push =
    scenario === 'push' ? { taskPushNotificationConfig: { url: d.webhookUrl, token: 'chaos-token' } } : {};
  const { record, answer } = await send(d, scenario, smallPlan(d), { returnImmediately: true, ...push });
  if (answer?.task) await pollTask(d, record, answer.task.id);
}

export async function inputRequired(d: WorkloadDeps): Promise<void> {
  const first = await send(d, 'input-required', { ...smallPlan(d), ask: true }, { returnImmediately: true });
  const taskId = first.answer?.task?.id;
  if (!taskId) return;
  const state = await pollTask(d, first.record, taskId, isSettledState);
  if (state !== 'TASK_STATE_INPUT_REQUIRED') return;
  const next = await send(d, 'input-required', smallPlan(d), {}, taskId);
  if (next.answer) await pollTask(d, next.record, taskId);
}

export async function cancel(d: WorkloadDeps): Promise<void> {
  const { record, answer } = await send(d, 'cancel', { chunks: 8, stepMs: 250 }, { returnImmediately: true });
  const taskId = answer?.task?.id;
  if (!taskId) return;
  await sleep(d.rng.int(100, 1500));
  try {
    const canceled = await retrying(
      d,
      'CancelTask',
      (ep) => rpc<TaskView>(ep, 'CancelTask', { id: taskId }, UNARY_TIMEOUT_MS),
      { definitive: [TASK_NOT_CANCELABLE] },
    );
    record.cancelAnswer = canceled.status.state;
  } catch (err) {
    if (err instanceof GaveUpError) record.gaveUp = err.message;
  }
  await pollTask(d, record, taskId);
}

export async function reply(d: WorkloadDeps): Promise<void> {
  const { record, answer } = await send(d, 'reply', { chunks: 0, stepMs: 0, reply: true }, {});
  // Past the quick-reply window (a slow worker, a fault) the reply completes a visible Task.
  if (answer?.task) await pollTask(d, record, answer.task.id);
}
