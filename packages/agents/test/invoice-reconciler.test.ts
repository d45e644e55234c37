import { TaskState, type Part } from '@switchyard/protocol';
import { describe, expect, it } from 'vitest';
import { reconcile } from '../src/agents/invoice/reconcile.ts';
import {
  AgentHarness,
  MATCHES_ARTIFACT_ID,
  ROUNDING_MEMORY_KEY,
  ROUNDING_QUESTION,
  invoiceReconcilerAgent,
  type RecordedCall,
} from '../src/index.ts';

const statusText = (parts: Part[] | undefined): string =>
  parts?.find((part) => part.text !== undefined)?.text ?? '';
const isChunk = (call: RecordedCall): boolean => call.kind === 'emitArtifact';

const balanced: Part[] = [
  {
    data: {
      invoices: [
        { id: 'A', amount: 100, currency: 'EUR' },
        { id: 'B', amount: 0.3, currency: 'EUR' },
      ],
      payments: [
        { id: 'p1', invoiceId: 'A', amount: 100 },
        { id: 'p2', amount: 0.1 + 0.2 },
      ],
    },
  },
];

describe('invoice reconciler', () => {
  it('streams matches.json in exactly three chunks with the append/lastChunk flags', async () => {
    const harness = new AgentHarness(invoiceReconcilerAgent);
    const result = await harness.send('reconcile the sample');
    const chunks = harness.chunks(result.taskId, MATCHES_ARTIFACT_ID);
    expect(chunks.map((chunk) => [chunk.append, chunk.lastChunk])).toEqual([
      [false, false],
      [true, false],
      [true, true],
    ]);
    for (const chunk of chunks) {
      expect(chunk.name).toBe('matches.json');
      expect(chunk.parts.map((part) => part.mediaType)).toEqual(['application/json']);
    }
    const [artifact] = result.task.artifacts;
    expect(artifact?.name).toBe('matches.json');
    const records = artifact?.parts.map((part) => part.data);
    // The sample: two reference matches and one amount match, split 2 + 1, then the summary.
    expect(records).toMatchObject([
      {
        matches: [
          { invoiceId: 'INV-1001', paymentId: 'PAY-1' },
          { invoiceId: 'INV-1002', paymentId: 'PAY-2', matchedBy: 'amount' },
        ],
      },
      { matches: [{ invoiceId: 'INV-1004', paymentId: 'PAY-3', difference: -0.05 }] },
      {
        summary: {
          matched: 3,
          roundingCandidates: ['INV-1003', 'INV-1005'],
          unmatchedPayments: [{ id: 'PAY-4' }],
        },
      },
    ]);
  });

  it('asks whether small unmatched EUR invoices are rounding differences, after the artifact is complete', async () => {
    const harness = new AgentHarness(invoiceReconcilerAgent);
    const result = await harness.send('reconcile');
    expect(result.task.state).toBe(TaskState.INPUT_REQUIRED);
    expect(statusText(result.task.statusMessage?.parts)).toBe(ROUNDING_QUESTION);
    expect(result.calls.filter((call) => call.kind !== 'setStatus').map((call) => call.kind)).toEqual([
      'emitArtifact',
      'emitArtifact',
      'emitArtifact',
      'requestInput',
    ]);
  });

  it('stores the answer in context memory and completes with a summary', async () => {
    const harness = new AgentHarness(invoiceReconcilerAgent, { contextId: 'books' });
    const asked = await harness.send('reconcile');
    const answered = await harness.continueTask(asked.taskId, 'yes');
    expect(answered.task.state).toBe(TaskState.COMPLETED);
    expect(harness.memory('books').get(ROUNDING_MEMORY_KEY)).toBe('yes');
    expect(statusText(answered.task.statusMessage?.parts)).toContain(
      '2 invoice(s) under 50 EUR counted as rounding differences',
    );
    expect(answered.task.statusMessage?.parts[1]?.data).toMatchObject({
      openInvoices: ['INV-1006'],
      roundingDifferences: ['INV-1003', 'INV-1005'],
    });
    // The artifact was complete before the question: the answer run adds no chunk.
    expect(answered.calls.some(isChunk)).toBe(false);
    expect(harness.chunks(asked.taskId, MATCHES_ARTIFACT_ID)).toHaveLength(3);
  });

  it('keeps the small invoices open on "no" and asks again on an unclear answer', async () => {
    const harness = new AgentHarness(invoiceReconcilerAgent, { contextId: 'books' });
    const asked = await harness.send('reconcile');
    const unclear = await harness.continueTask(asked.taskId, 'maybe');
    expect(unclear.task.state).toBe(TaskState.INPUT_REQUIRED);
    expect(statusText(unclear.task.statusMessage?.parts)).toContain(ROUNDING_QUESTION);
    const answered = await harness.continueTask(asked.taskId, 'No');
    expect(answered.task.state).toBe(TaskState.COMPLETED);
    expect(answered.task.statusMessage?.parts[1]?.data).toMatchObject({
      openInvoices: ['INV-1003', 'INV-1005', 'INV-1006'],
    });
    expect(harness.memory('books').get(ROUNDING_MEMORY_KEY)).toBe('no');
  });

  it('reuses the stored answer in a later task of the same context instead of asking', async () => {
    const harness = new AgentHarness(invoiceReconcilerAgent);
    const first = await harness.send('reconcile', { contextId: 'books' });
    await harness.continueTask(first.taskId, 'yes');
    const later = await harness.send('reconcile again', { contextId: 'books' });
    expect(later.task.state).toBe(TaskState.COMPLETED);
    expect(later.calls.some((call) => call.kind === 'requestInput')).toBe(false);
    expect(later.logs).toContainEqual(expect.objectContaining({ level: 'info', obj: { answer: 'yes' } }));
    // Another context has not answered yet, so it is asked.
    const elsewhere = await harness.send('reconcile', { contextId: 'other-books' });
    expect(elsewhere.task.state).toBe(TaskState.INPUT_REQUIRED);
  });

  it('completes without asking when no small EUR invoice is left open', async () => {
    const harness = new AgentHarness(invoiceReconcilerAgent);
    const result = await harness.send(balanced);
    expect(result.task.state).toBe(TaskState.COMPLETED);
    expect(result.task.artifacts[0]?.parts[0]?.data).toMatchObject({ matches: [{ invoiceId: 'A' }] });
    expect(result.task.artifacts[0]?.parts[1]?.data).toMatchObject({
      matches: [{ invoiceId: 'B', matchedBy: 'amount', difference: 0 }],
    });
  });

  it('reads the same JSON from a text part, and rejects malformed input with a safe message', async () => {
    const harness = new AgentHarness(invoiceReconcilerAgent);
    const fromText = await harness.send(JSON.stringify(balanced[0]?.data));
    expect(fromText.task.state).toBe(TaskState.COMPLETED);
    const bad = await harness.send([
      { data: { invoices: [{ id: 'A', amount: 'ten', currency: 'EUR' }], payments: [] } },
    ]);
    expect(bad.task.state).toBe(TaskState.REJECTED);
    expect(statusText(bad.task.statusMessage?.parts)).toBe(
      'invoices[0] needs a string id, a finite amount and a currency.',
    );
  });

  describe('re-run after a crash', () => {
    it('stores each chunk once when the first run crashed mid-stream', async () => {
      const harness = new AgentHarness(invoiceReconcilerAgent);
      let chunks = 0;
      const crashed = await harness.start('reconcile', {
        onCall: (call, run) => isChunk(call) && ++chunks === 2 && run.loseLease(),
      }).result;
      expect(harness.chunks(crashed.taskId, MATCHES_ARTIFACT_ID)).toHaveLength(2);

      const rerun = await harness.rerun(crashed.taskId);
      expect(rerun.task.attempt).toBe(2);
      expect(rerun.calls.filter(isChunk).map((call) => call.status)).toEqual([
        'skipped',
        'skipped',
        'applied',
      ]);
      expect(rerun.task.state).toBe(TaskState.INPUT_REQUIRED);
      expect(rerun.task.artifacts[0]?.parts).toHaveLength(3);
    });

    it('does nothing twice when the answer run crashed after storing the answer', async () => {
      const harness = new AgentHarness(invoiceReconcilerAgent, {
        contextId: 'books',
        agentMessagesInHistory: true,
      });
      const asked = await harness.send('reconcile');
      const crashed = await harness.start('yes', {
        taskId: asked.taskId,
        onCall: (call, run) => call.kind === 'memory.set' && run.loseLease(),
      }).result;
      expect(crashed.task.state).toBe(TaskState.WORKING);

      const rerun = await harness.rerun(asked.taskId);
      expect(rerun.task.state).toBe(TaskState.COMPLETED);
      expect(rerun.calls.map((call) => call.kind)).toEqual(['memory.set', 'complete']);
      expect(harness.memory('books').get(ROUNDING_MEMORY_KEY)).toBe('yes');
      expect(rerun.task.artifacts[0]?.parts).toHaveLength(3);
    });

    it('finishes the same way when a run that had completed everything but the end is run again', async () => {
      const harness = new AgentHarness(invoiceReconcilerAgent);
      const crashed = await harness.start(balanced, {
        onCall: (call, run) =>
          call.kind === 'emitArtifact' && call.chunk.lastChunk === true && run.loseLease(),
      }).result;
      const rerun = await harness.rerun(crashed.taskId);
      // The artifact is complete in ctx.task, so the re-run emits nothing and just completes.
      expect(rerun.calls.map((call) => call.kind)).toEqual(['complete']);
      expect(rerun.task.artifacts).toEqual(crashed.task.artifacts);
    });
  });
});

describe('reconcile', () => {
  // Found in review: amount matching scanned every open invoice for each payment, and the
  // duplicate-id check every invoice so far for each invoice: quadratic in a ledger of the 90,000
  // invoices a request body holds, seconds of a worker's event loop. Now maps by id and amount.
  it('matches equal amounts in invoice order, skipping those a reference settled, over a large ledger', () => {
    const invoices = Array.from({ length: 20_000 }, (_, i) => ({
      id: `i${i}`,
      amount: i % 2 === 0 ? 10 : 10 + i / 100,
      currency: 'EUR',
    }));
    const payments = [
      { id: 'ref', invoiceId: 'i0', amount: 10 },
      ...Array.from({ length: 3 }, (_, i) => ({ id: `p${i}`, amount: 10 })),
    ];
    const result = reconcile({ invoices, payments });
    expect(result.matches.map((m) => [m.invoiceId, m.paymentId])).toEqual([
      ['i0', 'ref'],
      ['i2', 'p0'],
      ['i4', 'p1'],
      ['i6', 'p2'],
    ]);
    expect(result.unmatchedInvoices).toHaveLength(20_000 - 4);
    expect(result.unmatchedPayments).toEqual([]);
  });
});
