import type { StreamResponse, TaskState } from '@switchyard/protocol';

/**
 * A pub/sub message saying "task X's log grew to seq N". Only a hint (ARCHITECTURE.md §3 rule 3):
 * receivers that miss one, or see a gap, read the log from Postgres. Small events ride along as
 * `payload` so a subscriber in step can skip the read.
 */
export interface TaskHint {
  tenantId: string;
  taskId: string;
  seq: number;
  state: TaskState;
  payload?: StreamResponse;
  /**
   * The event just before this one, when one write appended two (an artifact's last chunk and the
   * ending): one message instead of two. Receivers that ignore it read seq - 1 from the log.
   */
  before?: { seq: number; payload: StreamResponse };
}

/** Events larger than this are not inlined in hints (subscribers read them from the log). */
export const MAX_INLINE_PAYLOAD_BYTES = 16 * 1024;

export function encodeHint(hint: TaskHint): string {
  const full = JSON.stringify(hint);
  if (full.length <= MAX_INLINE_PAYLOAD_BYTES || (!hint.payload && !hint.before)) return full;
  const { payload: _dropped, before: _droppedToo, ...rest } = hint;
  return JSON.stringify(rest);
}

export function decodeHint(raw: string): TaskHint | null {
  try {
    const v = JSON.parse(raw) as Partial<TaskHint>;
    if (typeof v.tenantId !== 'string' || typeof v.taskId !== 'string' || typeof v.seq !== 'number')
      return null;
    return v as TaskHint;
  } catch {
    // A malformed hint is dropped: hints are advisory, the log is the truth.
    return null;
  }
}
