import { isA2AError, TaskState } from '@switchyard/protocol';
import { AdminApiError } from '../admin/admin-api-error.ts';
import { isNetworkError } from '../errors/network-error.ts';
import { RunTimeoutError } from '../errors/run-timeout-error.ts';
import { isTransient } from '../retry/retry-policy.ts';
import { UsageError } from './usage-error.ts';

/** The CLI's exit codes: stable, documented in README.md. */
export const ExitCode = {
  /** Success; for task commands, the task COMPLETED (or is still SUBMITTED/WORKING, for `get`). */
  OK: 0,
  /** Bad arguments or options (also an unreadable --card file). */
  USAGE: 1,
  /** The server answered with an error (TaskNotFound, InvalidParams, Unauthenticated, …). */
  A2A_ERROR: 2,
  /** The task ended FAILED, REJECTED or CANCELED. */
  TASK_FAILED: 3,
  /** The task waits for the client: INPUT_REQUIRED or AUTH_REQUIRED. */
  TASK_NEEDS_INPUT: 4,
  /** No answer: network failure, or the server stayed unavailable (502/503/504) through every retry. */
  UNAVAILABLE: 5,
  /** `--timeout` passed while the task was still running. */
  TIMEOUT: 6,
  /** Interrupted by SIGINT. */
  INTERRUPTED: 130,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export function exitCodeForState(state: TaskState): ExitCode {
  switch (state) {
    case TaskState.FAILED:
    case TaskState.REJECTED:
    case TaskState.CANCELED:
      return ExitCode.TASK_FAILED;
    case TaskState.INPUT_REQUIRED:
    case TaskState.AUTH_REQUIRED:
      return ExitCode.TASK_NEEDS_INPUT;
    default:
      return ExitCode.OK;
  }
}

export function exitCodeForError(error: unknown): ExitCode {
  if (error instanceof UsageError) return ExitCode.USAGE;
  if (error instanceof RunTimeoutError) return ExitCode.TIMEOUT;
  if (isNetworkError(error)) return ExitCode.UNAVAILABLE;
  if (isAbort(error)) return ExitCode.INTERRUPTED;
  if (isA2AError(error) || error instanceof AdminApiError)
    return isTransient(error) ? ExitCode.UNAVAILABLE : ExitCode.A2A_ERROR;
  return ExitCode.USAGE;
}

export function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'Interrupted');
}
