import type { UrlPolicy } from '@switchyard/engine';
import { isInterrupted, isTerminal, type Task } from '@switchyard/protocol';
import type { ClaimedDelivery, OutboxStore } from '@switchyard/store';
import type { Logger } from '@switchyard/telemetry';
import type { Dispatcher } from 'undici';
import { retryDelayMs, type RetryPolicy } from './backoff.ts';
import { postWebhook, type PostOutcome } from './post-webhook.ts';
import { buildWebhookRequest, type WebhookRequest } from './webhook-request.ts';

/** What became of a claimed delivery; `retry` carries when it is due again. */
export type DeliveryResult =
  | { outcome: 'delivered'; status: number }
  | { outcome: 'retry'; nextAttemptAt: Date; error: string }
  | { outcome: 'dead'; error: string }
  /** Nothing recorded: a forced shutdown, a lost claim or a store error. The lock lapses and it is sent again. */
  | { outcome: 'abandoned'; reason: string };

export interface DeliverDeps {
  outbox: OutboxStore;
  dispatcher: Dispatcher;
  policy: UrlPolicy;
  workerId: string;
  timeoutMs: number;
  retry: RetryPolicy;
  log: Logger;
  /** Jitter source, [0, 1). */
  random: () => number;
  /**
   * The task as it stands, without its history (with its artifacts when asked), or null once it is
   * gone: the body of a delivery to a config a 0.3 client registered (webhook-request.ts).
   */
  loadTask?: (tenantId: string, taskId: string, withArtifacts: boolean) => Promise<Task | null>;
  signal?: AbortSignal;
}

/**
 * Claims past the attempt limit that may still be sent. Every claim counts an attempt, and one
 * that lapses (its pusher killed, frozen or stopped mid-send) records no outcome, so the last
 * attempts may have been claims that never sent: a few more keep at-least-once for a delivery
 * that met a rolling restart. Past them it is dead-lettered unsent, or a delivery that takes its
 * pushers down with it would be claimed forever and hold its config's later events back.
 */
export const LAPSED_CLAIMS_ALLOWED = 3;

/**
 * Sends one claimed delivery and records the outcome under the claim: 2xx → delivered; anything
 * else → retry at now + backoff, or dead once `attempts` reaches the limit, keeping the last error.
 * Never throws: the outcome is the result, and a store failure leaves the claim to lapse, which is
 * a duplicate at worst (at-least-once).
 */
export async function deliver(
  delivery: ClaimedDelivery,
  deps: DeliverDeps,
  sendBy = Number.POSITIVE_INFINITY,
): Promise<DeliveryResult> {
  const started = Date.now();
  // A pusher frozen (SIGSTOP, a stalled event loop) between its claim and this send may wake after
  // its lock lapsed and another pusher sent this event and later ones: sending it now would be a
  // stale duplicate after newer events. Too late to finish inside the lock: leave it to the lapse.
  if (started > sendBy) return tooOld(delivery, deps);
  if (delivery.attempts > deps.retry.maxAttempts + LAPSED_CLAIMS_ALLOWED)
    return claimedTooOften(delivery, deps);
  const sent = await attempt(delivery, deps, new Date(started), sendBy);
  if (sent === 'too late') return tooOld(delivery, deps);
  // Where it went, without path or query: those may carry the receiver's own secrets.
  const fields = {
    ...keyFields(delivery),
    attempt: delivery.attempts,
    host: hostOf(delivery.config.url),
    durationMs: Date.now() - started,
  };
  if (!sent.ok && sent.aborted) {
    deps.log.info(fields, 'push delivery abandoned by shutdown');
    return { outcome: 'abandoned', reason: sent.error };
  }
  try {
    if (sent.ok) {
      const kept = await deps.outbox.markDelivered({
        ...keyOf(delivery),
        workerId: deps.workerId,
        status: sent.status,
      });
      if (!kept) return lostClaim(deps, fields);
      deps.log.info({ ...fields, status: sent.status }, 'push delivered');
      return { outcome: 'delivered', status: sent.status };
    }
    const status = sent.status === undefined ? {} : { status: sent.status };
    const base = { ...keyOf(delivery), workerId: deps.workerId, error: sent.error, ...status };
    // 410 Gone is the receiver's final word (the endpoint no longer exists); the rest wait.
    if (sent.gone || delivery.attempts >= deps.retry.maxAttempts) {
      // A whole budget spent with the receiver away (~20 minutes): the events queued behind get
      // one attempt each, not a budget each.
      const kept = await deps.outbox.markFailed({
        ...base,
        dead: true,
        ...(receiverAway(sent) ? { laterAttemptsFloor: deps.retry.maxAttempts - 1 } : {}),
      });
      if (!kept) return lostClaim(deps, fields);
      deps.log.error({ ...fields, ...status, error: sent.error }, 'push delivery dead-lettered');
      return { outcome: 'dead', error: sent.error };
    }
    // A receiver that asked for a wait (429/503 Retry-After) gets it, up to the longest backoff.
    const retryInMs = Math.max(
      retryDelayMs(deps.retry, delivery.attempts, deps.random),
      Math.min(sent.retryAfterMs ?? 0, deps.retry.maxMs),
    );
    // Due again on the database's clock; this process's own only times its wake-up.
    const kept = await deps.outbox.markFailed({ ...base, retryInMs });
    const nextAttemptAt = new Date(Date.now() + retryInMs);
    if (!kept) return lostClaim(deps, fields);
    deps.log.warn(
      { ...fields, ...status, error: sent.error, nextAttemptAt },
      'push delivery failed; will retry',
    );
    return { outcome: 'retry', nextAttemptAt, error: sent.error };
  } catch (err) {
    deps.log.error({ ...fields, err }, 'could not record a push delivery outcome; it will be sent again');
    return { outcome: 'abandoned', reason: 'store error' };
  }
}

