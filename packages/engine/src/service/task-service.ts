import { findBundledAgent } from '@switchyard/agents';
import {
  invalidParams,
  isInterrupted,
  isTerminal,
  taskNotCancelable,
  taskNotFound,
  TASK_STATES,
  TaskState,
  trimHistory,
  unsupportedOperation,
  type ListTasksRequest,
  type ListTasksResponse,
  type Message,
  type SendMessageRequest,
  type Task,
} from '@switchyard/protocol';
import {
  composeTaskView,
  InvalidPageTokenError,
  isConflict,
  type Caller,
  type NewPushConfig,
  type TaskRecord,
} from '@switchyard/store';
import { traceContextToCarry, withSpan } from '@switchyard/telemetry';
import type { AgentRegistration } from '../ports.ts';
import { statusEvent } from '../task-events.ts';
import { unheardCancelCheck } from '../unheard-cancel.ts';
import { loadVisibleRecord } from './access.ts';
import { acceptMessage, type Accepted } from './accept-message.ts';
import { makeVisible } from './make-visible.ts';
import { PushConfigOperations } from './push-config-operations.ts';
import type { ServiceDeps, TraceCarrier } from './service-deps.ts';
import {
  closesStream,
  consistentSnapshot,
  openedStream,
  type OpenedStream,
  type StreamStart,
} from './task-stream.ts';
import { isSettled, mayHaveSettled, waitForRecord } from './wait-for-settle.ts';

export type SendResult = { task: Task } | { message: Message };

const keyOf = (record: TaskRecord) => ({ tenantId: record.tenantId, id: record.id });

/** The states a task can be canceled from. */
const LIVE_STATES = TASK_STATES.filter((state) => !isTerminal(state) && state !== TaskState.UNSPECIFIED);
/** Live states with a run (or a run to come): a cancel read in one of them is guarded by these. */
const RUNNING_STATES = LIVE_STATES.filter((state) => !isInterrupted(state));

/**
 * The view of a task this very request created, built without a read: the same shape viewOf
 * reads back (the one message as history, no artifacts key while there are none).
 */
function freshView(record: TaskRecord, message: Message, historyLength: number | undefined): Task {
  const history = trimHistory([message], historyLength);
  return composeTaskView(record, history ? { history } : {});
}

/**
 * The binding-independent A2A operations the gateway calls (issue: packages/engine). Callers are
 * already authenticated; every operation is scoped to the caller's tenant, principal and agent.
 */
export class TaskService {
  readonly push: PushConfigOperations;
  private readonly deps: ServiceDeps;
  private readonly waitDeps: Parameters<typeof waitForRecord>[0];

  constructor(deps: ServiceDeps) {
    this.deps = deps;
    this.waitDeps = { store: deps.store, hub: deps.hub, pollIntervalMs: deps.config.pollIntervalMs };
    this.push = new PushConfigOperations(deps);
  }

  async resolveAgent(tenantId: string, agentId: string): Promise<AgentRegistration | null> {
    return this.deps.agents.getAgent(tenantId, agentId);
  }

  /** resolveAgent's answer when it needs no store lookup, else undefined (AgentDirectory.peekAgent). */
  peekAgent(tenantId: string, agentId: string): AgentRegistration | null | undefined {
    return this.deps.agents.peekAgent?.(tenantId, agentId);
  }

  /** Whether this service's streams end at `state` (STREAM_CLOSE_ON_* settings). */
  closesStream(state: TaskState): boolean {
    return closesStream(state, this.deps);
  }

  /** SendMessage: blocking by default up to the ceiling, or returnImmediately. */
  async send(
    caller: Caller,
    agent: AgentRegistration,
    request: SendMessageRequest,
    trace: TraceCarrier = {},
    signal?: AbortSignal,
  ): Promise<SendResult> {
    const accepted = await this.accept(caller, agent, request, trace);
    const historyLength = request.configuration?.historyLength;
    if (request.configuration?.returnImmediately && accepted.record.visibility !== 'message') {
      if (accepted.createdWith)
        return { task: freshView(accepted.record, accepted.createdWith, historyLength) };
      // A retry of a blocking send still pending (the client gave up waiting and retried with
      // returnImmediately): made visible first, or its Task would be one GetTask cannot find.
      // That CAS settles the race with a Message reply, which then answers instead.
      return this.answer(accepted.record, historyLength);
    }
    const settled = await waitForRecord(this.waitDeps, caller.tenantId, accepted.record.id, isSettled, {
      timeoutMs: this.deps.config.blockingTimeoutMs,
      signal,
      wakeOn: mayHaveSettled,
    });
    return this.answer(settled ?? accepted.record, historyLength);
  }

