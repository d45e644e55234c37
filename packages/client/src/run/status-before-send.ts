import type { Message, TaskStatus } from '@switchyard/protocol';
import type { A2ATransport } from '../transport/transport.ts';

/** Per Message object: the status its task had before the first send of that message. */
const firstSeen = new WeakMap<Message, TaskStatus>();

/**
 * The status the task of a follow-up message had before the message was sent, so that the
 * answer to the message is not mistaken for the state the message answers (followTask's
 * `staleStatus`). It is what the caller knows (`continueTask(task)` passes the task's status),
 * else one GetTask before the send. It is kept per Message object: running the same message again,
 * after a failure its send may have outlived, compares with the status before the first send,
 * not with the agent's answer to it. Undefined for a message that starts a task.
 */
export async function statusBeforeSend(
  transport: A2ATransport,
  message: Message,
  known: TaskStatus | undefined,
  signal: AbortSignal,
): Promise<TaskStatus | undefined> {
  if (message.taskId === undefined) return undefined;
  const status =
    firstSeen.get(message) ??
    known ??
    (await transport.getTask(message.taskId, { historyLength: 0, signal })).status;
  firstSeen.set(message, status);
  return status;
}