/**
 * Whether a failure says the receiver is away: no answer (a timeout, a refused connection, a
 * name that does not resolve) or a 5xx that asked for no wait. Not a failure of the pusher's own
 * (its Postgres, a signing secret), nor a receiver that answered 4xx, 429 or Retry-After: it is
 * there, and the events behind may fare otherwise or must wait as it asked.
 */
function receiverAway(sent: Extract<PostOutcome, { ok: false }>): boolean {
  if (sent.local || sent.gone || sent.retryAfterMs !== undefined) return false;
  return sent.status === undefined || sent.status >= 500;
}

async function claimedTooOften(delivery: ClaimedDelivery, deps: DeliverDeps): Promise<DeliveryResult> {
  const lapsed = delivery.attempts - 1 - deps.retry.maxAttempts;
  const error = `no attempts left: ${lapsed} claims past the limit of ${deps.retry.maxAttempts} lapsed without an outcome (their pushers stopped while sending it)`;
  try {
    const kept = await deps.outbox.markFailed({
      ...keyOf(delivery),
      workerId: deps.workerId,
      error,
      dead: true,
    });
    if (!kept) return lostClaim(deps, keyFields(delivery));
  } catch (err) {
    deps.log.error(
      { ...keyFields(delivery), err },
      'could not dead-letter a push delivery; it will be claimed again',
    );
    return { outcome: 'abandoned', reason: 'store error' };
  }
  deps.log.error(
    { ...keyFields(delivery), attempt: delivery.attempts, error },
    'push delivery dead-lettered',
  );
  return { outcome: 'dead', error };
}

function tooOld(delivery: ClaimedDelivery, deps: DeliverDeps): DeliveryResult {
  deps.log.warn(keyFields(delivery), 'push delivery claim too old to send; leaving it to lapse');
  return { outcome: 'abandoned', reason: 'claim too old' };
}

/** 'too late': the 0.3 task read ran past `sendBy`, so a POST started now could outlive the lock. */
async function attempt(
  delivery: ClaimedDelivery,
  deps: DeliverDeps,
  now: Date,
  sendBy: number,
): Promise<PostOutcome | 'too late'> {
  let task: Task | undefined;
  if (delivery.config.wireVersion === '0.3' && deps.loadTask) {
    try {
      task =
        (await deps.loadTask(delivery.tenantId, delivery.taskId, carriesArtifacts(delivery))) ?? undefined;
    } catch (err) {
      // Postgres away: an attempt that failed before sending, retried with the others.
      deps.log.warn({ ...keyFields(delivery), err }, 'could not read the task for a 0.3 push delivery');
      return { ok: false, error: 'could not read the task to send', local: true };
    }
    // The read may wait for a pool connection and Postgres: the deadline is checked again.
    if (Date.now() > sendBy) return 'too late';
  }
  let request: WebhookRequest;
  try {
    request = buildWebhookRequest(delivery, now, task);
  } catch (err) {
    // A signing secret that does not decode: an operator must rotate it; retrying shows the error.
    deps.log.error({ ...keyFields(delivery), err }, 'could not sign a push delivery');
    return { ok: false, error: 'could not sign the delivery (invalid tenant webhook secret)', local: true };
  }
  return postWebhook(request, deps);
}

/** The claim was taken over (lock lapsed) or the config was deleted meanwhile: not ours to record. */
function lostClaim(deps: DeliverDeps, fields: Record<string, unknown>): DeliveryResult {
  deps.log.warn(fields, 'push delivery claim lost (config deleted or lock lapsed); outcome not recorded');
  return { outcome: 'abandoned', reason: 'claim lost' };
}

function keyOf(d: ClaimedDelivery) {
  return { tenantId: d.tenantId, taskId: d.taskId, configId: d.configId, seq: d.seq };
}

function keyFields(d: ClaimedDelivery) {
  return { ...keyOf(d), deliveryId: d.deliveryId };
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(invalid url)';
  }
}

/**
 * Whether a 0.3 delivery's Task carries the artifacts: at the events a receiver acts on (the task
 * ends, or waits for its client), not at every chunk. A task streaming a thousand chunks into a
 * 16 MiB artifact would otherwise send gigabytes of webhook bodies, all but the last stale.
 */
function carriesArtifacts(delivery: ClaimedDelivery): boolean {
  const state = delivery.payload.statusUpdate?.status.state ?? delivery.payload.task?.status.state;
  return state !== undefined && (isTerminal(state) || isInterrupted(state));
}