  /**
   * SendStreamingMessage: the Message reply, or the Task snapshot and then every event. `signal`
   * ends the wait for the first item early (the client left). `afterSeq` (Last-Event-ID) on a
   * retry of an earlier send (same messageId) resumes its stream after that event, as clients that
   * reconnect by sending the same request again expect; on a send that creates its task, it is
   * ignored (the client cannot have seen any of its events).
   */
  async sendStreaming(
    caller: Caller,
    agent: AgentRegistration,
    request: SendMessageRequest,
    trace: TraceCarrier,
    signal: AbortSignal,
    afterSeq?: number,
  ): Promise<OpenedStream> {
    return openedStream(
      this.deps,
      await this.startSendStream(caller, agent, request, trace, signal, afterSeq),
    );
  }

  /** SubscribeToTask, or a Last-Event-ID resume (`afterSeq`) of any stream of the task. */
  async subscribe(caller: Caller, agentId: string, taskId: string, afterSeq?: number): Promise<OpenedStream> {
    return openedStream(this.deps, await this.startSubscription(caller, agentId, taskId, afterSeq));
  }

  /** One statement: the row, its history and chunks, under the access rule (access.ts canSee). */
  async getTask(caller: Caller, agentId: string, taskId: string, historyLength?: number): Promise<Task> {
    const task = await this.deps.store.getTask(caller, taskId, {
      agentId,
      includeArtifacts: true,
      ...(historyLength !== undefined ? { historyLength } : {}),
    });
    if (!task) throw taskNotFound(taskId);
    return task;
  }

  async listTasks(caller: Caller, agentId: string, request: ListTasksRequest): Promise<ListTasksResponse> {
    try {
      return await this.deps.store.listTasks({
        caller,
        agentId,
        ...(request.contextId ? { contextId: request.contextId } : {}),
        ...(request.status && request.status !== TaskState.UNSPECIFIED ? { state: request.status } : {}),
        ...(request.statusTimestampAfter
          ? { statusTimestampAfter: new Date(request.statusTimestampAfter) }
          : {}),
        pageSize: request.pageSize ?? 50,
        ...(request.pageToken ? { pageToken: request.pageToken } : {}),
        ...(request.historyLength !== undefined ? { historyLength: request.historyLength } : {}),
        includeArtifacts: request.includeArtifacts === true,
        maxPageBytes: this.deps.config.listTasksMaxPageBytes,
      });
    } catch (err) {
      if (err instanceof InvalidPageTokenError) {
        throw invalidParams('pageToken is not a token this server issued', [
          { field: 'pageToken', description: 'invalid or expired' },
        ]);
      }
      throw err;
    }
  }

  /**
   * CancelTask: CANCELED at once, or TaskNotCancelable when terminal (digest §7.5). The guard is
   * the state alone (any non-terminal state), not the version: an agent writing chunks as fast as
   * it can would otherwise win every race between our read and our write.
   */
  async cancelTask(caller: Caller, agentId: string, taskId: string): Promise<Task> {
    for (let attempt = 0; ; attempt++) {
      const record = await loadVisibleRecord(this.deps.store, caller, agentId, taskId);
      if (isTerminal(record.state)) throw taskNotCancelable(taskId, record.state);
      // A task waiting for the client has no run writing to it, so its version can guard the
      // change; its question then moves into the history (as an answer would move it) rather
      // than standing on the CANCELED status, which carries no message: GetTask shows what the
      // CANCELED event says.
      const waiting = isInterrupted(record.state);
      try {
        const canceled = await this.deps.writer.change({
          tenantId: caller.tenantId,
          taskId,
          expectedVersion: waiting ? record.version : 'any',
          // A run that asked for input since the read must not lose its question to this cancel:
          // it conflicts, and the re-read takes the waiting path.
          fromStates: waiting ? LIVE_STATES : RUNNING_STATES,
          // The lease stays: the run holding it releases it once it has stopped its agent, and one
          // still there after it lapsed tells a worker that the agent never heard of the cancel.
          patch: { state: TaskState.CANCELED, statusMessage: null },
          ...(waiting && record.statusMessage ? { appendMessages: [record.statusMessage] } : {}),
          event: statusEvent(record, TaskState.CANCELED),
        });
        // The hint published by the writer is the cancel signal: the running worker aborts. A
        // task with no run to hear it (waiting for the client, queued, in a retry's backoff) has a
        // worker told instead, so the agent can clean up (an upstream agent forwards the cancel).
        // A leased one may have a run that never hears it (its worker died or froze, the lease
        // not yet lapsed): a check due after the lease lapses tells the agent if the run never
        // released it (runner/cancel-notices.ts). Decided on the row the cancel wrote, not on the
        // read: a claim may have come in between. Not awaited: the cancel has committed, and its
        // answer must not wait for Redis.
        if (canceled.leaseOwner) void this.checkCancelHeard(canceled);
        else void this.noticeCanceled(caller.tenantId, taskId);
        return this.view(canceled);
      } catch (err) {
        // Only a task that turned terminal meanwhile fails the guard: the re-read answers that.
        if (!isConflict(err) || attempt >= 3) throw err;
      }
    }
  }

