import {
  CancelTaskRequest,
  GetTaskRequest,
  Message as SdkMessage,
  SendMessageRequest,
  StreamResponse as SdkStreamResponse,
  SubscribeToTaskRequest,
  Task as SdkTask,
} from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { AgentContext } from '@switchyard/agents';
import type { Message, StreamResponse, Task } from '@switchyard/protocol';
import { EventMapper, type Progress } from './event-mapper.ts';
import { withHops, type Hops } from './upstream-hops.ts';
import { readLink, upstreamMessageId, writeLink, type UpstreamLink } from './upstream-link.ts';

export interface RunTimings {
  /** First GetTask poll delay; doubles up to pollMaxMs. */
  pollMinMs: number;
  pollMaxMs: number;
  /** Times a dropped stream is resumed (resubscribe or poll) before the attempt fails. */
  maxResumes: number;
}

/**
 * One run of a Switchyard task against its upstream agent: send this turn's message (or carry on
 * with a turn a dead worker already delivered), follow the upstream task to an ending, and write
 * each step into our task. Any error is thrown to the caller, which classifies it.
 */
export class UpstreamRun {
  private readonly ctx: AgentContext;
  private readonly client: Client;
  private readonly streaming: boolean;
  private readonly timings: RunTimings;
  private readonly mapper: EventMapper;
  private readonly hops: Hops;
  private link: UpstreamLink;

  constructor(ctx: AgentContext, client: Client, streaming: boolean, timings: RunTimings, hops: Hops) {
    this.ctx = ctx;
    this.client = client;
    this.streaming = streaming;
    this.timings = timings;
    this.hops = hops;
    this.mapper = new EventMapper(ctx, (key) => this.interrupted(key));
    this.link = { turn: upstreamMessageId(ctx.task.id, ctx.message.messageId), delivered: false };
  }

  /** The upstream task id, once known (the caller forwards a cancel to it). */
  get upstreamTaskId(): string | undefined {
    return this.link.taskId;
  }

  async run(): Promise<void> {
    // This executor follows the upstream task rather than replaying from the top, so chunks an
    // earlier attempt stored are ours already and the mapper adds only what they lack.
    this.ctx.resumeAfterStoredChunks();
    const saved = await readLink(this.ctx.memory, this.ctx.task.id);
    const turn = this.link.turn;
    this.link = { ...saved, turn, delivered: saved?.turn === turn && saved.delivered };
    // The question an earlier turn relayed is what this turn answers; one recorded in this very
    // turn (its relay never landed: a retry) is still to be asked.
    this.mapper.answering = saved?.askedIn !== turn ? saved?.answering : undefined;
    if (this.link.delivered || (await this.turnArrived())) {
      return this.follow(await this.resume());
    }
    await writeLink(this.ctx.memory, this.ctx.task.id, this.link);
    return this.follow(await this.send());
  }

  /**
   * A continuation not yet confirmed delivered: if the upstream task has left the interrupted
   * state it was waiting in, there is nothing to send, only a task to follow. Either our message
   * arrived before a worker died (a retried turn), or the upstream went on without it: credentials
   * given out of band end an AUTH_REQUIRED there, while our task waits for its client's next
   * message, which would reach a finished upstream task and be refused.
   */
  private async turnArrived(): Promise<boolean> {
    if (!this.link.taskId) return false;
    const task = await this.getTask(this.link.taskId);
    const waiting =
      task.status.state === 'TASK_STATE_INPUT_REQUIRED' || task.status.state === 'TASK_STATE_AUTH_REQUIRED';
    if (!waiting) await this.confirm(task.id, task.contextId);
    return !waiting;
  }

