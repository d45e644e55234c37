import {
  RunEndedError,
  type AgentContext,
  type AgentLogger,
  type ArtifactChunk,
  type ContextMemory,
  type MessageInput,
  type TaskSnapshot,
} from '@switchyard/agents';
import { isTerminal, TaskState, type Message, type StreamResponse } from '@switchyard/protocol';
import {
  artifactChunkBytes,
  isConflict,
  isStoreGone,
  type ArtifactChunkInput,
  type ChangeTaskInput,
  type TaskPatch,
  type TaskRecord,
  type TaskStore,
} from '@switchyard/store';
import { withSpan } from '@switchyard/telemetry';
import { agentMessage } from '../agent-message.ts';
import { artifactEvent, messageEvent, statusEvent } from '../task-events.ts';
import type { TaskWriter } from '../task-writer.ts';

export interface RunContextOptions {
  store: TaskStore;
  writer: TaskWriter;
  /** The lease the run writes under (the claim's token, lease-keeper.ts leaseOwnerOf). */
  leaseOwner: string;
  record: TaskRecord;
  snapshot: TaskSnapshot;
  message: Message;
  settings: Record<string, unknown>;
  acceptedOutputModes: readonly string[] | undefined;
  memory: ContextMemory;
  log: AgentLogger;
  /** Aborted when the run stops (the agent's ctx.signal). */
  signal: AbortSignal;
  /** Stops the run (the runner's stop: records why, then aborts `signal`); a refused write calls it. */
  stop: (reason: 'canceled' | 'lease-lost') => void;
  /**
   * Whether the run was stopped in a way that takes away its right to write (canceled, lease lost,
   * timed out). Not `signal.aborted`: a shutdown aborts the signal too, but the run still holds its
   * lease through the stop grace, and an agent finishing then must have its writes go through (the
   * lease CAS, and the hand-back's release after the grace, fence them).
   */
  refused: () => boolean;
  /** Chunks per artifact that an earlier attempt of this run already stored. */
  storedChunks: Map<string, number>;
  /** What the task's stored chunks weigh against its artifact limit (RunInputs.storedArtifactBytes). */
  storedArtifactBytes: number;
  /** Most bytes of artifact chunks the task may hold (EngineConfig.taskMaxArtifactBytes). */
  maxArtifactBytes: number;
}

/**
 * The AgentContext a worker hands to an agent. Every call is one CAS write fenced by the lease
 * (ARCHITECTURE.md §3 rule 4): a worker that lost its lease, or whose task was canceled, gets
 * RunEndedError from its next call and its AbortSignal fires.
 */
export class RunContext implements AgentContext {
  readonly task: TaskSnapshot;
  readonly message: Message;
  readonly signal: AbortSignal;
  readonly settings: Readonly<Record<string, unknown>>;
  readonly acceptedOutputModes: readonly string[] | undefined;
  readonly memory: ContextMemory;
  readonly log: AgentLogger;
  /** Set once the run wrote an ending (terminal or interrupted) state, or lost the right to write. */
  ended: 'finished' | 'canceled' | 'lease-lost' | null = null;
  /**
   * The run's last write failed because Postgres was away (isStoreGone), and none has
   * succeeded since: an agent that then throws failed for the platform's outage, not its own.
   */
  storeWasAway = false;
  private record: TaskRecord;
  private readonly o: RunContextOptions;
  private readonly emitted = new Map<string, number>();
  /** The agent's calls, run one after another in the order they were made (see `inTurn`). */
  private turn: Promise<void> = Promise.resolve();
  /** The chunk written behind (see emitArtifact), the write in flight, and its failure. */
  private held: ArtifactChunkInput | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private flushError: unknown = undefined;
  /** Writes of this run in flight (see `writing`). */
  private writesInFlight = 0;
  /**
   * What the task's chunks weigh with this run's (artifactChunkBytes): the only writer of a task's
   * artifacts is the run holding its lease, so a count kept here is the task's own.
   */
  private artifactBytes: number;
  /** The first ending the agent asked for that was not written (not a refusal: an error). */
  private endingFailed: unknown = undefined;
  /** Set once a chunk passed the artifact limit: the run can only fail from then on. */
  private overLimit: MessageInput | null = null;