  /** Best effort: the cancel has committed; a lost notice only skips the agent's clean-up. */
  private async noticeCanceled(tenantId: string, taskId: string): Promise<void> {
    try {
      await this.deps.dispatcher.notifyCanceled?.(tenantId, taskId);
    } catch (err) {
      this.deps.log.warn({ err, tenantId, taskId }, 'could not tell the agent about the cancel');
    }
  }

  /**
   * Best effort, as the notice: a lost check leaves the kept lease in the row, so the agent is
   * told only if another dispatch of the task comes (the dead worker's own job, given back by
   * BullMQ when its lock lapses, is one).
   */
  private async checkCancelHeard(canceled: TaskRecord): Promise<void> {
    try {
      await this.deps.dispatcher.enqueue(unheardCancelCheck(canceled, this.deps.config));
    } catch (err) {
      const { tenantId, id: taskId } = canceled;
      this.deps.log.warn({ err, tenantId, taskId }, 'could not schedule the check of the cancel notice');
    }
  }

  private async accept(
    caller: Caller,
    agent: AgentRegistration,
    request: SendMessageRequest,
    trace: TraceCarrier,
  ) {
    const inline = request.configuration?.taskPushNotificationConfig;
    let pushConfig: NewPushConfig | undefined;
    if (inline)
      pushConfig = await this.push.prepare(inline, 'configuration.taskPushNotificationConfig', caller);
    const accepted = await withSpan(
      'a2a.accept-message',
      { 'switchyard.tenant_id': caller.tenantId, 'switchyard.agent_id': agent.id },
      async (span) => {
        const result = await acceptMessage(this.deps, caller, agent, request, pushConfig, trace);
        span.setAttribute('switchyard.task_id', result.record.id);
        return result;
      },
    );
    // The active span's context (the gateway's request span), so the worker's run joins this trace.
    // Not awaited: the commit is what the caller is owed, and a dispatch that never happens (this
    // process dies first, Redis is down) is the reaper's to redo, as when the enqueue fails. The
    // answer leaves one Redis round trip sooner.
    void this.dispatch(accepted, traceContextToCarry(trace));
    return accepted;
  }

  /** After commit: enqueue. If that fails the task stays runnable and the reaper enqueues it. */
  private async dispatch({ record, dispatch, slot }: Accepted, trace: TraceCarrier): Promise<void> {
    if (!dispatch) return;
    try {
      await this.deps.dispatcher.enqueue(
        {
          tenantId: record.tenantId,
          taskId: record.id,
          version: record.version,
          attempts: record.attempts,
          ...trace,
        },
        slot,
      );
    } catch (err) {
      this.deps.log.warn(
        { err, tenantId: record.tenantId, taskId: record.id },
        'enqueue failed; the reaper will dispatch',
      );
    }
  }

  private async answer(record: TaskRecord, historyLength?: number): Promise<SendResult> {
    if (record.visibility === 'message' && record.reply) return { message: record.reply };
    const visible = record.visibility === 'pending' ? await makeVisible(this.deps, record) : record;
    if (visible.visibility === 'message' && visible.reply) return { message: visible.reply };
    return { task: await this.view(visible, historyLength) };
  }

