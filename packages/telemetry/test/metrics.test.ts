import perfHooks from 'node:perf_hooks';
import { describe, expect, it, vi } from 'vitest';
import { createMetrics, EVENT_LOOP_SAMPLE_MS, METRIC_NAMES, OVERFLOW_LABEL } from '@switchyard/telemetry';

/** `name{labels} value` lines of one family, labels in exposition order, `service` left out. */
function samples(body: string, name: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of body.split('\n')) {
    const match = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const labels = (match[2] ?? '')
      .split(',')
      .filter((l) => l !== '' && !l.startsWith('service='))
      .join(',');
    out[labels] = Number(match[3]);
  }
  return out;
}

const quiet = { defaultMetrics: false } as const;

describe('createMetrics: the families of issue 6 after a known workload', () => {
  it('counts requests by method, binding and outcome with a latency histogram', async () => {
    const metrics = createMetrics({ service: 'gateway', ...quiet });
    metrics.requests.observe({ method: 'SendMessage', binding: 'jsonrpc', outcome: 'ok' }, 0.02);
    metrics.requests.observe({ method: 'SendMessage', binding: 'jsonrpc', outcome: 'ok' }, 0.3);
    metrics.requests.observe({ method: 'GetTask', binding: 'rest', outcome: 'TaskNotFound' }, 0.004);
    const { body, contentType } = await metrics.text();
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(body).toContain(`# TYPE ${METRIC_NAMES.requests} counter`);
    expect(samples(body, METRIC_NAMES.requests)).toEqual({
      'method="SendMessage",binding="jsonrpc",outcome="ok"': 2,
      'method="GetTask",binding="rest",outcome="TaskNotFound"': 1,
    });
    const buckets = samples(body, `${METRIC_NAMES.requestDuration}_bucket`);
    expect(buckets['le="0.025",method="SendMessage",binding="jsonrpc",outcome="ok"']).toBe(1);
    expect(buckets['le="0.5",method="SendMessage",binding="jsonrpc",outcome="ok"']).toBe(2);
    expect(
      samples(body, `${METRIC_NAMES.requestDuration}_count`)[
        'method="GetTask",binding="rest",outcome="TaskNotFound"'
      ],
    ).toBe(1);
    expect(
      samples(body, `${METRIC_NAMES.requestDuration}_sum`)[
        'method="SendMessage",binding="jsonrpc",outcome="ok"'
      ],
    ).toBeCloseTo(0.32);
  });

  it('counts jobs parked by the run cap, by tenant unless tenant labels are off', async () => {
    const metrics = createMetrics({ service: 'worker', ...quiet });
    metrics.tasks.runParked({ tenant: 'acme' });
    metrics.tasks.runParked({ tenant: 'acme' });
    expect(samples((await metrics.text()).body, METRIC_NAMES.runsParked)).toEqual({
      'tenant="acme"': 2,
    });
    const unlabeled = createMetrics({ service: 'worker', tenantLabel: false, ...quiet });
    unlabeled.tasks.runParked({ tenant: 'acme' });
    expect((await unlabeled.text()).body).toContain(`${METRIC_NAMES.runsParked}{service="worker"} 1`);
  });

  it('records how long runs waited for a worker, by agent, up to minutes', async () => {
    const metrics = createMetrics({ service: 'worker', ...quiet });
    metrics.tasks.dispatched({ agent: 'echo' }, 0.004);
    metrics.tasks.dispatched({ agent: 'echo' }, 42);
    metrics.tasks.dispatched({ agent: 'slow' }, 400);
    const body = (await metrics.text()).body;
    const buckets = samples(body, `${METRIC_NAMES.dispatchLatency}_bucket`);
    expect(buckets['le="0.005",agent="echo"']).toBe(1);
    expect(buckets['le="30",agent="echo"']).toBe(1);
    expect(buckets['le="60",agent="echo"']).toBe(2);
    expect(buckets['le="300",agent="slow"']).toBe(0);
    expect(buckets['le="+Inf",agent="slow"']).toBe(1);
    expect(samples(body, `${METRIC_NAMES.dispatchLatency}_sum`)['agent="echo"']).toBeCloseTo(42.004);
  });

  it('puts service on every series', async () => {
    const metrics = createMetrics({ service: 'worker', ...quiet });
    metrics.tasks.leaseExpired();
    expect((await metrics.text()).body).toContain(`${METRIC_NAMES.leaseExpiries}{service="worker"} 1`);
  });

  it('counts tasks created by agent and tenant and finished by agent and state', async () => {
    const metrics = createMetrics({ service: 'gateway', ...quiet });
    metrics.tasks.created({ agent: 'echo', tenant: 'demo' });
    metrics.tasks.created({ agent: 'echo', tenant: 'demo' });
    metrics.tasks.created({ agent: 'booking', tenant: 'acme' });
    metrics.tasks.finished({ agent: 'echo', state: 'TASK_STATE_COMPLETED' });
    metrics.tasks.finished({ agent: 'echo', state: 'TASK_STATE_FAILED' });
    const { body } = await metrics.text();
    expect(samples(body, METRIC_NAMES.tasksCreated)).toEqual({
      'agent="echo",tenant="demo"': 2,
      'agent="booking",tenant="acme"': 1,
    });
    expect(samples(body, METRIC_NAMES.tasksFinished)).toEqual({
      'agent="echo",state="TASK_STATE_COMPLETED"': 1,
      'agent="echo",state="TASK_STATE_FAILED"': 1,
    });
  });

  it('drops the tenant label when configured off', async () => {
    const metrics = createMetrics({ service: 'gateway', tenantLabel: false, ...quiet });
    metrics.tasks.created({ agent: 'echo', tenant: 'demo' });
    metrics.tasks.created({ agent: 'echo', tenant: 'acme' });
    expect(samples((await metrics.text()).body, METRIC_NAMES.tasksCreated)).toEqual({ 'agent="echo"': 2 });
  });

  it('bounds free-form labels: values past the budget count as other, totals stay right', async () => {
    const metrics = createMetrics({ service: 'gateway', maxLabelValues: 2, ...quiet });
    for (const method of ['SendMessage', 'GetTask', 'Bogus1', 'Bogus2', 'SendMessage'])
      metrics.requests.observe({ method, binding: 'jsonrpc', outcome: 'ok' }, 0.01);
    expect(samples((await metrics.text()).body, METRIC_NAMES.requests)).toEqual({
      'method="SendMessage",binding="jsonrpc",outcome="ok"': 2,
      'method="GetTask",binding="jsonrpc",outcome="ok"': 1,
      [`method="${OVERFLOW_LABEL}",binding="jsonrpc",outcome="ok"`]: 2,
    });
  });

  it('counts lease expiries, reaper actions, SSE streams and events', async () => {
    const metrics = createMetrics({ service: 'worker', ...quiet });
    metrics.tasks.leaseExpired(2);
    metrics.tasks.reaperAction('requeued', 2);
    metrics.tasks.reaperAction('failed');
    metrics.sse.opened();
    metrics.sse.opened();
    metrics.sse.closed();
    metrics.sse.events(5);
    const { body } = await metrics.text();
    expect(samples(body, METRIC_NAMES.leaseExpiries)).toEqual({ '': 2 });
    expect(samples(body, METRIC_NAMES.reaperActions)).toEqual({
      'action="requeued"': 2,
      'action="failed"': 1,
    });
    expect(samples(body, METRIC_NAMES.sseConnections)).toEqual({ '': 1 });
    expect(samples(body, METRIC_NAMES.sseEvents)).toEqual({ '': 5 });
  });

  it('counts push attempts by outcome with durations, and reports in-flight sends', async () => {
    const metrics = createMetrics({ service: 'pusher', ...quiet });
    metrics.push.attempt('delivered', 0.05);
    metrics.push.attempt('retry', 10);
    metrics.push.attempt('dead', 0.2);
    metrics.push.inFlight(3);
    const { body } = await metrics.text();
    expect(samples(body, METRIC_NAMES.pushDeliveries)).toEqual({
      'outcome="delivered"': 1,
      'outcome="retry"': 1,
      'outcome="dead"': 1,
    });
    expect(samples(body, `${METRIC_NAMES.pushDeliveryDuration}_count`)).toEqual({
      'outcome="delivered"': 1,
      'outcome="retry"': 1,
      'outcome="dead"': 1,
    });
    expect(samples(body, METRIC_NAMES.pushInFlight)).toEqual({ '': 3 });
  });
});

