import { TaskState } from './task-state.ts';

const { WORKING, INPUT_REQUIRED, AUTH_REQUIRED, COMPLETED, FAILED, CANCELED, REJECTED } = TaskState;

/**
 * THE table of allowed task state edges (ARCHITECTURE §3 rule 2). Everything not listed is
 * illegal. Terminal states have no way out: a finished task is immutable (digest §7.1 rule 8).
 * WORKING → WORKING carries status-message and artifact updates while the agent works.
 * Interrupted states go back to WORKING when the client answers (§7.2 rule 10), or end.
 * UNSPECIFIED is never valid for a real task (§2.1), so it is neither a source nor a target.
 */
export const TRANSITIONS: Readonly<Record<TaskState, readonly TaskState[]>> = Object.freeze({
  TASK_STATE_UNSPECIFIED: [],
  TASK_STATE_SUBMITTED: [WORKING, FAILED, CANCELED, REJECTED],
  TASK_STATE_WORKING: [WORKING, INPUT_REQUIRED, AUTH_REQUIRED, COMPLETED, FAILED, CANCELED, REJECTED],
  TASK_STATE_INPUT_REQUIRED: [WORKING, CANCELED, FAILED],
  TASK_STATE_AUTH_REQUIRED: [WORKING, CANCELED, FAILED],
  TASK_STATE_COMPLETED: [],
  TASK_STATE_FAILED: [],
  TASK_STATE_CANCELED: [],
  TASK_STATE_REJECTED: [],
});

/** True when `from → to` is an edge of the table. */
export function canTransition(from: TaskState, to: TaskState): boolean {
  return TRANSITIONS[from]?.includes(to) ?? false;
}

/** The states reachable from `from` in one step (empty for terminal states). */
export function allowedFrom(from: TaskState): readonly TaskState[] {
  return TRANSITIONS[from] ?? [];
}

/** Every state that may move to `to` in one step: the `state = ANY($n)` guard of a compare-and-set. */
export function allowedInto(to: TaskState): readonly TaskState[] {
  return (Object.keys(TRANSITIONS) as TaskState[]).filter((from) => canTransition(from, to));
}

/** Thrown by `assertTransition`: an engine bug or a lost race, never a client error. */
export class IllegalTransitionError extends Error {
  readonly from: TaskState;
  readonly to: TaskState;

  constructor(from: TaskState, to: TaskState) {
    super(`Illegal task state transition ${from} → ${to}`);
    this.name = 'IllegalTransitionError';
    this.from = from;
    this.to = to;
  }
}

export function assertTransition(from: TaskState, to: TaskState): void {
  if (!canTransition(from, to)) throw new IllegalTransitionError(from, to);
}
