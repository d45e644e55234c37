import { afterEach, describe, expect, it, vi } from 'vitest';
import { TaskState } from '@switchyard/protocol';
import type { TaskRecord, TaskStore } from '@switchyard/store';
import { isSettled, mayHaveSettled, waitForRecord } from '../src/service/wait-for-settle.ts';
import { fakeHub } from './fake-hub.ts';

// The wait's own logic, with the store and hub as in-memory ports: the race needs a hint to land
// exactly while a read is in flight, which real services cannot be made to do on demand.
const record = (state: TaskState, version: number) =>
  ({ tenantId: 't', id: 'x', state, version, visibility: 'task' }) as TaskRecord;

/**
 * Starts a wait on task 'x' whose store answers `read(n)` for its n-th read. The clock is faked
 * and never advanced, so the 60 s poll cannot fire: only hints end the wait (a lost hint hangs the
 * test until vitest's own timeout fails it).
 */
function startWait(
  read: (n: number, emit: ReturnType<typeof fakeHub>['emit']) => TaskRecord,
  wakeOn?: typeof mayHaveSettled,
) {
  const { hub, emit } = fakeHub();
  let reads = 0;
  const store = { getTaskRecord: async () => read(++reads, emit) } as unknown as TaskStore;
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
  const waiting = waitForRecord({ store, hub, pollIntervalMs: 60_000 }, 't', 'x', isSettled, {
    timeoutMs: 60_000,
    ...(wakeOn ? { wakeOn } : {}),
  });
  return { waiting, emit, reads: () => reads };
}

const turn = () => new Promise((r) => setImmediate(r));

describe('waitForRecord', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a hint that arrives while the record is being read is not lost (no sleep until the next poll)', async () => {
    const { waiting, reads } = startWait((n, emit) => {
      if (n === 1) {
        // The read saw WORKING; the COMPLETED change commits and its hint lands before the
        // read's answer is handled.
        emit({ tenantId: 't', taskId: 'x', seq: 3, state: TaskState.COMPLETED });
        return record(TaskState.WORKING, 2);
      }
      return record(TaskState.COMPLETED, 3);
    });
    expect((await waiting)?.state).toBe(TaskState.COMPLETED);
    expect(reads()).toBe(2);
  });

  it('with wakeOn, hints that cannot settle the task (chunks, WORKING) cause no read', async () => {
    let current = record(TaskState.WORKING, 2);
    const { waiting, emit, reads } = startWait(() => current, mayHaveSettled);
    await turn();
    expect(reads()).toBe(1);
    for (let seq = 3; seq < 50; seq += 1) {
      current = record(TaskState.WORKING, seq);
      emit({ tenantId: 't', taskId: 'x', seq, state: TaskState.WORKING });
    }
    await turn();
    expect(reads()).toBe(1);
    current = record(TaskState.INPUT_REQUIRED, 50);
    emit({ tenantId: 't', taskId: 'x', seq: 50, state: TaskState.INPUT_REQUIRED });
    expect((await waiting)?.state).toBe(TaskState.INPUT_REQUIRED);
    expect(reads()).toBe(2);
  });

  it('with wakeOn, a resync still reads (hints may have been lost)', async () => {
    const { waiting, emit, reads } = startWait(
      (n) => (n === 1 ? record(TaskState.WORKING, 2) : record(TaskState.COMPLETED, 3)),
      mayHaveSettled,
    );
    await turn();
    emit('resync');
    expect((await waiting)?.state).toBe(TaskState.COMPLETED);
    expect(reads()).toBe(2);
  });
});