describe('gauges fed by app sources', () => {
  it('exist only once a source is attached', async () => {
    const { body } = await createMetrics({ service: 'gateway', ...quiet }).text();
    for (const name of [
      METRIC_NAMES.queueDepth,
      METRIC_NAMES.pushPending,
      METRIC_NAMES.pgPoolConnections,
      METRIC_NAMES.redisUp,
      METRIC_NAMES.pushInFlight,
    ]) {
      expect(body).not.toContain(name);
    }
  });

  it('reads queue depth and age once per scrape, fresh at every scrape', async () => {
    const metrics = createMetrics({ service: 'worker', ...quiet });
    let calls = 0;
    metrics.tasks.collectQueues(async () => {
      calls += 1;
      return [
        { queue: 'tasks', depth: 10 * calls, oldestAgeSeconds: 1.5 },
        { queue: 'maintenance', depth: 0, oldestAgeSeconds: 0 },
      ];
    });
    const first = (await metrics.text()).body;
    expect(calls).toBe(1);
    expect(samples(first, METRIC_NAMES.queueDepth)).toEqual({
      'queue="tasks"': 10,
      'queue="maintenance"': 0,
    });
    expect(samples(first, METRIC_NAMES.queueOldestAge)).toEqual({
      'queue="tasks"': 1.5,
      'queue="maintenance"': 0,
    });
    expect(samples((await metrics.text()).body, METRIC_NAMES.queueDepth)['queue="tasks"']).toBe(20);
  });

  it('a failing source empties its series, counts the error and tells the app; the scrape succeeds', async () => {
    const errors: string[] = [];
    const metrics = createMetrics({
      service: 'worker',
      ...quiet,
      onCollectError: (_err, collector) => errors.push(collector),
    });
    let fail = false;
    metrics.tasks.collectQueues(() => {
      if (fail) throw new Error('redis down');
      return [{ queue: 'tasks', depth: 4, oldestAgeSeconds: 2 }];
    });
    metrics.push.collectOutbox(async () => {
      if (fail) throw new Error('postgres down');
      return { pending: 7, oldestAgeSeconds: 30 };
    });
    expect(samples((await metrics.text()).body, METRIC_NAMES.queueDepth)).toEqual({ 'queue="tasks"': 4 });
    fail = true;
    const { body } = await metrics.text();
    expect(samples(body, METRIC_NAMES.queueDepth)).toEqual({});
    expect(samples(body, METRIC_NAMES.queueOldestAge)).toEqual({});
    expect(samples(body, METRIC_NAMES.pushPending)['']).toBeNaN();
    expect(errors.sort()).toEqual(['outbox', 'queues']);
    // The counter is read at the start of a scrape, so an error shows from the next scrape on.
    expect(samples((await metrics.text()).body, METRIC_NAMES.collectErrors)).toEqual({
      'collector="queues"': 1,
      'collector="outbox"': 1,
    });
  });

  it('reports the outbox backlog; attaching again replaces the source', async () => {
    const metrics = createMetrics({ service: 'pusher', ...quiet });
    metrics.push.collectOutbox(() => ({ pending: 7, oldestAgeSeconds: 30 }));
    metrics.push.collectOutbox(() => ({ pending: 8, oldestAgeSeconds: 31 }));
    const { body } = await metrics.text();
    expect(samples(body, METRIC_NAMES.pushPending)).toEqual({ '': 8 });
    expect(samples(body, METRIC_NAMES.pushOldestPendingAge)).toEqual({ '': 31 });
  });

  it('reads a pg.Pool-like pool and Redis health at scrape time', async () => {
    const metrics = createMetrics({ service: 'pusher', ...quiet });
    const pool = { totalCount: 5, idleCount: 3, waitingCount: 0 };
    let redisUp: boolean | Error = true;
    metrics.resources.observePgPool(pool);
    metrics.resources.observeRedis(async () => {
      if (redisUp instanceof Error) throw redisUp;
      return redisUp;
    });
    let body = (await metrics.text()).body;
    expect(samples(body, METRIC_NAMES.pgPoolConnections)).toEqual({
      'state="total"': 5,
      'state="idle"': 3,
      'state="waiting"': 0,
    });
    expect(samples(body, METRIC_NAMES.redisUp)).toEqual({ '': 1 });
    pool.waitingCount = 2;
    redisUp = false;
    body = (await metrics.text()).body;
    expect(samples(body, METRIC_NAMES.pgPoolConnections)['state="waiting"']).toBe(2);
    expect(samples(body, METRIC_NAMES.redisUp)).toEqual({ '': 0 });
    redisUp = new Error('ECONNREFUSED');
    expect(samples((await metrics.text()).body, METRIC_NAMES.redisUp)).toEqual({ '': 0 });
  });
});

