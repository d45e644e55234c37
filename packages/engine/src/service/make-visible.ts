import { isConflict, type TaskRecord, type TaskStore } from '@switchyard/store';
import { statusEvent } from '../task-events.ts';
import type { TaskWriter } from '../task-writer.ts';

/**
 * Turns a 'pending' request into a visible Task (ARCHITECTURE.md §5 upgrade), announcing it with
 * a statusUpdate of its current status so streams and push receivers learn of it. Racing writers
 * (the agent replying, another gateway upgrading) are settled by the CAS: on conflict re-read and
 * return whatever won. Optionally fenced by the worker's lease.
 */
export async function makeVisible(
  deps: { store: TaskStore; writer: TaskWriter },
  record: TaskRecord,
  leaseOwner?: string,
): Promise<TaskRecord> {
  let current: TaskRecord | null = record;
  for (let attempt = 0; current && current.visibility === 'pending' && attempt < 5; attempt++) {
    try {
      return await deps.writer.change({
        tenantId: current.tenantId,
        taskId: current.id,
        expectedVersion: current.version,
        ...(leaseOwner ? { leaseOwner } : {}),
        patch: { visibility: 'task' },
        // The status itself does not change: announced with its own timestamp, not this moment's,
        // so a status event the worker stamped earlier and commits later never looks older.
        event: statusEvent(current, current.state, current.statusMessage, current.statusTimestamp),
      });
    } catch (err) {
      if (!isConflict(err)) throw err;
      current = await deps.store.getTaskRecord(record.tenantId, record.id);
    }
  }
  if (!current) throw new Error(`task ${record.id} vanished while being made visible`);
  return current;
}