  private async send(): Promise<Progress> {
    const message: Message = {
      messageId: this.link.turn,
      role: 'ROLE_USER',
      parts: this.ctx.message.parts,
      // The client's metadata, with the hops the message will have made (the loop guard). The
      // same on every retry of the turn, as the messageId is.
      metadata: withHops(this.ctx.message.metadata, this.hops),
      ...(this.ctx.message.extensions ? { extensions: this.ctx.message.extensions } : {}),
      ...(this.link.taskId ? { taskId: this.link.taskId } : {}),
      ...(this.link.contextId ? { contextId: this.link.contextId } : {}),
    };
    const configuration = {
      ...(this.ctx.acceptedOutputModes ? { acceptedOutputModes: [...this.ctx.acceptedOutputModes] } : {}),
      // Never hold an upstream connection open waiting for the whole task: stream or poll instead.
      ...(this.streaming ? {} : { returnImmediately: true }),
    };
    const request = SendMessageRequest.fromJSON({ message, configuration });
    if (this.streaming) return this.consume(this.client.sendMessageStream(request));
    const result = await this.client.sendMessage(request);
    if ('status' in result) {
      const task = SdkTask.toJSON(result) as Task;
      await this.confirm(task.id, task.contextId);
      return this.mapper.reconcile(task);
    }
    await this.confirm(undefined, undefined);
    return this.mapper.apply({ message: SdkMessage.toJSON(result) as Message }, () => Promise.resolve());
  }

  /** Picks up the upstream task after a dead worker or a dropped stream: snapshot, then events. */
  private async resume(): Promise<Progress> {
    const taskId = this.link.taskId;
    // Delivered but never named (the upstream answered with a Message): the reply was lost with
    // the worker, and the turn's messageId lets a deduplicating upstream answer it again.
    if (!taskId) return this.send();
    const snapshot = await this.getTask(taskId);
    if ((await this.mapper.reconcile(snapshot)) === 'ended') return 'ended';
    if (!this.streaming) return 'open';
    try {
      return await this.consume(this.client.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: taskId })));
    } catch (err) {
      // The task ended between the snapshot and the subscribe, and the spec refuses a subscription
      // to a terminal task with UnsupportedOperation: a stream that ended, so the next resume's
      // snapshot brings the ending (the resume limit still bounds an upstream that always refuses).
      if (err instanceof UnsupportedOperationError) return 'open';
      throw err;
    }
  }

  /** Until the upstream task ends: resume dropped streams, poll non-streaming agents. */
  private async follow(progress: Progress): Promise<void> {
    let delayMs = this.timings.pollMinMs;
    let resumes = 0;
    while (progress === 'open') {
      this.ctx.signal.throwIfAborted();
      if (this.streaming) {
        if (++resumes > this.timings.maxResumes)
          throw new Error('the upstream stream kept ending before the task did');
        progress = await this.resume();
        continue;
      }
      await sleep(delayMs, this.ctx.signal);
      delayMs = Math.min(delayMs * 2, this.timings.pollMaxMs);
      progress = await this.mapper.reconcile(await this.getTask(this.link.taskId ?? ''));
    }
  }

  private async consume(events: AsyncGenerator<SdkStreamResponse>): Promise<Progress> {
    for await (const event of events) {
      const progress = await this.mapper.apply(
        SdkStreamResponse.toJSON(event) as StreamResponse,
        (id, contextId) => this.confirm(id, contextId),
      );
      if (progress === 'ended') return 'ended';
    }
    return 'open';
  }

  /**
   * Records the interrupt about to be relayed, while the run may still write its memory: the next
   * turn answers it, and must not take it for a new question (UpstreamLink.answering).
   */
  private async interrupted(key: string | undefined): Promise<void> {
    if (this.link.answering === key && this.link.askedIn === this.link.turn) return;
    const { answering: _key, askedIn: _turn, ...link } = this.link;
    this.link = key === undefined ? link : { ...link, answering: key, askedIn: link.turn };
    await writeLink(this.ctx.memory, this.ctx.task.id, this.link);
  }

  /** Records the upstream task id (and that this turn arrived) before anything else is written. */
  private async confirm(taskId: string | undefined, contextId: string | undefined): Promise<void> {
    if (this.link.delivered && (taskId === undefined || this.link.taskId === taskId)) return;
    this.link = {
      ...this.link,
      ...(taskId ? { taskId } : {}),
      ...(contextId ? { contextId } : {}),
      delivered: true,
    };
    await writeLink(this.ctx.memory, this.ctx.task.id, this.link);
  }

  private async getTask(id: string): Promise<Task> {
    return SdkTask.toJSON(
      await this.client.getTask(GetTaskRequest.fromJSON({ id, historyLength: 0 })),
    ) as Task;
  }
}

/** Forwards our cancel to the upstream task. Best effort: our task is CANCELED either way. */
export async function forwardCancel(client: Client, upstreamTaskId: string): Promise<void> {
  await client.cancelTask(CancelTaskRequest.fromJSON({ id: upstreamTaskId }));
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
