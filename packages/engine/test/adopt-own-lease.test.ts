import type { TaskSnapshot } from '@switchyard/agents';
import type { TaskRecord, TaskStore } from '@switchyard/store';
import { describe, expect, it } from 'vitest';
import { RunContext, type RunContextOptions } from '../src/runner/run-context.ts';
import type { TaskWriter } from '../src/task-writer.ts';

// Found in review: the quick-reply upgrade hands the run whatever record won its CAS, and after a
// takeover (this worker frozen past its lease, another claimed the task) that is the new owner's.
// The runner's settle writes (retry, fail) and its hand-back take their lease from the run's
// record, so adopting it let a run that had lost its lease write under the new owner's.
const record = (version: number, leaseOwner: string): TaskRecord =>
  ({ tenantId: 'acme', id: 't1', version, leaseOwner }) as unknown as TaskRecord;

function runContext(own: TaskRecord): RunContext {
  const options = {
    store: {} as TaskStore,
    writer: {} as TaskWriter,
    leaseOwner: own.leaseOwner!,
    record: own,
    snapshot: {} as TaskSnapshot,
    signal: new AbortController().signal,
    stop: () => undefined,
    refused: () => false,
    storedChunks: new Map(),
    storedArtifactBytes: 0,
    maxArtifactBytes: 1024,
  } as unknown as RunContextOptions;
  return new RunContext(options);
}

describe('RunContext.adopt', () => {
  it('takes a newer record under its own lease', () => {
    const ctx = runContext(record(3, 'worker-a/1'));
    ctx.adopt(record(4, 'worker-a/1'));
    expect(ctx.current.version).toBe(4);
  });

  it('ignores an older record, and a newer one under another lease', () => {
    const ctx = runContext(record(3, 'worker-a/1'));
    ctx.adopt(record(2, 'worker-a/1'));
    ctx.adopt(record(5, 'worker-b/7'));
    expect(ctx.current).toMatchObject({ version: 3, leaseOwner: 'worker-a/1' });
  });
});