  constructor(options: RunContextOptions) {
    this.o = options;
    this.record = options.record;
    this.task = options.snapshot;
    this.message = options.message;
    this.signal = options.signal;
    this.settings = options.settings;
    this.acceptedOutputModes = options.acceptedOutputModes;
    // Memory calls are the run's store calls too: one that found Postgres gone counts as a write's.
    const memory = options.memory;
    this.memory = {
      get: (key) => this.noteStore(memory.get(key)),
      set: (key, value) => this.noteStore(memory.set(key, value)),
    };
    this.log = options.log;
    this.artifactBytes = options.storedArtifactBytes;
  }

  get current(): TaskRecord {
    return this.record;
  }

  /**
   * A newer record of the task written beside the run's own calls (the runner's quick-reply
   * upgrade): kept, so the run's next write and the runner's settle write do not start from a
   * version that is already gone. An older one (the run wrote meanwhile) is ignored, and so is
   * one under another lease: makeVisible returns whatever record won, which after a takeover is
   * the new owner's, and the runner's settle writes and hand-back take their lease from this
   * record. Kept, it would let this run's retry or failure write under the new owner's lease.
   */
  adopt(record: TaskRecord): void {
    if (record.version > this.record.version && record.leaseOwner === this.o.leaseOwner) this.record = record;
  }

  /** A chunk passed the artifact limit: the run may only end FAILED (any ending becomes that). */
  get mustFail(): boolean {
    return this.overLimit !== null;
  }

  /**
   * Whether one of the run's writes is in flight. A cancel cannot slip past it: the write's CAS
   * refuses a canceled task and ends the run, so the run's cancel watch waits while it is.
   */
  get writing(): boolean {
    return this.writesInFlight > 0;
  }

  /**
   * Runs an agent call once the calls made before it have settled. Each reads and sets the chunk
   * held back and the version its write expects, so two at once lost a chunk without an error:
   * `Promise.all` of two emits kept only the second, and an emit not awaited before complete()
   * came after the ending, was refused, and read as a cancel.
   */
  private inTurn<T>(call: () => Promise<T>): Promise<T> {
    // The queue is a promise of its own, not the agent's: a call that fails and that the agent
    // did not await still surfaces as an unhandled rejection (logged), as it did before.
    const before = this.turn;
    let done!: () => void;
    this.turn = new Promise<void>((resolve) => (done = resolve));
    return (async () => {
      await before;
      try {
        return await call();
      } finally {
        done();
      }
    })();
  }

  reply(input: MessageInput): Promise<void> {
    return this.inTurn(() => this.replyNow(input));
  }

  private async replyNow(input: MessageInput): Promise<void> {
    if (this.overLimit) return this.end(TaskState.FAILED, this.overLimit);
    // A chunk still held would make this a task: write it first, then decide.
    await this.writeHeld();
    this.assertOpen();
    if (this.record.visibility !== 'pending') return this.end(TaskState.COMPLETED, input);
    const message = this.agentMsg(input, false);
    await this.write(
      { state: TaskState.COMPLETED, visibility: 'message', reply: message, clearLease: true },
      messageEvent(message),
    );
    this.ended = 'finished';
  }

  setStatus(input: MessageInput): Promise<void> {
    return this.inTurn(() => this.setStatusNow(input));
  }

  private async setStatusNow(input: MessageInput): Promise<void> {
    await this.writeHeld();
    const message = this.agentMsg(input);
    await this.write(
      { state: TaskState.WORKING, statusMessage: message, ...this.visible() },
      statusEvent(this.record, TaskState.WORKING, message),
    );
  }

  resumeAfterStoredChunks(): void {
    for (const [artifactId, count] of this.o.storedChunks) this.emitted.set(artifactId, count);
  }

  emitArtifact(chunk: ArtifactChunk): Promise<void> {
    return this.inTurn(() => this.emitArtifactNow(chunk));
  }

