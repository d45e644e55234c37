import { randomUUID } from 'node:crypto';
import {
  invalidParams,
  isInterrupted,
  isTerminal,
  taskNotFound,
  TaskState,
  unsupportedOperation,
  type Message,
  type SendMessageRequest,
} from '@switchyard/protocol';
import {
  isConflict,
  isPushConfigLimit,
  isRedactedSecret,
  jsonBytes,
  type Caller,
  type NewPushConfig,
  type TaskRecord,
} from '@switchyard/store';
import type { BacklogSlot } from '@switchyard/queue';
import { traceContextToCarry, type TraceCarrier } from '@switchyard/telemetry';
import type { AgentRegistration } from '../ports.ts';
import { statusEvent } from '../task-events.ts';
import { canSee } from './access.ts';
import { checkContentTypes } from './content-types.ts';
import {
  placeholderRefused,
  pushConfigLimitReached,
  refusePlaceholderOnNewTask,
} from './push-config-operations.ts';
import { hasPushConfig, messageIdReused, sameMessage } from './retry-check.ts';
import type { ServiceDeps } from './service-deps.ts';

/** What accepting a message did: the task as committed, and whether a run must be dispatched. */
export interface Accepted {
  record: TaskRecord;
  dispatch: boolean;
  /**
   * Set when this call created the task: its whole history is the one message just stored and it
   * has no artifacts yet, so its view needs no read.
   */
  createdWith?: Message;
  /** The new task's dispatch, counted in while it committed (Dispatcher.reserve). */
  slot?: BacklogSlot;
}

/**
 * Step 2 of ARCHITECTURE.md §4: in one transaction, either create the task (messageId
 * idempotency) or continue an interrupted one. Every check that can fail runs before any write,
 * so bad input changes nothing.
 */
export async function acceptMessage(
  deps: ServiceDeps,
  caller: Caller,
  agent: AgentRegistration,
  request: SendMessageRequest,
  pushConfig: NewPushConfig | undefined,
  /** The caller's own trace context, kept on the task when tracing is off here. */
  callerTrace: TraceCarrier = {},
): Promise<Accepted> {
  const { message } = request;
  checkContentTypes(message, agent.card);
  if (message.taskId) return continueTask(deps, caller, agent, request, pushConfig);
  if (pushConfig) refusePlaceholderOnNewTask(pushConfig, 'configuration.taskPushNotificationConfig');

  const contextId = message.contextId ?? randomUUID();
  const id = randomUUID();
  const returnImmediately = request.configuration?.returnImmediately === true;
  // A request sent with returnImmediately is always answered with a Task (ARCHITECTURE.md §5).
  const visibility = returnImmediately ? 'task' : 'pending';
  const storedMessage = { ...message, contextId, taskId: id };
  // A first message past the history limit would make a task no answer could ever continue.
  refuseOverHistoryLimit(deps, jsonBytes(storedMessage), 'message');
  // Its place in the fair order is asked for while the task commits (TaskQueue.reserve).
  const slot = deps.dispatcher.reserve?.(caller.tenantId);
  const result = await deps.writer.create({
    tenantId: caller.tenantId,
    id,
    contextId,
    agentId: agent.id,
    owner: caller.principal,
    visibility,
    message: storedMessage,
    // Idempotency off: a key of this task's own, so no earlier send is ever found.
    ...(deps.config.messageIdIdempotency ? {} : { idempotencyKey: `${message.messageId}\n${id}` }),
    ...(request.metadata ? { metadata: request.metadata } : {}),
    ...(pushConfig ? { pushConfig } : {}),
    // What later runs join (the reaper's re-dispatches read it): this span's context, or with
    // tracing off the caller's own, as the first dispatch carries it.
    traceContext: traceContextToCarry(callerTrace),
    ...(request.configuration?.acceptedOutputModes?.length
      ? { acceptedOutputModes: request.configuration.acceptedOutputModes }
      : {}),
    event: {
      task: { id, contextId, status: { state: TaskState.SUBMITTED, timestamp: new Date().toISOString() } },
    },
  });
  if (result.created)
    return { record: result.task, dispatch: true, createdWith: storedMessage, ...(slot ? { slot } : {}) };
  // Our own new id: this very send committed, in a batch whose answer was lost (its connection
  // dropped at the commit), and the batch's fallback, running it again, found its key. Nothing
  // has dispatched it yet.
  if (result.taskId === id) {
    const mine = await deps.store.getTaskRecord(caller.tenantId, id);
    if (mine) return { record: mine, dispatch: true, ...(slot ? { slot } : {}) };
  }
  // A retry of an earlier send (same messageId): answer with what that send started.
  const earlier = await deps.store.getTaskRecord(caller.tenantId, result.taskId);
  if (!earlier || result.principal !== caller.principal || earlier.agentId !== agent.id) {
    throw messageIdReused('another request');
  }
  const first = await deps.store.findHistoryMessage(caller.tenantId, earlier.id, message.messageId);
  if (first && !sameMessage(first, message)) throw messageIdReused('a different message');
  if (pushConfig && !(await hasPushConfig(deps.pushConfigs, caller.tenantId, earlier.id, pushConfig)))
    throw messageIdReused('a send without this push notification config');
  return { record: earlier, dispatch: false };
}

