import { toV03StreamResult, toV03Task, type Task } from '@switchyard/protocol';
import type { ClaimedDelivery } from '@switchyard/store';
import { injectTraceContext } from '@switchyard/telemetry';
import { Webhook } from 'standardwebhooks';

/** What goes on the wire for one delivery attempt. */
export interface WebhookRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
}

export const USER_AGENT = 'Switchyard-Pusher';

/**
 * The POST for one delivery (digest §8): the bare StreamResponse as `application/a2a+json` (for a
 * config a 0.3 client registered, the task as 0.3 shapes it, as `application/json`), the
 * config's `Authorization` and notification token, and a Standard Webhooks signature over
 * id.timestamp.body with the tenant's secret, and W3C `traceparent`. `webhook-id` is the delivery id, identical on every
 * retry, so receivers dedupe on it; the timestamp is the attempt's, so a replayed capture ages out.
 *
 * `task` is the task as it stands (deliver.ts reads it for 0.3 configs only): 0.3 servers, the
 * a2a-js, a2a-python and a2a-java SDKs among them, POST the whole Task at each event ("the latest
 * task state"), so that is what a 0.3 receiver parses. Without it (the task is gone) a 0.3 config
 * gets the event as a 0.3 stream result (`kind`, lowercase states, `final`).
 */
export function buildWebhookRequest(delivery: ClaimedDelivery, now: Date, task?: Task): WebhookRequest {
  // 0.3 had no A2A media type: its receivers expect application/json.
  const v03 = delivery.config.wireVersion === '0.3';
  const body = JSON.stringify(
    !v03 ? delivery.payload : task ? toV03Task(task) : toV03StreamResult(delivery.payload),
  );
  const headers: Record<string, string> = {
    'content-type': v03 ? 'application/json' : 'application/a2a+json',
    'user-agent': USER_AGENT,
    'webhook-id': delivery.deliveryId,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': new Webhook(delivery.webhookSecret).sign(delivery.deliveryId, now, body),
  };
  const auth = delivery.config.authentication;
  // AuthenticationInfo.credentials is optional; a bare scheme authenticates nothing, so the header
  // goes out only with credentials (digest §8: `Authorization: <scheme> <credentials>`).
  if (auth?.credentials) headers.authorization = `${auth.scheme} ${auth.credentials}`;
  // 1.0.1 names no carriage for `token`; the SDKs send this header (digest §12 #6).
  if (delivery.config.token) headers['x-a2a-notification-token'] = delivery.config.token;
  // The active span's context (deliver-push, itself in the task's trace): a receiver that traces
  // joins it. The signature covers id, timestamp and body only, so it is unaffected.
  Object.assign(headers, injectTraceContext());
  return { url: delivery.config.url, body, headers };
}
