import { TaskState, isTerminal, type Message } from '@switchyard/protocol';
import {
  RunEndedError,
  type Agent,
  type AgentContext,
  type ArtifactChunk,
  type MessageInput,
} from '../agent.ts';
import { cloneJson, toAgentMessage, type IdSource } from './harness-messages.ts';
import {
  storedThisTurn,
  type HarnessMemory,
  type HarnessTaskStore,
  type StoredTask,
} from './harness-task-store.ts';
import type { HarnessRun, LogEntry, RecordedCall, RunResult } from './harness-types.ts';

export interface RunDeps {
  agent: Agent;
  store: HarnessTaskStore;
  memory: HarnessMemory;
  ids: IdSource;
  task: StoredTask;
  settings: Record<string, unknown>;
  acceptedOutputModes: string[] | undefined;
  autoUpgrade: boolean;
  onAgentError: 'throw' | 'fail-task';
  agentMessagesInHistory: boolean;
  onCall: ((call: RecordedCall, run: HarnessRun) => void) | undefined;
  /** The harness-wide log of calls across runs. */
  record: (call: RecordedCall) => void;
}

type Ending = 'requestInput' | 'requestAuth' | 'fail' | 'reject';

const endingStates: Record<Ending, TaskState> = {
  requestInput: TaskState.INPUT_REQUIRED,
  requestAuth: TaskState.AUTH_REQUIRED,
  fail: TaskState.FAILED,
  reject: TaskState.REJECTED,
};

/** One execution of an agent against a stored task: the in-memory stand-in for the engine's run. */
export class RunController implements HarnessRun {
  readonly taskId: string;
  readonly calls: RecordedCall[] = [];
  readonly result: Promise<RunResult>;
  #deps: RunDeps;
  #ended: RunEndedError['reason'] | undefined;
  #abort = new AbortController();
  /** Chunks this run emitted per artifact: the k in the platform's "k-th chunk" skip rule. */
  #chunkIndex = new Map<string, number>();
  #logs: LogEntry[] = [];
  #waiters: Array<{ match: (call: RecordedCall) => boolean; resolve: (call: RecordedCall) => void }> = [];

  constructor(deps: RunDeps) {
    this.#deps = deps;
    this.taskId = deps.task.id;
    // The worker's claim: the task is WORKING before the agent sees it.
    deps.task.state = TaskState.WORKING;
    deps.task.attempt += 1;
    // Deferred so the caller holds the handle before any agent code runs.
    this.result = Promise.resolve().then(() => this.#run());
  }

  get ended(): boolean {
    return this.#ended !== undefined;
  }

  cancel(): void {
    const { task } = this.#deps;
    if (isTerminal(task.state)) return;
    task.state = TaskState.CANCELED;
    task.visible = true;
    this.#stop('canceled');
    this.#record({ kind: 'platform', event: 'canceled', taskId: task.id, status: 'applied' });
  }

  loseLease(): void {
    if (this.#ended !== undefined) return;
    this.#stop('lease-lost');
    this.#record({ kind: 'platform', event: 'lease-lost', taskId: this.taskId, status: 'applied' });
  }

  upgrade(): void {
    const { task } = this.#deps;
    if (this.#ended !== undefined || task.visible) return;
    task.visible = true;
    this.#record({ kind: 'platform', event: 'upgraded', taskId: task.id, status: 'applied' });
  }

  waitForCall(match: (call: RecordedCall) => boolean): Promise<RecordedCall> {
    const seen = this.calls.find(match);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve) => this.#waiters.push({ match, resolve }));
  }

  async #run(): Promise<RunResult> {
    const { agent, task, autoUpgrade } = this.#deps;
    const window = agent.quickReplyWindowMs;
    const timer =
      autoUpgrade && window !== undefined && !task.visible
        ? setTimeout(() => this.upgrade(), window)
        : undefined;
    let failure: { error: unknown } | undefined;
    try {
      await agent.execute(this.#context());
    } catch (error) {
      if (!this.#isQuietStop(error)) failure = { error };
    } finally {
      clearTimeout(timer);
    }
    if (failure !== undefined && this.#deps.onAgentError === 'throw') {
      this.#ended ??= 'finished';
      throw failure.error;
    }
    if (this.#ended === undefined) this.#finishForAgent(failure !== undefined);
    return this.#result(failure);
  }

  /** The platform's rules for a run that returned (or threw) without ending the task. */
  #finishForAgent(threw: boolean): void {
    const { task } = this.#deps;
    task.visible = true;
    task.state = threw ? TaskState.FAILED : TaskState.COMPLETED;
    // Never the error text: failed tasks carry a short safe message (ARCHITECTURE.md §3 rule 7).
    if (threw) task.statusMessage = this.#agentMessage('The agent failed.');
    this.#ended = 'finished';
    const event = threw ? 'failed-on-error' : 'auto-completed';
    this.#record({ kind: 'platform', event, taskId: task.id, status: 'applied' });
  }

  #result(failure: { error: unknown } | undefined): RunResult {
    const view = this.#deps.store.view(this.#deps.task);
    const result: RunResult = {
      taskId: view.id,
      contextId: view.contextId,
      outcome: !view.visible && view.reply !== undefined ? 'message' : 'task',
      task: view,
      calls: [...this.calls],
      logs: [...this.#logs],
    };
    if (result.outcome === 'message' && view.reply !== undefined) result.reply = view.reply;
    if (failure !== undefined) result.error = failure.error;
    return result;
  }

  /** An abort after cancel or a lost lease ends the run quietly, as the platform expects. */
  #isQuietStop(error: unknown): boolean {
    return error instanceof RunEndedError || (this.#abort.signal.aborted && this.#ended !== 'finished');
  }

  #context(): AgentContext {
    const { task, store, memory, settings, acceptedOutputModes } = this.#deps;
    const log = (level: LogEntry['level']) => (obj: object, msg?: string) => {
      this.#logs.push(msg === undefined ? { level, obj } : { level, obj, msg });
    };
    return {
      task: store.snapshot(task),
      message: cloneJson(task.runMessage),
      signal: this.#abort.signal,
      settings: Object.freeze(cloneJson(settings)),
      acceptedOutputModes:
        acceptedOutputModes === undefined ? undefined : Object.freeze([...acceptedOutputModes]),
      memory: memory.forContext(task.contextId, (key, value) =>
        this.#record({ kind: 'memory.set', key, value, taskId: task.id, status: 'applied' }),
      ),
      log: { info: log('info'), warn: log('warn'), error: log('error') },
      reply: (input) => this.#reply(input),
      setStatus: (input) => this.#setStatus(input),
      emitArtifact: (chunk) => this.#emitArtifact(chunk),
      requestInput: (input) => this.#end('requestInput', input),
      requestAuth: (input) => this.#end('requestAuth', input),
      complete: (input) => this.#complete(input),
      fail: (input) => this.#end('fail', input),
      reject: (input) => this.#end('reject', input),
      resumeAfterStoredChunks: () => {
        for (const artifactId of task.chunks.keys())
          this.#chunkIndex.set(artifactId, storedThisTurn(task, artifactId));
      },
    };
  }

  async #reply(input: MessageInput): Promise<void> {
    const { task } = this.#deps;
    const message = this.#agentMessage(input);
    const answeredAs = task.visible ? 'task' : 'message';
    this.#refuseIfEnded({ kind: 'reply', message, answeredAs, taskId: task.id, status: 'refused' });
    task.state = TaskState.COMPLETED;
    if (answeredAs === 'message') task.reply = message;
    else this.#setStatusMessage(message);
    this.#ended = 'finished';
    this.#record({ kind: 'reply', message, answeredAs, taskId: task.id, status: 'applied' });
  }

  async #setStatus(input: MessageInput): Promise<void> {
    const { task } = this.#deps;
    const message = this.#agentMessage(input);
    this.#refuseIfEnded({ kind: 'setStatus', message, taskId: task.id, status: 'refused' });
    task.visible = true;
    task.state = TaskState.WORKING;
    this.#setStatusMessage(message);
    this.#record({ kind: 'setStatus', message, taskId: task.id, status: 'applied' });
  }

