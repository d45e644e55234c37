import type { AgentContext, MessageInput } from '@switchyard/agents';
import {
  isInterrupted,
  isTerminal,
  TaskState,
  type Artifact,
  type Message,
  type StreamResponse,
  type Task,
  type TaskStatus,
} from '@switchyard/protocol';
import { interruptKey } from './upstream-link.ts';

/** Whether the run has reached an ending (terminal or interrupted): no more events matter. */
export type Progress = 'open' | 'ended';

/**
 * Turns the upstream agent's A2A events into writes on our task, through the AgentContext, so
 * every one is a fenced compare-and-set plus an event in our log. It mirrors how many parts of
 * each artifact our task already holds; a snapshot (a Task from GetTask or the first event of a
 * resubscription) then adds only what is missing, which makes resuming after a crash, a dropped
 * stream or a poll exact: no chunk twice, none lost.
 */
export class EventMapper {
  private readonly ctx: AgentContext;
  private readonly partsHeld = new Map<string, number>();
  private readonly closed = new Set<string>();
  /** The interrupt this turn answers (UpstreamLink.answering): seen again, it is still open. */
  answering: string | undefined;
  /** Hears an interrupt before it is relayed (and the run ends): the run records it. */
  private readonly onInterrupt: (key: string | undefined) => Promise<void>;

  constructor(ctx: AgentContext, onInterrupt: (key: string | undefined) => Promise<void> = async () => {}) {
    this.ctx = ctx;
    this.onInterrupt = onInterrupt;
    for (const artifact of ctx.task.artifacts) this.partsHeld.set(artifact.artifactId, artifact.parts.length);
  }

  /** Applies one streamed item. `onTask` hears the upstream task id as soon as it is known. */
  async apply(
    event: StreamResponse,
    onTask: (taskId: string, contextId?: string) => Promise<void>,
  ): Promise<Progress> {
    if (event.message) return this.applyMessage(event.message);
    if (event.task) {
      await onTask(event.task.id, event.task.contextId);
      // A stream opens with the task as it stands: for a continuation that is still the
      // interrupted state our message answers, so only a terminal state ends the run here.
      return this.reconcile(event.task, { interruptedEnds: false });
    }
    if (event.statusUpdate) {
      await onTask(event.statusUpdate.taskId, event.statusUpdate.contextId);
      return this.applyStatus(event.statusUpdate.status, false);
    }
    if (event.artifactUpdate) {
      await onTask(event.artifactUpdate.taskId, event.artifactUpdate.contextId);
      const { artifact, append, lastChunk } = event.artifactUpdate;
      await this.emit(
        artifact,
        append === true && this.partsHeld.has(artifact.artifactId),
        lastChunk === true,
      );
      return 'open';
    }
    return 'open';
  }

  /** A Task snapshot: add the artifact parts we lack, then follow its status if it has ended. */
  async reconcile(task: Task, { interruptedEnds = true } = {}): Promise<Progress> {
    // Once the upstream task has ended its artifacts are whole: what we add closes them.
    const final = isTerminal(task.status.state);
    for (const artifact of task.artifacts ?? []) {
      const held = this.partsHeld.get(artifact.artifactId) ?? 0;
      if (artifact.parts.length <= held || this.closed.has(artifact.artifactId)) continue;
      await this.emit({ ...artifact, parts: artifact.parts.slice(held) }, held > 0, final);
    }
    if (!interruptedEnds && isInterrupted(task.status.state)) return 'open';
    return this.applyStatus(task.status, true);
  }

  private async emit(artifact: Artifact, append: boolean, lastChunk: boolean): Promise<void> {
    if (artifact.parts.length === 0) return;
    await this.ctx.emitArtifact({
      artifactId: artifact.artifactId,
      parts: artifact.parts,
      append,
      lastChunk,
      ...(artifact.name !== undefined ? { name: artifact.name } : {}),
      ...(artifact.description !== undefined ? { description: artifact.description } : {}),
      ...(artifact.metadata ? { metadata: artifact.metadata } : {}),
    });
    const before = append ? (this.partsHeld.get(artifact.artifactId) ?? 0) : 0;
    this.partsHeld.set(artifact.artifactId, before + artifact.parts.length);
    if (lastChunk) this.closed.add(artifact.artifactId);
  }

  /** A bare Message answers the request: our reply (or, once our task is visible, its completion). */
  private async applyMessage(message: Message): Promise<Progress> {
    await this.ctx.reply(said(message) ?? 'The agent replied with an empty message.');
    return 'ended';
  }

  /**
   * Follows an upstream status. A snapshot's WORKING message was already relayed when it happened,
   * so only a live status update writes progress.
   */
  private async applyStatus(status: TaskStatus, fromSnapshot: boolean): Promise<Progress> {
    const message = status.message ? said(status.message) : undefined;
    if (isInterrupted(status.state)) {
      const key = interruptKey(status);
      // The question our message answers, shown until the upstream takes the answer up.
      if (key !== undefined && key === this.answering) return 'open';
      await this.onInterrupt(key);
    }
    switch (status.state) {
      case TaskState.SUBMITTED:
      case TaskState.WORKING:
        if (message && !fromSnapshot) await this.ctx.setStatus(message);
        return 'open';
      case TaskState.INPUT_REQUIRED:
        await this.ctx.requestInput(message ?? 'The agent needs more input.');
        return 'ended';
      case TaskState.AUTH_REQUIRED:
        await this.ctx.requestAuth(message ?? 'The agent needs authorization.');
        return 'ended';
      case TaskState.COMPLETED:
        await this.ctx.complete(message);
        return 'ended';
      case TaskState.FAILED:
        await this.ctx.fail(message ?? 'The upstream agent failed.');
        return 'ended';
      case TaskState.REJECTED:
        await this.ctx.reject(message ?? 'The upstream agent rejected the task.');
        return 'ended';
      case TaskState.CANCELED:
        // Our cancel was forwarded: our task is already CANCELED. Otherwise the upstream gave up.
        if (this.ctx.signal.aborted) return 'ended';
        await this.ctx.fail(message ?? 'The upstream agent canceled the task.');
        return 'ended';
      default:
        return 'open';
    }
  }
}

/** An upstream message as our status or reply text: its parts and metadata (ids are ours). */
function said(message: Message): MessageInput | undefined {
  if (message.parts.length === 0) return undefined;
  return { parts: message.parts, ...(message.metadata ? { metadata: message.metadata } : {}) };
}