  private async emitArtifactNow(chunk: ArtifactChunk): Promise<void> {
    this.assertOpen();
    if (this.overLimit) return this.failOverArtifactLimit();
    const k = this.emitted.get(chunk.artifactId) ?? 0;
    this.emitted.set(chunk.artifactId, k + 1);
    // At-least-once execution, exactly-once chunks: an earlier attempt already stored this one.
    if (k < (this.o.storedChunks.get(chunk.artifactId) ?? 0)) return;
    // Copied: the chunk is written one step behind the call that returned (below), and an agent
    // that reuses its parts array or metadata object for the next chunk must not rewrite this one
    // (nor pass the artifact limit, counted here, by growing it afterwards).
    const input: ArtifactChunkInput = {
      artifactId: chunk.artifactId,
      append: chunk.append ?? false,
      lastChunk: chunk.lastChunk ?? false,
      parts: structuredClone(chunk.parts),
      ...(chunk.name !== undefined ? { name: chunk.name } : {}),
      ...(chunk.description !== undefined ? { description: chunk.description } : {}),
      ...(chunk.metadata ? { metadata: structuredClone(chunk.metadata) } : {}),
    };
    const bytes = artifactChunkBytes(input);
    if (this.artifactBytes + bytes > this.o.maxArtifactBytes) {
      const limit = this.o.maxArtifactBytes;
      this.log.warn(
        { artifactBytes: this.artifactBytes, chunkBytes: bytes, limit },
        'artifact chunk refused: the task would pass its artifact limit (TASK_MAX_ARTIFACT_BYTES)',
      );
      this.overLimit = {
        parts: [{ text: `The task's artifacts would pass their limit of ${limit} bytes.` }],
      };
      return this.failOverArtifactLimit();
    }
    this.artifactBytes += bytes;
    // Write-behind by one step: the chunk waits for the agent's next call, or at most one turn
    // of the event loop. When that call ends the run (complete, fail, requestInput…), chunk and
    // ending go in one statement: the common "last artifact, then done" costs one transaction.
    // A failure to write it surfaces from the agent's next call.
    await this.writeHeld();
    this.assertOpen();
    this.held = input;
    setImmediate(() => void this.writeHeld());
  }

  /**
   * Writes a held chunk once the agent's calls made so far have run (and waits for the writes).
   * The runner calls it before it settles a run that did not end itself, so every chunk is
   * written before the outcome.
   */
  async drain(): Promise<void> {
    await this.turn;
    return this.writeHeld();
  }

  /** Writes a held chunk now (and waits for one being written). */
  private writeHeld(): Promise<void> {
    const input = this.held;
    if (input) {
      this.held = null;
      this.flushing = this.flushing
        .then(() =>
          // No state in the patch: a chunk is no status change, so the task's status time (which
          // GetTask shows and ListTasks filters on) stays that of its last status event.
          this.write({ ...this.visible() }, artifactEvent(this.record, input), input),
        )
        .catch((err: unknown) => {
          this.flushError ??= err;
        });
    }
    return this.flushing;
  }

  requestInput(input: MessageInput): Promise<void> {
    return this.inTurn(() => this.end(TaskState.INPUT_REQUIRED, input));
  }

  requestAuth(input: MessageInput): Promise<void> {
    return this.inTurn(() => this.end(TaskState.AUTH_REQUIRED, input));
  }

  complete(input?: MessageInput): Promise<void> {
    return this.inTurn(() => this.end(TaskState.COMPLETED, input));
  }

  /**
   * The runner's completion of a run whose agent returned without ending it: after the calls the
   * agent made (awaited or not), only if none of them ended the run, and not over an ending that
   * failed to be written.
   */
  completeIfOpen(): Promise<void> {
    return this.inTurn(async () => {
      if (this.ended) return;
      // An ending the agent asked for was not written (Postgres away): COMPLETED would answer in
      // its place. The run fails with that error instead, and its retry asks again.
      if (this.endingFailed !== undefined) throw this.endingFailed;
      await this.end(TaskState.COMPLETED);
    });
  }

  fail(input: MessageInput): Promise<void> {
    return this.inTurn(() => this.end(TaskState.FAILED, input));
  }

  reject(input: MessageInput): Promise<void> {
    return this.inTurn(() => this.end(TaskState.REJECTED, input));
  }

  /** Marks the context unusable (cancel or lease loss seen by the lease keeper or a hint). */
  close(reason: 'canceled' | 'lease-lost'): void {
    if (!this.ended) this.ended = reason;
  }

  private async end(state: TaskState, input?: MessageInput): Promise<void> {
    // Past the artifact limit every ending is that failure, whatever the agent makes of the
    // refusal: one that caught it and returned is completed by the runner otherwise.
    if (this.overLimit) [state, input] = [TaskState.FAILED, this.overLimit];
    const chunk = this.held;
    this.held = null;
    await this.flushing;
    const message = input === undefined ? null : this.agentMsg(input);
    try {
      await this.write(
        { state, statusMessage: message, clearLease: true, ...this.visible() },
        statusEvent(this.record, state, message),
        undefined,
        chunk ? { artifactChunk: chunk, event: artifactEvent(this.record, chunk) } : undefined,
      );
    } catch (err) {
      // Not written (Postgres away, say): the chunk waits for the run's next write.
      this.held ??= chunk;
      if (!(err instanceof RunEndedError)) this.endingFailed ??= err;
      throw err;
    }
    this.ended = 'finished';
  }

