import type { Task } from './types/task.ts';

/**
 * Applies `historyLength` (digest §7.3): undefined → the whole history (our default is "all");
 * 0 → undefined, so the `history` key is omitted; N > 0 → the N most recent messages.
 * Validation rejects negative values as InvalidParams before we get here, so a negative or
 * non-integer value is a programming error.
 */
export function trimHistory<T>(history: readonly T[] | undefined, historyLength?: number): T[] | undefined {
  if (historyLength !== undefined && (!Number.isInteger(historyLength) || historyLength < 0)) {
    throw new RangeError(`historyLength must be an integer >= 0, got ${historyLength}`);
  }
  if (history === undefined || historyLength === 0) return undefined;
  if (historyLength === undefined || historyLength >= history.length) return [...history];
  return history.slice(history.length - historyLength);
}

/** A copy of `task` with its history trimmed; the key is absent when the result is undefined. */
export function withTrimmedHistory(task: Task, historyLength?: number): Task {
  const { history, ...rest } = task;
  const trimmed = trimHistory(history, historyLength);
  return trimmed === undefined ? rest : { ...rest, history: trimmed };
}
