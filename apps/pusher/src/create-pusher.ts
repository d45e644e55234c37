import { setTimeout as sleep } from 'node:timers/promises';
import { createGuardedAgent, type LookupFn, type UrlPolicy } from '@switchyard/engine';
import { closeWithin, type QueueKeys } from '@switchyard/queue';
import {
  createDb,
  databaseReadiness,
  PostgresOutboxStore,
  PostgresTaskStore,
  type ClaimedDelivery,
  type ClaimObserver,
  type SecretBox,
  waitForCurrentSchema,
} from '@switchyard/store';
import {
  createMetrics,
  extractTraceContext,
  SpanKind,
  SpanStatusCode,
  withSpan,
  type Logger,
  type Metrics,
} from '@switchyard/telemetry';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import type { RetryPolicy } from './backoff.ts';
import { deliver, type DeliverDeps, type DeliveryResult } from './deliver.ts';
import { runClaimLoop } from './claim-loop.ts';
import { FairShares } from './fair-shares.ts';
import { listenForPushWakeups, type PushWakeups } from './push-wakeups.ts';
import { WakeSignal } from '@switchyard/events';

/** Who the pusher reads tasks as: a tenant admin of each delivery's tenant. */
const PUSHER_PRINCIPAL = 'switchyard-pusher';

/** What a drain gives sends in flight beyond their POST timeout, unless `shutdownGraceMs` says. */
export const PUSH_DRAIN_EXTRA_MS = 5000;

export interface PusherSettings {
  /** Claim owner id, unique per process. */
  workerId: string;
  /** Deliveries sent at once. */
  concurrency: number;
  /** Most deliveries of one tenant sent at once; at most `concurrency` (which means no cap). */
  maxInFlightPerTenant: number;
  /** Most deliveries to one receiver host:port sent at once; at most `concurrency`. */
  maxInFlightPerHost: number;
  /** Whole-attempt timeout per POST, in ms. */
  timeoutMs: number;
  /** Claim lock, in ms; longer than `timeoutMs`. */
  lockMs: number;
  /** Fallback poll when no wake-up arrives, in ms. */
  pollMs: number;
  retry: RetryPolicy;
  policy: UrlPolicy;
  /** On stop, in-flight sends get this long before they are aborted. Default timeoutMs + 5000. */
  shutdownGraceMs?: number;
  /** While the schema is behind this release, how often start() checks it again, in ms. Default 2000. */
  schemaPollMs?: number;
}

export interface PusherOptions {
  pool: pg.Pool;
  /** A dedicated connection: it is put in subscriber mode for the push channel. */
  subscriber: Redis;
  keys: QueueKeys;
  /** Opens push credentials and the tenants' signing secrets. */
  secrets: SecretBox;
  log: Logger;
  settings: PusherSettings;
  /** Host name resolver for the SSRF guard; the system resolver by default. */
  resolve?: LookupFn;
  /** Jitter source in [0, 1); Math.random by default. */
  random?: () => number;
  /** This process's Prometheus metrics; a private registry when absent (tests). */
  metrics?: Metrics;
}

export type PusherState = 'created' | 'starting' | 'running' | 'draining' | 'stopped';

/**
 * The webhook delivery service (ARCHITECTURE.md §7). Lifecycle CREATED → STARTING → RUNNING →
 * DRAINING → STOPPED. Starting waits until the schema is current (a new pusher of a rolling
 * upgrade must not claim with new statements on the old tables). While running, a loop claims up
 * to the free concurrency of due deliveries and sends them in parallel; it wakes on the Redis push
 * channel, when a send finishes (the next event of that config became claimable), at a retry this
 * process scheduled, or every `pollMs`. Claims take tenants in turn and respect the per-tenant and
 * per-host caps (fair-shares.ts). Order per (task, config) needs nothing here: the outbox hands
 * out only the earliest pending delivery of each.
 * stop() claims nothing more, lets sends finish within the grace, then aborts the rest, whose claims
 * lapse and are sent again by any pusher: delivery is at-least-once.
 */