  /**
   * A chunk that would take the task past its artifact limit is not stored: the task fails with
   * a status message naming the limit (the chunks before it stay), and the agent's call throws
   * RunEndedError, as any call after its run ended does. Failed, not retried: a retry would
   * stream the same bytes into the same limit. Should the failure not be written (Postgres
   * away), the call throws that error instead, and the run's next ending writes the failure.
   */
  private async failOverArtifactLimit(): Promise<never> {
    await this.end(TaskState.FAILED);
    throw new RunEndedError('finished');
  }

  private visible(): Pick<TaskPatch, 'visibility'> {
    return this.record.visibility === 'pending' ? { visibility: 'task' } : {};
  }

  private agentMsg(input: MessageInput, withTask = true): Message {
    return agentMessage(input, {
      contextId: this.record.contextId,
      taskId: withTask ? this.record.id : undefined,
    });
  }

  /** Throws RunEndedError (or the failed flush's error) once the run can no longer write. */
  assertOpen(): void {
    if (this.flushError) throw this.flushError;
    if (this.ended) throw new RunEndedError(this.ended);
    if (this.o.refused()) throw new RunEndedError('canceled');
  }

  /** Notes whether a store call of the run found Postgres gone (storeWasAway), and passes it on. */
  private noteStore<T>(call: Promise<T>): Promise<T> {
    return call.then(
      (value) => {
        this.storeWasAway = false;
        return value;
      },
      (err: unknown) => {
        if (isStoreGone(err)) this.storeWasAway = true;
        throw err;
      },
    );
  }

  /** One fenced CAS write; on conflict re-read and retry while we still hold the lease. */
  private write(
    patch: TaskPatch,
    event: StreamResponse,
    artifactChunk?: ArtifactChunkInput,
    precededBy?: ChangeTaskInput['precededBy'],
  ): Promise<void> {
    const step = event.artifactUpdate
      ? 'emit-artifact'
      : event.message
        ? 'reply'
        : `status ${patch.state ?? ''}`.trim();
    this.writesInFlight++;
    return this.noteStore(
      withSpan(
        `agent.${step}`,
        { 'switchyard.task_id': this.record.id, 'switchyard.tenant_id': this.record.tenantId },
        () => this.writeOnce(patch, event, artifactChunk, precededBy),
      ),
    ).finally(() => this.writesInFlight--);
  }

  private async writeOnce(
    patch: TaskPatch,
    event: StreamResponse,
    artifactChunk?: ArtifactChunkInput,
    precededBy?: ChangeTaskInput['precededBy'],
  ): Promise<void> {
    this.assertOpen();
    for (let attempt = 0; ; attempt++) {
      try {
        // adopt, not assign: the upgrade may have written past this write before its reply came.
        this.adopt(
          await this.o.writer.change({
            tenantId: this.record.tenantId,
            taskId: this.record.id,
            expectedVersion: this.record.version,
            fromStates: [TaskState.WORKING],
            leaseOwner: this.o.leaseOwner,
            patch,
            event,
            ...(artifactChunk ? { artifactChunk } : {}),
            ...(precededBy ? { precededBy } : {}),
          }),
        );
        return;
      } catch (err) {
        if (!isConflict(err)) throw err;
        const fresh = await this.o.store.getTaskRecord(this.record.tenantId, this.record.id);
        if (!fresh || isTerminal(fresh.state)) this.ended = 'canceled';
        else if (fresh.leaseOwner !== this.o.leaseOwner || fresh.state !== TaskState.WORKING)
          this.ended = 'lease-lost';
        else if (attempt < 5) {
          // Someone else changed a field we do not own (e.g. a gateway made the task visible).
          this.record = fresh;
          if (patch.visibility === 'message' && fresh.visibility !== 'pending' && patch.reply) {
            // The task became visible while the agent answered with a Message (its quick-reply
            // window closed, or a gateway made it visible): the answer now completes the task,
            // as complete() writes it, so the task shows it and every stream sees COMPLETED.
            const message = { ...patch.reply, taskId: fresh.id };
            patch = { state: TaskState.COMPLETED, statusMessage: message, clearLease: true };
            event = statusEvent(fresh, TaskState.COMPLETED, message);
          } else if (patch.visibility && fresh.visibility !== 'pending') delete patch.visibility;
          continue;
        }
        const reason = this.ended === 'canceled' ? 'canceled' : 'lease-lost';
        this.o.stop(reason);
        throw new RunEndedError(reason, { cause: err });
      }
    }
  }
}