async function continueTask(
  deps: ServiceDeps,
  caller: Caller,
  agent: AgentRegistration,
  request: SendMessageRequest,
  pushConfig: NewPushConfig | undefined,
): Promise<Accepted> {
  const { message } = request;
  const taskId = message.taskId as string;
  // The webhook a continuation names is registered in the CAS's own transaction, just before it,
  // so the events that CAS and the run write are delivered to it, and a send that loses its race
  // (a rival answer, a cancel) registers nothing: the webhook is the winner's alone, with its own
  // token. A retry of an answer that went through finds the webhook there (by URL, and the client's
  // id if it gave one) and leaves it as it is, or registers it if the first try named none.
  const limitReached = (max = deps.pushConfigs.maxConfigsPerTask) =>
    pushConfigLimitReached(taskId, max, 'configuration.taskPushNotificationConfig');
  const ensurePushConfig = async () => {
    if (!pushConfig) return;
    const ensured = await deps.pushConfigs
      .ensurePushConfig(caller.tenantId, taskId, pushConfig)
      .catch((err) => {
        // The task was deleted (retention) since it was read: as if it had not been found.
        if (isConflict(err)) throw taskNotFound(taskId);
        throw placeholderRefused(err, 'configuration.taskPushNotificationConfig');
      });
    if (!ensured) throw limitReached();
  };
  // The interrupted status this request answers: the one its first read found.
  let answering: TaskRecord | undefined;
  for (let attempt = 0; ; attempt++) {
    const record = await deps.store.getTaskRecord(caller.tenantId, taskId);
    if (!record || !canSee(record, caller, agent.id)) throw taskNotFound(taskId);
    // digest §7.1 rule 4: a contextId that differs from the task's is refused before any change.
    if (message.contextId && message.contextId !== record.contextId) {
      throw invalidParams(`message.contextId does not match the context of task ${taskId}`, [
        {
          field: 'message.contextId',
          description: `must be ${record.contextId} (the task's context) or absent`,
        },
      ]);
    }
    // A retried continuation (same messageId) is answered without appending it again.
    const earlier = deps.config.messageIdIdempotency
      ? await deps.store.findHistoryMessage(caller.tenantId, taskId, message.messageId)
      : null;
    if (earlier) {
      if (!sameMessage(earlier, message)) throw messageIdReused('a different message');
      await ensurePushConfig();
      return { record, dispatch: false };
    }
    if (isTerminal(record.state)) {
      throw unsupportedOperation(
        `task ${taskId} is ${record.state}; terminal tasks cannot be continued, start a new task in the context`,
      );
    }
    if (!isInterrupted(record.state)) throw notWaiting(taskId, record.state);
    // Re-read after a lost race, the task asks a newer question: a rival answer to the one this
    // request read won, and the run it started has already asked again. This answer is not one to
    // the new question: in a serial order it arrived while the task was WORKING, and is refused so.
    if (answering && !sameQuestion(answering, record)) throw notWaiting(taskId, TaskState.WORKING);
    answering ??= record;
    const appendMessages = [
      ...(record.statusMessage ? [record.statusMessage] : []),
      { ...message, contextId: record.contextId, taskId },
    ];
    await checkHistoryRoom(deps, caller.tenantId, taskId, appendMessages);
    try {
      const updated = await deps.writer.change({
        tenantId: caller.tenantId,
        taskId,
        expectedVersion: record.version,
        fromStates: [TaskState.INPUT_REQUIRED, TaskState.AUTH_REQUIRED],
        patch: {
          state: TaskState.WORKING,
          statusMessage: null,
          clearLease: true,
          runAfterMs: 0,
          resetAttempts: true,
        },
        // The question the task waited on leaves its status for the history, before the answer, so
        // the history reads as the conversation did (the SDKs' task managers do the same).
        appendMessages,
        event: statusEvent(record, TaskState.WORKING),
        ...(pushConfig ? { registerPushConfig: pushConfig } : {}),
      });
      return { record: updated, dispatch: true };
    } catch (err) {
      // Refused by the per-task limit: the continuation changed nothing.
      // The message names the limit the store applied.
      if (isPushConfigLimit(err)) throw limitReached(err.max);
      if (isRedactedSecret(err)) throw placeholderRefused(err, 'configuration.taskPushNotificationConfig');
      // Lost a race with another writer (a retry of this very message, a rival answer, a cancel):
      // re-read, to answer a retry as one or refuse as the task now requires. It is written again
      // only while the task still waits on the question this request read.
      if (!isConflict(err) || attempt >= 3) throw err;
    }
  }
}

/** The refusal of a continuation sent while the task is not waiting for one (WORKING, say). */
function notWaiting(taskId: string, state: TaskState) {
  return unsupportedOperation(`task ${taskId} is ${state}; send a follow-up once it asks for input`);
}

/**
 * Whether two reads of an interrupted task show the same question: every new one is a new status
 * (time and message), written by a run that a continuation started.
 */
function sameQuestion(a: TaskRecord, b: TaskRecord): boolean {
  return (
    a.state === b.state &&
    a.statusTimestamp.getTime() === b.statusTimestamp.getTime() &&
    a.statusMessage?.messageId === b.statusMessage?.messageId
  );
}

/**
 * Refuses a continuation whose messages would take the task's history past its limit. Checked
 * before the write rather than in it: only one continuation of an interrupted task wins its CAS,
 * so no two of them can both pass this check and both append.
 */
async function checkHistoryRoom(
  deps: ServiceDeps,
  tenantId: string,
  taskId: string,
  appended: readonly Message[],
): Promise<void> {
  const bytes = jsonBytes(appended) + (await deps.store.historyBytes(tenantId, taskId));
  refuseOverHistoryLimit(deps, bytes, `task ${taskId}'s history`);
}

function refuseOverHistoryLimit(deps: ServiceDeps, bytes: number, what: string): void {
  const limit = deps.config.taskMaxHistoryBytes;
  if (bytes <= limit) return;
  throw invalidParams(
    `${what} would pass the task history limit of ${limit} bytes; start a new task in the context`,
    [{ field: 'message', description: `the history would hold ${bytes} bytes, more than ${limit}` }],
  );
}
