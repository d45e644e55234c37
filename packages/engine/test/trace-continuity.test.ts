import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '@switchyard/agents';
import { TaskState } from '@switchyard/protocol';
import { SpanStatusCode, withSpan } from '@switchyard/telemetry';
import { createInMemoryTracing, type InMemoryTracing } from '@switchyard/telemetry/testing';
import { waitFor } from '@switchyard/testing';
import { alice, startPlatform, userMessage, type Platform } from './platform-fixture.ts';

// Found in review: a retry, a hand-back, a deferred claim and the reaper's dispatches enqueued the
// task without its trace context, so each later run started a trace of its own, on exactly the
// failure paths a trace is wanted for.
let tracing: InMemoryTracing;
let p: Platform;
const flaky: Agent = {
  executor: 'flaky-traced',
  card: {
    name: 'flaky',
    description: 'fails twice, then works',
    version: '1.0.0',
    skills: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
  },
  async execute(ctx) {
    if (ctx.task.attempt < 3) throw new Error('not yet');
    await ctx.complete('finally');
  },
};

beforeAll(async () => {
  tracing = createInMemoryTracing();
  p = await startPlatform({ maxAttempts: 3, retryBaseMs: 50 });
  await p.registerAgent(flaky);
  p.startWorker({ findAgent: (executor) => (executor === flaky.executor ? flaky : undefined) });
});
afterAll(async () => {
  await p?.close();
  await tracing?.shutdown();
});

describe('a task retried after failed runs', () => {
  it('keeps every run in the trace of the request that created it', async () => {
    const agent = (await p.admin.getAgent('acme', flaky.executor))!;
    const { taskId, traceId } = await withSpan('client-request', {}, async (span) => {
      const sent = await p.service.send(alice, agent, {
        message: userMessage('try'),
        configuration: { returnImmediately: true },
      });
      if (!('task' in sent)) throw new Error('expected a task');
      return { taskId: sent.task.id, traceId: span.spanContext().traceId };
    });
    await waitFor(async () => (await p.store.getTaskRecord('acme', taskId))?.state === TaskState.COMPLETED);
    const runs = await waitFor(() => {
      const spans = tracing
        .spans()
        .filter((s) => s.name === 'run-task' && s.attributes['switchyard.task_id'] === taskId);
      return spans.length >= 3 ? spans : null;
    });
    expect(runs.map((s) => s.spanContext().traceId)).toEqual(runs.map(() => traceId));
    // A failed run says so in its span, though its error is handled, not thrown through it: the
    // two failed attempts, not the one that completed (a claim refused as not yet due, under
    // load, is a span of its own, and no failure).
    expect(runs.filter((s) => s.status.code === SpanStatusCode.ERROR)).toHaveLength(2);
    expect(runs.at(-1)?.status.code).toBe(SpanStatusCode.UNSET);
  });
});
