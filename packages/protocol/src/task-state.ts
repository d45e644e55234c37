/**
 * TaskState enum of `lf.a2a.v1` (digest §2.1). Values are the ProtoJSON enum names, which is what
 * we always write; `TASK_STATE_NUMBERS` holds the proto numbers that lenient readers accept (§1).
 */
export const TaskState = {
  UNSPECIFIED: 'TASK_STATE_UNSPECIFIED',
  SUBMITTED: 'TASK_STATE_SUBMITTED',
  WORKING: 'TASK_STATE_WORKING',
  COMPLETED: 'TASK_STATE_COMPLETED',
  FAILED: 'TASK_STATE_FAILED',
  CANCELED: 'TASK_STATE_CANCELED',
  INPUT_REQUIRED: 'TASK_STATE_INPUT_REQUIRED',
  REJECTED: 'TASK_STATE_REJECTED',
  AUTH_REQUIRED: 'TASK_STATE_AUTH_REQUIRED',
} as const;

export type TaskState = (typeof TaskState)[keyof typeof TaskState];

/** Every TaskState, in proto-number order (index = proto number). */
export const TASK_STATES: readonly TaskState[] = Object.freeze([
  TaskState.UNSPECIFIED,
  TaskState.SUBMITTED,
  TaskState.WORKING,
  TaskState.COMPLETED,
  TaskState.FAILED,
  TaskState.CANCELED,
  TaskState.INPUT_REQUIRED,
  TaskState.REJECTED,
  TaskState.AUTH_REQUIRED,
]);

/** Proto enum numbers, for ProtoJSON readers that receive integers (digest §1 "Enums"). */
export const TASK_STATE_NUMBERS: Readonly<Record<TaskState, number>> = Object.freeze(
  Object.fromEntries(TASK_STATES.map((s, i) => [s, i])) as Record<TaskState, number>,
);

/** Terminal states: the task is immutable and can never move again (digest §2.1, §7.1 rule 8). */
export const TERMINAL_STATES: readonly TaskState[] = Object.freeze([
  TaskState.COMPLETED,
  TaskState.FAILED,
  TaskState.CANCELED,
  TaskState.REJECTED,
]);

/** Interrupted states: the task waits for the client; a new message continues it (§7.2 rule 10). */
export const INTERRUPTED_STATES: readonly TaskState[] = Object.freeze([
  TaskState.INPUT_REQUIRED,
  TaskState.AUTH_REQUIRED,
]);

const terminal = new Set<TaskState>(TERMINAL_STATES);
const interrupted = new Set<TaskState>(INTERRUPTED_STATES);

/** True for COMPLETED, FAILED, CANCELED and REJECTED. */
export function isTerminal(state: TaskState): boolean {
  return terminal.has(state);
}

/** True for INPUT_REQUIRED and AUTH_REQUIRED. */
export function isInterrupted(state: TaskState): boolean {
  return interrupted.has(state);
}

/** Type guard for strings read from storage or the wire. */
export function isTaskState(value: unknown): value is TaskState {
  return typeof value === 'string' && (TASK_STATES as readonly string[]).includes(value);
}
