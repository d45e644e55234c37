import { setTimeout as sleep } from 'node:timers/promises';
import type { LookupFn, UrlPolicy } from '@switchyard/engine';
import type { QueueKeys } from '@switchyard/queue';
import {
  createDb,
  migrationsCurrent,
  PostgresOutboxStore,
  type ClaimedDelivery,
  type SecretBox,
} from '@switchyard/store';
import type { Logger } from '@switchyard/telemetry';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import type { RetryPolicy } from './backoff.ts';
import { deliver, type DeliverDeps, type DeliveryResult } from './deliver.ts';
import { runClaimLoop } from './claim-loop.ts';
import { createGuardedAgent } from './guarded-agent.ts';
import { listenForPushWakeups, type PushWakeups } from './push-wakeups.ts';
import { PusherMetrics } from './pusher-metrics.ts';
import { WakeSignal } from './wake-signal.ts';

export interface PusherSettings {
  /** Claim owner id, unique per process. */
  workerId: string;
  /** Deliveries sent at once. */
  concurrency: number;
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
}

export type PusherState = 'created' | 'running' | 'draining' | 'stopped';

/**
 * The webhook delivery service (ARCHITECTURE.md §7). Lifecycle CREATED → RUNNING → DRAINING →
 * STOPPED. While running, a loop claims up to the free concurrency of due deliveries and sends them
 * in parallel; it wakes on the Redis push channel, when a send finishes (the next event of that
 * config became claimable), at a retry this process scheduled, or every `pollMs`. Order per
 * (task, config) needs nothing here: the outbox hands out only the earliest pending delivery of each.
 * stop() claims nothing more, lets sends finish within the grace, then aborts the rest, whose claims
 * lapse and are sent again by any pusher: delivery is at-least-once.
 */
export function createPusher(options: PusherOptions) {
  const { pool, subscriber, keys, log, settings } = options;
  const outbox = new PostgresOutboxStore({ db: createDb(pool), secrets: options.secrets });
  const dispatcher = createGuardedAgent({
    policy: settings.policy,
    connectTimeoutMs: settings.timeoutMs,
    resolve: options.resolve,
  });
  const metrics = new PusherMetrics();
  const wake = new WakeSignal();
  const halt = new AbortController();
  const force = new AbortController();
  const inFlight = new Set<Promise<DeliveryResult>>();
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
  };
  let state: PusherState = 'created';
  let loop: Promise<void> | undefined;
  let wakeups: PushWakeups | undefined;

  function send(delivery: ClaimedDelivery): Promise<DeliveryResult> {
    const sending: Promise<DeliveryResult> = deliver(delivery, deps)
      .catch((err: unknown): DeliveryResult => {
        log.error({ err, deliveryId: delivery.deliveryId }, 'push delivery crashed; its claim will lapse');
        return { outcome: 'abandoned', reason: 'internal error' };
      })
      .then((result) => {
        metrics.record(result.outcome);
        if (result.outcome === 'retry' && state === 'running') wake.wakeAt(result.nextAttemptAt);
        // A slot is free and, after delivered or dead, the config's next event is claimable.
        wake.notify();
        return result;
      })
      .finally(() => inFlight.delete(sending));
    inFlight.add(sending);
    return sending;
  }

  async function claim(): Promise<{ sends: Array<Promise<DeliveryResult>>; full: boolean }> {
    const limit = settings.concurrency - inFlight.size;
    if (limit <= 0) return { sends: [], full: false };
    const batch = await outbox.claimDueDeliveries({
      workerId: settings.workerId,
      limit,
      lockMs: settings.lockMs,
    });
    return { sends: batch.map(send), full: batch.length === limit };
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
     * Starts the loop at once, then subscribes to wake-ups; resolves when subscribed (or stopped).
     * Without Redis it stays pending while the loop delivers by polling: Redis only speeds delivery up.
     */
    async start(): Promise<void> {
      if (state !== 'created') throw new Error(`pusher cannot start from state ${state}`);
      state = 'running';
      loop = runClaimLoop({
        claim,
        isRunning: () => state === 'running',
        wake,
        pollMs: settings.pollMs,
        signal: halt.signal,
        log,
      });
      log.info({ workerId: settings.workerId, concurrency: settings.concurrency }, 'pusher running');
      wakeups = listenForPushWakeups(subscriber, keys.pushChannel, () => wake.notify(), halt.signal, log);
      await wakeups.subscribed;
    },
    async stop(): Promise<void> {
      if (state === 'stopped' || state === 'draining') return;
      state = 'draining';
      halt.abort();
      wake.close();
      await loop;
      await wakeups?.close();
      if (!(await drain(settings.shutdownGraceMs ?? settings.timeoutMs + 5000))) {
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
      const [postgres, migrations] = await Promise.all([
        pool.query('SELECT 1').then(
          () => true,
          () => false,
        ),
        migrationsCurrent(pool).catch(() => false),
      ]);
      return { postgres, migrations, redis: subscriber.status === 'ready', running: state === 'running' };
    },
    health(): boolean {
      return state === 'running' || state === 'draining';
    },
    async metrics(): Promise<{ contentType: string; body: string }> {
      return { contentType: 'text/plain; version=0.0.4', body: await metrics.render(outbox, inFlight.size) };
    },
  };
}

export type Pusher = ReturnType<typeof createPusher>;
