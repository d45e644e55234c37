import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpanStatusCode } from '@switchyard/telemetry';
import { createInMemoryTracing, type InMemoryTracing } from '@switchyard/telemetry/testing';
import { createTask, newTenant, usePusherSuite } from './pusher-fixtures.ts';

// Found in review: a webhook POST carried no trace context, so a receiver could not join the
// task's trace; and a POST that failed left its deliver-push span without an error status (the
// outcome is returned, not thrown).
const suite = usePusherSuite();
let tracing: InMemoryTracing;
beforeAll(() => {
  tracing = createInMemoryTracing();
});
afterAll(() => tracing.shutdown());

const TRACE_ID = 'a'.repeat(32);

describe('a push delivery of a traced task', () => {
  it('sends traceparent in the task trace, and marks a failed POST as an error', async () => {
    const { tenantId } = await newTenant(suite.env);
    await createTask(
      suite.env,
      tenantId,
      { id: 'hook', url: `${suite.receiver.origin}/x` },
      { traceparent: `00-${TRACE_ID}-${'b'.repeat(16)}-01` },
    );
    suite.receiver.respond = (_req, i) => ({ status: i === 0 ? 500 : 204 });
    const pusher = suite.scope.pusher({ retry: { maxAttempts: 4, baseMs: 1, maxMs: 1 } });
    expect(await pusher.deliverOnce()).toMatchObject([{ outcome: 'retry' }]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await pusher.deliverOnce()).toMatchObject([{ outcome: 'delivered' }]);

    const spans = tracing.spans().filter((s) => s.name === 'deliver-push');
    expect(spans.map((s) => s.status.code)).toEqual([SpanStatusCode.ERROR, SpanStatusCode.UNSET]);
    const sent = suite.receiver.requests.map((r) => String(r.headers.traceparent));
    expect(sent).toEqual(spans.map((s) => `00-${TRACE_ID}-${s.spanContext().spanId}-01`));
  });
});
