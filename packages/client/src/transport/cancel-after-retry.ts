import { isA2AErrorOfKind, TaskState, type Task } from '@switchyard/protocol';

/**
 * A cancel whose reply was lost is retried, and the retry meets what the first attempt did: the
 * task is CANCELED, so the server refuses the retry with TaskNotCancelable. Only for a refusal
 * after a retry, read the task: CANCELED is the outcome the caller asked for, so it is the answer.
 * Any other state (COMPLETED, FAILED...) keeps the refusal, which is then true.
 */
export async function canceledByEarlierAttempt(error: unknown, readTask: () => Promise<Task>): Promise<Task> {
  if (!isA2AErrorOfKind(error, 'TaskNotCancelable')) throw error;
  const task = await readTask().catch(() => {
    throw error;
  });
  if (task.status.state !== TaskState.CANCELED) throw error;
  return task;
}
