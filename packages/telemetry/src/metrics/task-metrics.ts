import { Counter, Gauge, Histogram } from 'prom-client';
import type { FamilyContext } from './family-context.ts';
import { DISPATCH_BUCKETS, METRIC_NAMES } from './metric-names.ts';

export interface QueueStats {
  /** BullMQ queue name (`tasks`, `maintenance`): a handful, never per tenant. */
  queue: string;
  /** Jobs waiting to be taken. */
  depth: number;
  /** Age of the oldest waiting job in seconds; 0 when none waits. */
  oldestAgeSeconds: number;
}

export interface TaskMetrics {
  /** A task was created (not a Message reply, not a continuation). */
  created(labels: { agent: string; tenant: string }): void;
  /** A task reached a terminal (or interrupted) state; `state` is the A2A TaskState. */
  finished(labels: { agent: string; state: string }): void;
  /** Leases found lapsed (the reaper took the task back from a dead or stuck worker). */
  leaseExpired(count?: number): void;
  /** What the reaper did: `requeued`, `failed` (attempts spent), `dispatched` (never enqueued), … */
  reaperAction(action: string, count?: number): void;
  /** A job was parked: its tenant was at its cap of runs at once (TENANT_MAX_RUNNING). */
  runParked(labels: { tenant: string }): void;
  /**
   * A worker claimed a run `seconds` after it became due (the task was created or continued),
   * both read on Postgres's clock. Runs parked behind their tenant's run cap are not recorded.
   */
  dispatched(labels: { agent: string }, seconds: number): void;
  /**
   * The queue gauges' source, called once per scrape. Queue depth is global, so attach it in one
   * kind of process (the worker) and aggregate with `max by (queue)` across replicas. Attaching
   * again replaces the source.
   */
  collectQueues(source: () => Promise<QueueStats[]> | QueueStats[]): void;
}

export function taskMetrics(
  { registry, label, source }: FamilyContext,
  { tenantLabel }: { tenantLabel: boolean },
): TaskMetrics {
  const created = new Counter({
    name: METRIC_NAMES.tasksCreated,
    help: tenantLabel ? 'Tasks created, by agent and tenant.' : 'Tasks created, by agent.',
    labelNames: tenantLabel ? ['agent', 'tenant'] : ['agent'],
    registers: [registry],
  });
  const finished = new Counter({
    name: METRIC_NAMES.tasksFinished,
    help: 'Tasks that reached a final or interrupted state, by agent and state.',
    labelNames: ['agent', 'state'],
    registers: [registry],
  });
  const leases = new Counter({
    name: METRIC_NAMES.leaseExpiries,
    help: 'Task leases that lapsed and were reclaimed by the reaper.',
    registers: [registry],
  });
  const reaper = new Counter({
    name: METRIC_NAMES.reaperActions,
    help: 'Reaper actions, by action.',
    labelNames: ['action'],
    registers: [registry],
  });
  const parked = new Counter({
    name: METRIC_NAMES.runsParked,
    help: tenantLabel
      ? 'Jobs parked because their tenant was at its cap of runs at once, by tenant.'
      : 'Jobs parked because their tenant was at its cap of runs at once.',
    labelNames: tenantLabel ? ['tenant'] : [],
    registers: [registry],
  });
  const dispatch = new Histogram({
    name: METRIC_NAMES.dispatchLatency,
    help: 'From when a task became due (created or continued) to its claim by a worker, in seconds, by agent; runs parked by a tenant run cap left out.',
    labelNames: ['agent'],
    buckets: DISPATCH_BUCKETS,
    registers: [registry],
  });
  // The gauges exist only once a source is attached: a process that does not watch the queues
  // must not report an empty queue.
  let stats: (() => Promise<QueueStats[] | undefined>) | undefined;
  return {
    created({ agent, tenant }) {
      created.inc(
        tenantLabel
          ? { agent: label('agent', agent), tenant: label('tenant', tenant) }
          : { agent: label('agent', agent) },
      );
    },
    finished({ agent, state }) {
      finished.inc({ agent: label('agent', agent), state: label('state', state) });
    },
    leaseExpired: (count = 1) => leases.inc(count),
    reaperAction: (action, count = 1) => reaper.inc({ action: label('action', action) }, count),
    dispatched: ({ agent }, seconds) => dispatch.observe({ agent: label('agent', agent) }, seconds),
    runParked: ({ tenant }) => (tenantLabel ? parked.inc({ tenant: label('tenant', tenant) }) : parked.inc()),
    collectQueues(fn) {
      const first = stats === undefined;
      stats = source('queues', fn);
      if (!first) return;
      const gauge = (name: string, help: string, pick: (s: QueueStats) => number) =>
        new Gauge({
          name,
          help,
          labelNames: ['queue'],
          registers: [registry],
          async collect() {
            const list = await stats?.();
            this.reset();
            for (const s of list ?? []) this.set({ queue: label('queue', s.queue) }, pick(s));
          },
        });
      gauge(METRIC_NAMES.queueDepth, 'Jobs waiting in the queue.', (s) => s.depth);
      gauge(
        METRIC_NAMES.queueOldestAge,
        'Age of the oldest waiting job, in seconds.',
        (s) => s.oldestAgeSeconds,
      );
    },
  };
}