  private async startSendStream(
    caller: Caller,
    agent: AgentRegistration,
    request: SendMessageRequest,
    trace: TraceCarrier,
    signal: AbortSignal,
    afterSeq: number | undefined,
  ): Promise<StreamStart> {
    // Digest §7.2 rule 13: returnImmediately has no effect on streaming calls, so it must not make
    // the reply a Task either.
    const { configuration } = request;
    const streamed = configuration?.returnImmediately
      ? { ...request, configuration: { ...configuration, returnImmediately: false } }
      : request;
    const accepted = await this.accept(caller, agent, streamed, trace);
    const windowMs =
      findBundledAgent(agent.executor)?.quickReplyWindowMs ?? this.deps.config.defaultQuickReplyMs;
    let record = await waitForRecord(
      this.waitDeps,
      caller.tenantId,
      accepted.record.id,
      (r) => r.visibility !== 'pending',
      {
        timeoutMs: windowMs + 1000,
        signal,
      },
    );
    if (!record) throw taskNotFound(accepted.record.id);
    if (record.visibility === 'pending') record = await makeVisible(this.deps, record);
    if (record.visibility === 'message' && record.reply) {
      const first = { seq: record.version, response: { message: record.reply } };
      return { first, key: keyOf(record), from: record.version, closes: true };
    }
    const historyLength = request.configuration?.historyLength;
    // The stream of a task this request created starts at the creation (seq 1) and replays every
    // event since from the log: however far the agent got before the task became visible (its
    // first chunk, say), the client sees the move to WORKING and each chunk as events of its own.
    if (accepted.createdWith) {
      const first = {
        seq: 1,
        response: { task: freshView(accepted.record, accepted.createdWith, historyLength) },
      };
      return { first, key: keyOf(record), from: 1, openedAt: record.version, closes: false };
    }
    // A retry of an earlier send (same messageId: nothing new dispatched) reconnecting with
    // Last-Event-ID: the rest of that send's stream, as a subscription would resume it. A new
    // continuation starts from the task as it stands, whatever id it carries.
    if (afterSeq !== undefined && !accepted.dispatch)
      return this.resumeAfter(record, afterSeq, { retriedSend: true, historyLength });
    return this.startWithSnapshot(record, historyLength);
  }

  private async startSubscription(
    caller: Caller,
    agentId: string,
    taskId: string,
    afterSeq: number | undefined,
  ): Promise<StreamStart> {
    const record = await loadVisibleRecord(this.deps.store, caller, agentId, taskId);
    return this.resumeAfter(record, afterSeq, { retriedSend: false });
  }

  /**
   * A stream of a visible task after the client's Last-Event-ID (`afterSeq`), or from a snapshot.
   * A terminal task with nothing after that id (or no id) has nothing to stream: a subscription is
   * refused (UnsupportedOperation), while a retried send's stream, an answer to a send that went
   * through, just ends.
   */
  private async resumeAfter(
    record: TaskRecord,
    afterSeq: number | undefined,
    { retriedSend, historyLength }: { retriedSend: boolean; historyLength?: number | undefined },
  ): Promise<StreamStart> {
    const terminal = isTerminal(record.state);
    // A resume (Last-Event-ID) gets exactly the events after it, no second snapshot. A live task's
    // log is whole (retention prunes only terminal tasks' logs); a terminal task's log is final but
    // may have lost events, and where it has, the stream sends the snapshot instead (openedStream).
    if (afterSeq !== undefined && afterSeq < record.version) {
      const finalSeq = terminal ? { finalSeq: record.version } : {};
      return { key: keyOf(record), from: afterSeq, openedAt: record.version, closes: false, ...finalSeq };
    }
    // The client has the last event already. A stream that would have closed at the state the
    // task is in (an interrupted one under STREAM_CLOSE_ON_*) closes at once with nothing to
    // send, as the same resume from an older id or a fresh subscription would after that state's
    // event; any other waits for the task's next event.
    if (afterSeq === record.version && (!terminal || retriedSend))
      return {
        key: keyOf(record),
        from: afterSeq,
        closes: terminal || closesStream(record.state, this.deps),
      };
    if (terminal && !retriedSend && (afterSeq === undefined || afterSeq === record.version)) {
      throw unsupportedOperation(
        `task ${record.id} is ${record.state}; a terminal task has nothing more to stream`,
      );
    }
    // A subscription, or a resume point past the task's version, which this task's log never
    // issued (versions only grow): the client's view is unknown, so it gets the task as it stands.
    return this.startWithSnapshot(record, historyLength);
  }

  private async startWithSnapshot(
    record: TaskRecord,
    historyLength: number | undefined,
  ): Promise<StreamStart> {
    const snapshot = await consistentSnapshot(this.deps, record, historyLength);
    return {
      first: { seq: snapshot.version, response: { task: snapshot.task } },
      key: keyOf(record),
      from: snapshot.version,
      closes: closesStream(snapshot.state, this.deps),
    };
  }

  private view(record: TaskRecord, historyLength?: number): Promise<Task> {
    return this.deps.store.viewOf(record, {
      ...(historyLength !== undefined ? { historyLength } : {}),
      includeArtifacts: true,
    });
  }
}