describe('registries', () => {
  it('are per instance, with Node default metrics unless turned off', async () => {
    const a = createMetrics({ service: 'gateway' });
    const b = createMetrics({ service: 'worker' });
    a.tasks.leaseExpired();
    const [bodyA, bodyB] = [(await a.text()).body, (await b.text()).body];
    expect(bodyA).toContain('process_cpu_user_seconds_total');
    expect(bodyA).toContain('nodejs_eventloop_lag_seconds');
    expect(samples(bodyA, METRIC_NAMES.leaseExpiries)).toEqual({ '': 1 });
    expect(samples(bodyB, METRIC_NAMES.leaseExpiries)).toEqual({ '': 0 });
    expect((await createMetrics({ service: 'x', ...quiet }).text()).body).not.toContain('process_cpu');
  });
});

describe('the event-loop lag histogram', () => {
  it('samples every EVENT_LOOP_SAMPLE_MS, not every 10 ms, so an idle process is not woken 100 times a second', () => {
    const resolutions: Array<number | undefined> = [];
    const original = perfHooks.monitorEventLoopDelay;
    const spy = vi.spyOn(perfHooks, 'monitorEventLoopDelay').mockImplementation((options) => {
      resolutions.push(options?.resolution);
      return original(options);
    });
    try {
      createMetrics({ service: 'worker' });
    } finally {
      spy.mockRestore();
    }
    expect(EVENT_LOOP_SAMPLE_MS).toBeGreaterThanOrEqual(100);
    expect(resolutions).toEqual([EVENT_LOOP_SAMPLE_MS]);
  });
});