export function createPusher(options: PusherOptions) {
  const { pool, subscriber, keys, log, settings } = options;
  const db = createDb(pool);
  const outbox = new PostgresOutboxStore({ db, secrets: options.secrets });
  const tasks = new PostgresTaskStore({ db, secrets: options.secrets });
  const dispatcher = createGuardedAgent({
    policy: settings.policy,
    connectTimeoutMs: settings.timeoutMs,
    resolve: options.resolve,
  });
  const metrics = options.metrics ?? createMetrics({ service: 'pusher', defaultMetrics: false });
  metrics.push.initOutcomes();
  metrics.push.collectOutbox(async () => {
    const [pending, ageMs] = await Promise.all([outbox.countPending(), outbox.oldestPendingAgeMs()]);
    return { pending, oldestAgeSeconds: ageMs / 1000 };
  });
  const wake = new WakeSignal();
  const halt = new AbortController();
  const force = new AbortController();
  const inFlight = new Set<Promise<DeliveryResult>>();
  const shares = new FairShares({
    perTenant: settings.maxInFlightPerTenant,
    perHost: settings.maxInFlightPerHost,
  });
  const deps: DeliverDeps = {
    outbox,
    dispatcher,
    policy: settings.policy,
    workerId: settings.workerId,
    timeoutMs: settings.timeoutMs,
    retry: settings.retry,
    log,
    random: options.random ?? Math.random,
    signal: force.signal,
    // A 0.3 receiver gets the task as it stands (webhook-request.ts), without its history, which
    // can be megabytes and is the client's own messages and the agent's questions.
    loadTask: (tenantId, taskId, withArtifacts) =>
      tasks.getTask({ tenantId, principal: PUSHER_PRINCIPAL, admin: true }, taskId, {
        includeArtifacts: withArtifacts,
        historyLength: 0,
      }),
  };
  let state: PusherState = 'created';
  let loop: Promise<void> | undefined;
  let wakeups: PushWakeups | undefined;

  function send(delivery: ClaimedDelivery, sendBy: number): Promise<DeliveryResult> {
    const started = performance.now();
    // The delivery joins the trace of the request that created the task (context kept on the task row).
    const traced = withSpan(
      'deliver-push',
      {
        'switchyard.task_id': delivery.taskId,
        'switchyard.tenant_id': delivery.tenantId,
        'switchyard.push.seq': delivery.seq,
        'switchyard.push.attempt': delivery.attempts,
      },
      async (span) => {
        const result = await deliver(delivery, deps, sendBy);
        span.setAttribute('switchyard.push.outcome', result.outcome);
        // A POST that failed is returned, not thrown: the span says so itself.
        if (result.outcome === 'retry' || result.outcome === 'dead')
          span.setStatus({ code: SpanStatusCode.ERROR, message: result.error });
        return result;
      },
      { kind: SpanKind.CLIENT, parent: extractTraceContext(delivery.traceContext ?? {}) },
    );
    const sending: Promise<DeliveryResult> = traced
      .catch((err: unknown): DeliveryResult => {
        log.error({ err, deliveryId: delivery.deliveryId }, 'push delivery crashed; its claim will lapse');
        return { outcome: 'abandoned', reason: 'internal error' };
      })
      .then((result) => {
        // Free the slot before waking the loop: the claim that wake triggers reads the free slots
        // at once, and one that still counted this send (as a `.finally` after the wake did) could
        // claim nothing and sleep a whole PUSH_POLL_MS, after every send with a concurrency of 1.
        shares.finished(delivery);
        inFlight.delete(sending);
        metrics.push.inFlight(inFlight.size);
        metrics.push.attempt(result.outcome, (performance.now() - started) / 1000);
        if (result.outcome === 'retry' && state === 'running') wake.wakeAt(result.nextAttemptAt);
        // A slot is free and, after delivered or dead, the config's next event is claimable.
        wake.notify();
        return result;
      });
    inFlight.add(sending);
    metrics.push.inFlight(inFlight.size);
    return sending;
  }

  const claimObserver: ClaimObserver = {
    deadLettered(key, reason) {
      metrics.push.deadUnsent();
      log.error({ ...key, error: reason }, 'push delivery dead-lettered unsent');
    },
    followUpFailed(step, err) {
      log.warn({ err, step }, 'a push claim follow-up failed; a later claim retries it');
    },
  };

  async function claim(): Promise<{ sends: Array<Promise<DeliveryResult>>; full: boolean }> {
    const limit = settings.concurrency - inFlight.size;
    if (limit <= 0) return { sends: [], full: false };
    // Taken before the claim is asked for, so it is no later than the lock's start in Postgres.
    const claimedAt = Date.now();
    const batch = await outbox.claimDueDeliveries({
      workerId: settings.workerId,
      limit,
      lockMs: settings.lockMs,
      ...shares.claimInput(),
      observer: claimObserver,
    });
    shares.claimed(batch);
    // A send must end while the lock holds: it starts at the latest a POST's timeout before the
    // lock ends, less a margin (a second, or half the slack where the lock leaves less; the
    // config requires PUSH_LOCK_MS >= PUSH_TIMEOUT_MS + MIN_LOCK_SLACK_MS, so a send has at
    // least a second after the claim to begin).
    const { lockMs, timeoutMs } = settings;
    const slack = lockMs - timeoutMs;
    const sendBy = claimedAt + slack - Math.min(1000, slack / 2);
    const sends: Array<Promise<DeliveryResult>> = [];
    const deferred: ClaimedDelivery[] = [];
    for (const delivery of batch) {
      if (shares.admit(delivery)) sends.push(send(delivery, sendBy));
      else deferred.push(delivery);
    }
    if (deferred.length > 0) await handBack(deferred);
    // A full batch means more may be due: claim again at once. So does a batch that filled a
    // tenant's share or a receiver's room: the claim stopped short there, and the next one skips
    // them and fills the slots left with others' deliveries.
    return { sends, full: batch.length === limit || shares.anyAtCap(batch) };
  }

  /**
   * Releases claimed deliveries that cannot start now (past a cap: the claim takes only what fits,
   * so this is a safety net). Left locked, they would wait PUSH_LOCK_MS for the lock to lapse, an
   * attempt spent.
   */
  async function handBack(deferred: ClaimedDelivery[]): Promise<void> {
    const hosts = [...new Set(deferred.map((d) => d.receiverHost))];
    try {
      await outbox.releaseDeliveries(settings.workerId, deferred);
      log.debug({ count: deferred.length, hosts }, 'push deliveries deferred: at a cap');
    } catch (err) {
      // Nothing lost: the claims lapse and any pusher sends them then.
      log.warn({ err, count: deferred.length, hosts }, 'could not hand back deferred push deliveries');
    }
  }

  async function drain(graceMs: number): Promise<boolean> {
    const timer = new AbortController();
    const all = Promise.allSettled([...inFlight]).then(() => true);
    const late = sleep(graceMs, false, { signal: timer.signal }).catch(() => false);
    const drained = await Promise.race([all, late]);
    timer.abort();
    return drained;
  }

  return {
    workerId: settings.workerId,
    outbox,
    get state(): PusherState {
      return state;
    },
    /**
     * Once the schema is current, starts the loop, then subscribes to wake-ups; resolves when
     * subscribed (or stopped, also while it waits for the schema). Without Redis it stays pending
     * while the loop delivers by polling: Redis only speeds delivery up.
     */
    async start(): Promise<void> {
      if (state !== 'created') throw new Error(`pusher cannot start from state ${state}`);
      state = 'starting';
      const current = await waitForCurrentSchema({
        pool,
        log,
        signal: halt.signal,
        ...(settings.schemaPollMs === undefined ? {} : { pollMs: settings.schemaPollMs }),
      });
      // Stopped while waiting: stop() has done the rest.
      if (!current || state !== 'starting') return;
      state = 'running';
      loop = runClaimLoop({
        claim,
        isRunning: () => state === 'running',
        wake,
        pollMs: settings.pollMs,
        signal: halt.signal,
        log,
      });
      log.info(
        {
          workerId: settings.workerId,
          concurrency: settings.concurrency,
          maxInFlightPerTenant: settings.maxInFlightPerTenant,
          maxInFlightPerHost: settings.maxInFlightPerHost,
        },
        'pusher running',
      );
      wakeups = listenForPushWakeups(subscriber, keys.pushChannel, () => wake.notify(), halt.signal, log);
      await wakeups.subscribed;
    },
    async stop(): Promise<void> {
      if (state === 'stopped' || state === 'draining') return;
      state = 'draining';
      halt.abort();
      wake.close();
      await loop;
      // An UNSUBSCRIBE to a Redis that is frozen (its socket still up) is never answered: the drain
      // would wait for it until the shutdown deadline instead of handing sends their grace.
      if (wakeups) await closeWithin('push wake-ups', () => wakeups!.close(), log);
      if (!(await drain(settings.shutdownGraceMs ?? settings.timeoutMs + PUSH_DRAIN_EXTRA_MS))) {
        log.warn(
          { inFlight: inFlight.size },
          'grace period over: aborting sends; their claims lapse and they are sent again',
        );
        force.abort();
        await Promise.allSettled([...inFlight]);
      }
      await dispatcher.close();
      state = 'stopped';
      log.info({ workerId: settings.workerId }, 'pusher stopped');
    },
    /** Claims one batch (up to the free concurrency), sends it and waits for every outcome. For tests and tools. */
    async deliverOnce(): Promise<DeliveryResult[]> {
      if (state === 'stopped' || state === 'draining') throw new Error(`pusher is ${state}`);
      return Promise.all((await claim()).sends);
    },
    async ready(): Promise<Record<string, boolean>> {
      const { postgres, migrations } = await databaseReadiness(pool);
      return { postgres, migrations, redis: subscriber.status === 'ready', running: state === 'running' };
    },
    health(): boolean {
      // Alive while it waits for migrations too: a liveness probe must not restart it for that.
      return state === 'starting' || state === 'running' || state === 'draining';
    },
    metrics(): Promise<{ contentType: string; body: string }> {
      return metrics.text();
    },
  };
}

export type Pusher = ReturnType<typeof createPusher>;
