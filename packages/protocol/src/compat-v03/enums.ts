import { TaskState } from '../task-state.ts';
import { Role } from '../types/message.ts';
import type { RoleV03, TaskStateV03 } from './types.ts';

/** Digest §13.3: lowercase 0.3 states ↔ 1.0 enum names. `unknown` is UNSPECIFIED. */
const STATES: ReadonlyArray<readonly [TaskStateV03, TaskState]> = [
  ['unknown', TaskState.UNSPECIFIED],
  ['submitted', TaskState.SUBMITTED],
  ['working', TaskState.WORKING],
  ['completed', TaskState.COMPLETED],
  ['failed', TaskState.FAILED],
  ['canceled', TaskState.CANCELED],
  ['input-required', TaskState.INPUT_REQUIRED],
  ['rejected', TaskState.REJECTED],
  ['auth-required', TaskState.AUTH_REQUIRED],
];
const toV03States = new Map<string, TaskStateV03>(STATES.map(([v03, v1]) => [v1, v03]));
const fromV03States = new Map<string, TaskState>(STATES.map(([v03, v1]) => [v03, v1]));

export function toV03TaskState(state: TaskState): TaskStateV03 {
  return toV03States.get(state) ?? 'unknown';
}

/** An unrecognized value passes through for the 1.0 validator to reject. */
export function fromV03TaskState(state: TaskStateV03): TaskState {
  return fromV03States.get(state) ?? (state as unknown as TaskState);
}

export function toV03Role(role: Role): RoleV03 {
  return role === Role.USER ? 'user' : 'agent';
}

export function fromV03Role(role: RoleV03): Role {
  if (role === 'user') return Role.USER;
  if (role === 'agent') return Role.AGENT;
  return role as unknown as Role;
}