  async #emitArtifact(chunk: ArtifactChunk): Promise<void> {
    const { task, store } = this.#deps;
    const copy = cloneJson(chunk);
    this.#refuseIfEnded({ kind: 'emitArtifact', chunk: copy, taskId: task.id, status: 'refused' });
    const index = this.#chunkIndex.get(chunk.artifactId) ?? 0;
    this.#chunkIndex.set(chunk.artifactId, index + 1);
    const status = store.applyChunk(task, copy, index);
    task.visible = true;
    this.#record({ kind: 'emitArtifact', chunk: copy, taskId: task.id, status });
  }

  async #complete(input: MessageInput | undefined): Promise<void> {
    const { task } = this.#deps;
    const message = input === undefined ? undefined : this.#agentMessage(input);
    const call = message === undefined ? {} : { message };
    this.#refuseIfEnded({ kind: 'complete', ...call, taskId: task.id, status: 'refused' });
    task.visible = true;
    task.state = TaskState.COMPLETED;
    // As on the platform, completing without a message clears the status message.
    if (message !== undefined) this.#setStatusMessage(message);
    else delete task.statusMessage;
    this.#ended = 'finished';
    this.#record({ kind: 'complete', ...call, taskId: task.id, status: 'applied' });
  }

  async #end(kind: Ending, input: MessageInput): Promise<void> {
    const { task } = this.#deps;
    const message = this.#agentMessage(input);
    this.#refuseIfEnded({ kind, message, taskId: task.id, status: 'refused' });
    task.visible = true;
    task.state = endingStates[kind];
    this.#setStatusMessage(message);
    this.#ended = 'finished';
    this.#record({ kind, message, taskId: task.id, status: 'applied' });
  }

  #refuseIfEnded(call: RecordedCall): void {
    if (this.#ended === undefined) return;
    this.#record({ ...call, status: 'refused', refusedBecause: this.#ended });
    throw new RunEndedError(this.#ended);
  }

  #setStatusMessage(message: Message): void {
    const { task, agentMessagesInHistory } = this.#deps;
    task.statusMessage = message;
    if (agentMessagesInHistory) task.history.push(message);
  }

  #agentMessage(input: MessageInput): Message {
    const { task, ids } = this.#deps;
    return toAgentMessage(input, { messageId: ids.next('msg'), contextId: task.contextId, taskId: task.id });
  }

  #stop(reason: 'canceled' | 'lease-lost'): void {
    this.#ended ??= reason;
    if (!this.#abort.signal.aborted) this.#abort.abort(new RunEndedError(reason));
  }

  #record(call: RecordedCall): void {
    this.calls.push(call);
    this.#deps.record(call);
    const ready = this.#waiters.filter((waiter) => waiter.match(call));
    this.#waiters = this.#waiters.filter((waiter) => !ready.includes(waiter));
    for (const waiter of ready) waiter.resolve(call);
    this.#deps.onCall?.(call, this);
  }
}
