import { isInterrupted, isTerminal, type Message } from '@switchyard/protocol';
import type { Agent, ArtifactChunk } from '../agent.ts';
import { IdSource, cloneJson, toUserMessage, type HarnessMessage } from './harness-messages.ts';
import { RunController } from './harness-run.ts';
import { HarnessMemory, HarnessTaskStore, type StoredTask } from './harness-task-store.ts';
import type {
  AgentHarnessOptions,
  HarnessRun,
  HarnessTask,
  RecordedCall,
  RunResult,
  SendOptions,
} from './harness-types.ts';

/**
 * An in-memory platform for agent unit tests: it runs `agent.execute` with a recording
 * AgentContext and applies the platform's rules (Message vs Task, quick-reply upgrade, artifact
 * append/lastChunk and the re-run skip rule, "returned without ending → COMPLETED", RunEndedError
 * after the run ended, per-context memory). The real context lives in packages/engine; this one
 * has no database, no lease and no events.
 */
export class AgentHarness {
  readonly agent: Agent;
  #options: AgentHarnessOptions;
  #store = new HarnessTaskStore();
  #memory = new HarnessMemory();
  #ids = new IdSource();
  #calls: RecordedCall[] = [];
  #runs = new Map<string, RunController>();

  constructor(agent: Agent, options: AgentHarnessOptions = {}) {
    this.agent = agent;
    this.#options = options;
  }

  /** Every call of every run, in order. */
  get calls(): readonly RecordedCall[] {
    return this.#calls;
  }

  /** Sends a message: a new task, or with `options.taskId` a follow-up to an interrupted task. */
  start(message: HarnessMessage, options: SendOptions = {}): HarnessRun {
    const task =
      options.taskId === undefined
        ? this.#createTask(message, options)
        : this.#continueTask(options.taskId, message, options);
    return this.#launch(task, options);
  }

  /** Like start(), awaited; a message the platform would refuse rejects instead of throwing. */
  async send(message: HarnessMessage, options: SendOptions = {}): Promise<RunResult> {
    return this.start(message, options).result;
  }

  /** The client's answer to INPUT_REQUIRED / AUTH_REQUIRED: the agent runs again with the longer history. */
  async continueTask(
    taskId: string,
    message: HarnessMessage,
    options: Omit<SendOptions, 'taskId'> = {},
  ): Promise<RunResult> {
    return this.start(message, { ...options, taskId }).result;
  }

  /**
   * Runs the agent again for a task whose run crashed (after `loseLease()`), from the stored state
   * and the same message, with `attempt` one higher: what the platform does after a lapsed lease.
   */
  restart(
    taskId: string,
    options: Omit<SendOptions, 'taskId' | 'contextId' | 'returnImmediately'> = {},
  ): HarnessRun {
    const task = this.#store.get(taskId);
    if (this.#runs.get(taskId)?.ended === false) throw new Error(`task ${taskId} still has a live run`);
    if (isTerminal(task.state) || isInterrupted(task.state)) {
      throw new Error(`task ${taskId} is ${task.state}: only a task whose run crashed runs again`);
    }
    return this.#launch(task, options);
  }

  async rerun(
    taskId: string,
    options: Omit<SendOptions, 'taskId' | 'contextId' | 'returnImmediately'> = {},
  ): Promise<RunResult> {
    return this.restart(taskId, options).result;
  }

  task(taskId: string): HarnessTask {
    return this.#store.view(this.#store.get(taskId));
  }

  /** The chunks stored for one artifact, in order (skipped re-emits are not among them). */
  chunks(taskId: string, artifactId: string): ArtifactChunk[] {
    return cloneJson(this.#store.get(taskId).chunks.get(artifactId) ?? []);
  }

  /** A copy of the agent's memory for one context. */
  memory(contextId: string): Map<string, unknown> {
    return this.#memory.snapshot(contextId);
  }

  #createTask(input: HarnessMessage, options: SendOptions): StoredTask {
    const given = isMessage(input) ? input.contextId : undefined;
    const contextId = options.contextId ?? given ?? this.#options.contextId ?? this.#ids.next('context');
    const taskId = this.#ids.next('task');
    const messageId = isMessage(input) ? input.messageId : this.#ids.next('msg');
    const task = this.#store.create(
      taskId,
      contextId,
      toUserMessage(input, { messageId, contextId, taskId }),
    );
    // A request sent with returnImmediately is always answered with a Task (ARCHITECTURE.md §5).
    if (options.returnImmediately === true) task.visible = true;
    return task;
  }

  #continueTask(taskId: string, input: HarnessMessage, options: SendOptions): StoredTask {
    const task = this.#store.get(taskId);
    // A2A §7.2 rules 9–10: only an interrupted task takes a follow-up; a terminal one is immutable.
    if (!isInterrupted(task.state)) throw new Error(`task ${taskId} is ${task.state}, not interrupted`);
    if (options.contextId !== undefined && options.contextId !== task.contextId) {
      throw new Error(`task ${taskId} belongs to context ${task.contextId}`);
    }
    const messageId = isMessage(input) ? input.messageId : this.#ids.next('msg');
    const message = toUserMessage(input, { messageId, contextId: task.contextId, taskId });
    // As the platform does: the question the task waited on moves into the history, then the answer
    // (unless agentMessagesInHistory put it there already).
    const question = task.statusMessage;
    if (question && !task.history.some((m) => m.messageId === question.messageId))
      task.history.push(question);
    delete task.statusMessage;
    task.history.push(message);
    task.runMessage = message;
    task.attempt = 0;
    // A new turn: its runs skip only what runs of this turn store (load-run-inputs.ts).
    task.turnStart = new Map([...task.chunks].map(([artifactId, chunks]) => [artifactId, chunks.length]));
    return task;
  }

  #launch(task: StoredTask, options: SendOptions): HarnessRun {
    const run = new RunController({
      agent: this.agent,
      store: this.#store,
      memory: this.#memory,
      ids: this.#ids,
      task,
      settings: options.settings ?? this.#options.settings ?? {},
      acceptedOutputModes: options.acceptedOutputModes,
      autoUpgrade: this.#options.autoUpgrade ?? true,
      onAgentError: this.#options.onAgentError ?? 'throw',
      agentMessagesInHistory: this.#options.agentMessagesInHistory ?? false,
      onCall: options.onCall,
      record: (call) => this.#calls.push(call),
    });
    this.#runs.set(task.id, run);
    return run;
  }
}

function isMessage(input: HarnessMessage): input is Message {
  return typeof input === 'object' && !Array.isArray(input);
}

/** One message to a fresh harness: the shortest way to test a single-run behaviour. */
export async function runAgentForTest(
  agent: Agent,
  message: HarnessMessage,
  options: AgentHarnessOptions & Omit<SendOptions, 'taskId'> = {},
): Promise<RunResult & { harness: AgentHarness }> {
  const harness = new AgentHarness(agent, options);
  const result = await harness.send(message, options);
  return { ...result, harness };
}
