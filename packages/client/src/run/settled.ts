import { isInterrupted, isTerminal, type TaskState } from '@switchyard/protocol';

/** Where `run()` stops: terminal, or interrupted and waiting for the client (digest §2.1). */
export function isSettled(state: TaskState): boolean {
  return isTerminal(state) || isInterrupted(state);
}
