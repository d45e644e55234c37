import {
  isInterrupted,
  type AgentCard,
  type Message,
  type SendMessageResponse,
  type Task,
  type TaskStatus,
} from '@switchyard/protocol';
import { RunTimeoutError } from '../errors/run-timeout-error.ts';
import type { A2ATransport } from '../transport/transport.ts';
import { invalidResponse } from '../transport/stream-response.ts';
import { followTask, statusKey, type FollowContext } from './follow-task.ts';
import type { FollowOptions, RunOptions } from './run-options.ts';
import { statusBeforeSend } from './status-before-send.ts';
import { TaskTracker } from './task-tracker.ts';

/**
 * The safe pattern (issue 7): send non-blocking (`returnImmediately`), so no connection has to
 * stay open for the task's lifetime, then follow it (followTask) until it settles. The message's
 * messageId is the idempotency key: every retry of the send resends it unchanged. For a follow-up
 * message (one with a taskId), `knownStatus` is the task's status before the send, when the caller
 * has it (see statusBeforeSend).
 */
export async function runTask(
  transport: A2ATransport,
  card: AgentCard,
  message: Message,
  options: RunOptions = {},
  knownStatus?: TaskStatus,
): Promise<SendMessageResponse> {
  return withDeadline(options, async (signal, holder) => {
    const before = await statusBeforeSend(transport, message, knownStatus, signal);
    const reply = await transport.sendMessage(
      {
        message,
        configuration: { ...options.configuration, returnImmediately: true },
        ...(options.metadata ? { metadata: options.metadata } : {}),
      },
      { signal },
    );
    if (reply.message) {
      options.onEvent?.({ response: { message: reply.message } });
      return { message: reply.message };
    }
    if (!reply.task) throw invalidResponse('SendMessage answered with neither a task nor a message', 200);
    holder.tracker = new TaskTracker(reply.task);
    options.onEvent?.({ response: { task: reply.task } });
    // Until the server takes a follow-up message in, the task may still show the interrupted status
    // the message answers (a2a-js does): that exact status is no answer. Any other one is, even
    // another INPUT_REQUIRED (the agent's next question, already asked when the send returned).
    const stale = before && isInterrupted(before.state) ? statusKey(before) : undefined;
    const ctx = context(transport, card, reply.task.id, options, signal, holder);
    const task = await followTask(stale !== undefined ? { ...ctx, staleStatus: stale } : ctx);
    return { task };
  });
}

/** Follows an existing task (by id) until it settles; the first event is its current snapshot. */
export async function waitForTask(
  transport: A2ATransport,
  card: AgentCard,
  taskId: string,
  options: FollowOptions = {},
): Promise<Task> {
  return withDeadline(options, (signal, holder) =>
    followTask(context(transport, card, taskId, options, signal, holder)),
  );
}

function context(
  transport: A2ATransport,
  card: AgentCard,
  taskId: string,
  options: FollowOptions,
  signal: AbortSignal,
  holder: { tracker?: TaskTracker },
): FollowContext {
  const streaming = options.stream !== false && card.capabilities?.streaming === true;
  return { transport, taskId, streaming, options, signal, holder };
}

async function withDeadline<T>(
  options: FollowOptions,
  body: (signal: AbortSignal, holder: { tracker?: TaskTracker }) => Promise<T>,
): Promise<T> {
  const deadline = options.timeoutMs !== undefined ? AbortSignal.timeout(options.timeoutMs) : undefined;
  const signals = [options.signal, deadline].filter((s): s is AbortSignal => s !== undefined);
  const signal = signals.length > 0 ? AbortSignal.any(signals) : new AbortController().signal;
  const holder: { tracker?: TaskTracker } = {};
  try {
    return await body(signal, holder);
  } catch (err) {
    if (deadline?.aborted && !options.signal?.aborted) {
      throw new RunTimeoutError(options.timeoutMs ?? 0, holder.tracker?.task);
    }
    throw err;
  }
}
