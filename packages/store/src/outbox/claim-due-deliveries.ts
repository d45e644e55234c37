import type { StreamResponse } from '@switchyard/protocol';
import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { SecretBox } from '../secret-box.ts';
import { buryOrphanDeliveries, ORPHAN_REASON } from './bury-orphan-deliveries.ts';
import { claimCandidates } from './claim-candidates.ts';
import { markFailed } from './mark-failed.ts';
import { parkWaiting, waitingToPark } from './park-waiting.ts';
import {
  deliveryIdOf,
  type ClaimDeliveriesInput,
  type ClaimedDelivery,
  type DeliveryKey,
  type PushTarget,
} from './outbox-store.ts';
import { receiverHostOf } from './receiver-host.ts';

const UNDECRYPTABLE_REASON = 'cannot decrypt push secrets (check SWITCHYARD_SECRET_KEY)';

/**
 * Claims due deliveries in ONE statement (graphile-worker's getJobs): the subquery picks and
 * row-locks candidates, tenants in turn (claim-candidates.ts); the UPDATE stamps the lock and
 * counts the attempt; the outer SELECT joins the event payload, the push config and the tenant's
 * signing secret for the whole batch in the same round trip. Rows come back in the order the
 * tenants were visited, so the caller's next claim can start after the last one. A delivery with a
 * queue of others behind it is then followed by a statement that parks them (park-waiting.ts).
 */
export async function claimDueDeliveries(
  db: Db,
  secrets: SecretBox,
  input: ClaimDeliveriesInput,
): Promise<ClaimedDelivery[]> {
  const rows = await db
    .with('claimed', (qc) =>
      qc
        .updateTable('push_deliveries')
        .set((eb) => ({
          locked_by: input.workerId,
          locked_until: sql<Date>`now() + make_interval(secs => ${input.lockMs / 1000})`,
          attempts: eb('attempts', '+', 1),
        }))
        .where(sql<boolean>`(tenant_id, task_id, config_id, seq) IN (${claimCandidates(input)})`)
        .returning(['tenant_id', 'task_id', 'config_id', 'seq', 'attempts']),
    )
    .selectFrom('claimed as c')
    .innerJoin('push_configs as pc', (j) =>
      j
        .onRef('pc.tenant_id', '=', 'c.tenant_id')
        .onRef('pc.task_id', '=', 'c.task_id')
        .onRef('pc.id', '=', 'c.config_id'),
    )
    .innerJoin('tenants as t', 't.id', 'c.tenant_id')
    .leftJoin('tasks as tk', (j) =>
      j.onRef('tk.tenant_id', '=', 'c.tenant_id').onRef('tk.id', '=', 'c.task_id'),
    )
    .leftJoin('task_events as ev', (j) =>
      j
        .onRef('ev.tenant_id', '=', 'c.tenant_id')
        .onRef('ev.task_id', '=', 'c.task_id')
        .onRef('ev.seq', '=', 'c.seq'),
    )
    .select([
      'c.tenant_id',
      'c.task_id',
      'c.config_id',
      'c.seq',
      'c.attempts',
      'ev.payload',
      'pc.url',
      'pc.token_enc',
      'pc.auth_scheme',
      'pc.auth_credentials_enc',
      'pc.wire_version',
      't.webhook_secret_enc',
      'tk.trace_context',
      receiverHostOf(sql.ref('pc.url')).as('receiver_host'),
      waitingToPark('c', sql.ref('tk.version')).as('park'),
    ])
    // Visiting order: the tenants after `afterTenant` first, then those the claim wrapped round to.
    .orderBy(sql`c.tenant_id <= ${input.afterTenant ?? ''}`)
    .orderBy('c.tenant_id')
    .orderBy('c.task_id')
    .orderBy('c.seq')
    .execute();

  const claimed: ClaimedDelivery[] = [];
  const heads: DeliveryKey[] = [];
  const orphans: typeof rows = [];
  const undecryptable: DeliveryKey[] = [];
  for (const row of rows) {
    // No event to send: the log was pruned under a pending delivery (retention avoids this).
    if (row.payload == null) {
      orphans.push(row);
      continue;
    }
    const key = { tenantId: row.tenant_id, taskId: row.task_id, configId: row.config_id, seq: row.seq };
    let config: PushTarget;
    let webhookSecret: string;
    try {
      config = { url: row.url };
      if (row.wire_version === '0.3') config.wireVersion = '0.3';
      if (row.token_enc) config.token = secrets.open(row.token_enc);
      if (row.auth_scheme) {
        config.authentication = { scheme: row.auth_scheme };
        if (row.auth_credentials_enc)
          config.authentication.credentials = secrets.open(row.auth_credentials_enc);
      }
      webhookSecret = secrets.open(row.webhook_secret_enc);
    } catch {
      // Sealed with another key (SWITCHYARD_SECRET_KEY differs between processes): this row can
      // never be sent by this process. Dead-letter it with a safe reason instead of failing the
      // whole batch and re-claiming it forever; an operator fixes the key and replays.
      undecryptable.push(key);
      continue;
    }
    if (row.park) heads.push(key);
    claimed.push({
      ...key,
      attempts: row.attempts,
      deliveryId: deliveryIdOf(key),
      payload: row.payload as StreamResponse,
      config,
      receiverHost: row.receiver_host,
      webhookSecret,
      ...(row.trace_context ? { traceContext: row.trace_context } : {}),
    });
  }
  // The claim has committed: a failure from here on (a Postgres blip) must not throw the batch
  // away, which would leave every claimed delivery to lapse and spend an attempt. A row these
  // statements miss stays claimed by this process, lapses, and is dealt with by a later claim.
  const observer = input.observer;
  if (orphans.length > 0) {
    const buried = await buryOrphanDeliveries(db, input.workerId, orphans).catch((err: unknown) => {
      observer?.followUpFailed('bury deliveries whose event is gone', err);
      return [];
    });
    for (const key of buried) observer?.deadLettered(key, ORPHAN_REASON);
  }
  for (const key of undecryptable) {
    const dead = await markFailed(db, {
      ...key,
      workerId: input.workerId,
      error: UNDECRYPTABLE_REASON,
      dead: true,
    }).catch((err: unknown) => {
      observer?.followUpFailed('dead-letter undecryptable', err);
      return false;
    });
    if (dead) observer?.deadLettered(key, UNDECRYPTABLE_REASON);
  }
  // Parking only saves later claims a read: one that fails leaves the queue due, as it was
  // before parking.
  for (const head of heads)
    await parkWaiting(db, head).catch((err: unknown) => observer?.followUpFailed('park waiting', err));
  return claimed;
}
