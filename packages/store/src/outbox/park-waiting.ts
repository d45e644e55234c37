import { sql, type Expression, type RawBuilder } from 'kysely';
import type { Db } from '../db.ts';
import { NOT_PENDING } from './not-pending.ts';
import type { DeliveryKey } from './outbox-store.ts';

/**
 * Deliveries waiting behind an earlier one of their (task, config), kept out of the claims' way.
 *
 * A claim reads a tenant's due deliveries oldest first and refuses those with an earlier one still
 * pending (per-task order). Left due, the deliveries queued behind one being sent were read and
 * refused by every claim of every pusher for as long as it was in flight: 20,000 of them cost each
 * claim 60,000 buffers, also a claim that found nothing. So they are parked:
 *
 * - When a claim takes a delivery with at least PARK_FROM waiting behind it, claimDueDeliveries
 *   parks them: moves them ten minutes out (PARKED_FOR_MS), so that the claims after it do not
 *   see them (parkWaiting), and parks them again while they wait (PARK_AGAIN_WITHIN_MS).
 * - Whatever takes a delivery out of pending (delivered, dead, buried as an orphan) makes the next
 *   pending one of its config due at once, in the same statement (past a gap in the seqs, in one of
 *   its own): it is the config's new head (releaseNext). Only that one, so draining a backlog of n
 *   costs a few writes per delivery, not n.
 * - markFailed moves the ones due behind a delivery in backoff to its retry time, as before.
 *
 * So the earliest pending delivery of a config is never parked, only later ones, and each is due
 * again as soon as the one before it is done: parking changes which claims read a delivery, not
 * when it can go. The ten minutes bound a release that never comes: a parked delivery is due then
 * anyway, and its config's next claim parks it again. That happens while a release without this
 * file is still running beside one with it (a rolling upgrade): a pusher of the old release that
 * ends a delivery leaves the next one parked. Parked deliveries show that time as their next
 * attempt until their turn comes. Parking them again costs a write each every five minutes or so
 * while their config's queue lasts, at the claims of its head; in between they do not come due,
 * as a head is in flight for at most PUSH_LOCK_MS and markFailed moves them to its retry time when
 * that is later.
 *
 * Parking costs writes, so it waits for PARK_FROM: fewer refused deliveries are cheaper to read than
 * to write twice. A claim still reads queues shorter than that, and what came due behind a
 * delivery in flight or in backoff since its config's last parking (events that arrived meanwhile)
 * until its config's next claim parks it: what arrives during one attempt or one backoff, never
 * the backlog.
 *
 * Every row is found by its seq, with equality probes of the primary key or
 * push_deliveries_pending_order (000008), never by an ordered scan of a config's deliveries: the
 * generic plans cannot know that a config holds thousands of pending deliveries, and with the
 * tenant known only at run time they sorted all of them (Append + Sort across the partitions)
 * rather than merge the partitions' index order to read one. Where the parked deliveries are
 * follows from how they are parked: each parking moves what came due since the last, so they are
 * parked in seq order. Right behind the head come those parked longest ago, and at the end (up to
 * the task's version, the seq of its last event) what arrived since; a config's deliveries have
 * consecutive seqs, one per event from the config's creation on.
 */

/** How far out the deliveries waiting behind a claimed one are parked. */
export const PARKED_FOR_MS = 600_000;
/** A parked delivery with less than this left is parked again by its config's next claim. */
export const PARK_AGAIN_WITHIN_MS = 300_000;
/** Deliveries waiting behind a claimed one are parked only when at least this many need it. */
export const PARK_FROM = 16;

const secs = (ms: number) => sql`make_interval(secs => ${sql.lit(ms / 1000)})`;

/** A pending delivery of the config of `key` at seq `seq`, with `also` true of it. */
function pendingAt(
  key: { tenant: Expression<unknown>; task: Expression<unknown>; config: Expression<unknown> },
  seq: Expression<unknown>,
  also: RawBuilder<unknown> = sql`true`,
) {
  return sql<boolean>`EXISTS (
    SELECT 1 FROM push_deliveries p
     WHERE p.tenant_id = ${key.tenant} AND p.task_id = ${key.task} AND p.config_id = ${key.config}
       AND p.seq = ${seq} AND p.status NOT IN (${sql.join(NOT_PENDING)}) AND ${also})`;
}

const dueOrParkedLongAgo = sql`p.next_attempt_at < now() + ${secs(PARK_AGAIN_WITHIN_MS)}`;

/**
 * For the claim's statement: whether deliveries waiting behind the claimed delivery `c` need
 * parking, three probes at most. The PARK_FROM-th seq after it is pending (a queue at least that
 * long), and the next one needs parking (due, or parked long ago), or enough have come due at the
 * end (the PARK_FROM-th seq from the task's version `version` is due).
 */
export function waitingToPark(c: string, version: Expression<unknown>): RawBuilder<boolean> {
  const key = {
    tenant: sql.ref(`${c}.tenant_id`),
    task: sql.ref(`${c}.task_id`),
    config: sql.ref(`${c}.config_id`),
  };
  const seq = sql.ref(`${c}.seq`);
  return sql<boolean>`(${pendingAt(key, sql`${seq} + ${sql.lit(PARK_FROM)}`)}
    AND (${pendingAt(key, sql`${seq} + 1`, dueOrParkedLongAgo)}
         OR ${pendingAt(key, sql`${version} - ${sql.lit(PARK_FROM - 1)}`, sql`p.next_attempt_at <= now()`)}))`;
}

/**
 * Parks the deliveries waiting behind `head` (just claimed: the earliest pending of its config),
 * one statement with the config's keys as parameters; returns how many it parked.
 *
 * When the next one needs parking (due, or parked long ago), it parks every pending one behind the
 * head: they were parked together or not at all. Otherwise it parks those after the last one still
 * parked, found by walking down from the task's version while the deliveries there are not
 * parked (each step one probe): what came due since the last parking. Only when at least PARK_FROM
 * would be. Rows another statement holds are skipped (they stay due, for a later claim to park):
 * a pusher's claim never waits on another statement.
 */
export async function parkWaiting(db: Db, head: DeliveryKey): Promise<number> {
  const t = { tenant: sql`${head.tenantId}`, task: sql`${head.taskId}::uuid`, config: sql`${head.configId}` };
  const h = sql`${head.seq}::int`;
  const config = sql`tenant_id = ${t.tenant} AND task_id = ${t.task} AND config_id = ${t.config}
    AND status NOT IN (${sql.join(NOT_PENDING)})`;
  const { rows } = await sql<{ parked: number }>`
    WITH RECURSIVE
      again AS (SELECT ${pendingAt(t, sql`${h} + 1`, dueOrParkedLongAgo)} AS all_of_them),
      down(seq, parked) AS (
        SELECT v.version, ${pendingAt(t, sql.ref('v.version'), sql`p.next_attempt_at > now()`)}
          FROM tasks v
         WHERE v.tenant_id = ${t.tenant} AND v.id = ${t.task} AND v.version > ${h}
           AND NOT (SELECT all_of_them FROM again)
        UNION ALL
        SELECT d.seq - 1, ${pendingAt(t, sql`d.seq - 1`, sql`p.next_attempt_at > now()`)}
          FROM down d
         WHERE NOT d.parked AND d.seq - 1 > ${h}),
      past AS (
        SELECT CASE WHEN (SELECT all_of_them FROM again) THEN ${h}
                    ELSE coalesce((SELECT d.seq FROM down d WHERE d.parked), ${h}) END AS seq),
      waiting AS (
        -- Not one claimed and in flight (after a replayed dead letter, a later delivery can be):
        -- parked, its lapse would wait the parking out instead of its lock.
        SELECT seq FROM push_deliveries
         WHERE ${config} AND seq > (SELECT seq FROM past)
           AND (locked_until IS NULL OR locked_until < now())
         FOR UPDATE SKIP LOCKED),
      parked AS (
        UPDATE push_deliveries SET next_attempt_at = now() + ${secs(PARKED_FOR_MS)}
         WHERE ${config} AND seq > (SELECT seq FROM past) AND seq IN (SELECT seq FROM waiting)
           AND (SELECT count(*) FROM waiting) >= ${sql.lit(PARK_FROM)}
        RETURNING 1)
    SELECT count(*)::int AS parked FROM parked`.execute(db);
  return rows[0]?.parked ?? 0;
}

/** A data-modifying statement without RETURNING, to run as a CTE of another. */
type CteStatement = RawBuilder<Record<string, never>>;

/** `statement` in parentheses, as kysely's `with` takes it (it leaves a raw CTE's body bare). */
export const asCte = (statement: CteStatement): CteStatement => sql<Record<string, never>>`(${statement})`;

/**
 * The UPDATE that makes the next delivery of each config in `doneCte` due at once: the rows there
 * (task_id, config_id, seq, and tenant_id unless `tenantId` is given) were just taken out of
 * pending, so the delivery at the next seq is its config's head. Only when it is pending and waits
 * in the future (parked, or moved to a retry time that the one before it no longer needs); a due
 * one is left alone. `tenantId`, when the rows are all of one tenant, is a parameter, so that the
 * generic plan prunes to its partition.
 *
 * Written like markDelivered's own UPDATE, so that only the primary key serves it, one lookup per
 * row: the status a parameter, and the next seq, not the next pending one. Spelled with NOT_PENDING,
 * the planner, with statistics taken while nothing was pending, read push_deliveries_pending_order
 * for the whole tenant instead (3,000 rows for one mark); looking for the next pending seq in seq
 * order, it hashed a read of the tenant's every delivery (23,001). When the next seq is not pending
 * but a later one is (a gap: later deliveries went out before an earlier one was replayed),
 * `gapAfter` says so and the caller runs `releaseAfterGap`.
 */
export function releaseNext(doneCte: string, tenantId?: string): CteStatement {
  const tenant = tenantId === undefined ? sql.ref('r.tenant_id') : sql`${tenantId}`;
  return sql<Record<string, never>>`
    UPDATE push_deliveries AS n SET next_attempt_at = now()
      FROM ${sql.table(doneCte)} AS r
     WHERE n.tenant_id = ${tenant} AND n.task_id = r.task_id AND n.config_id = r.config_id
       AND n.seq = r.seq + 1 AND n.status = ${'pending'} AND n.next_attempt_at > now()
       -- Not a row the same statement takes out of pending (two marks in one batch, 10 and 11):
       -- one statement cannot update a row twice, and Postgres would apply only one of the two.
       AND NOT EXISTS (SELECT 1 FROM ${sql.table(doneCte)} AS o
                        WHERE o.task_id = n.task_id AND o.config_id = n.config_id AND o.seq = n.seq)`;
}

/**
 * For the row `r` of a delivery just taken out of pending: whether the next pending delivery of
 * its config is past a gap (the next seq is not pending, a later one is), two probes.
 */
export function gapAfter(r: string, tenantId?: string): RawBuilder<boolean> {
  const key = {
    tenant: tenantId === undefined ? sql.ref(`${r}.tenant_id`) : sql`${tenantId}`,
    task: sql.ref(`${r}.task_id`),
    config: sql.ref(`${r}.config_id`),
  };
  const seq = sql.ref(`${r}.seq`);
  return sql<boolean>`(NOT ${pendingAt(key, sql`${seq} + 1`)} AND EXISTS (
    SELECT 1 FROM push_deliveries p
     WHERE p.tenant_id = ${key.tenant} AND p.task_id = ${key.task} AND p.config_id = ${key.config}
       AND p.seq > ${seq} + 1 AND p.status NOT IN (${sql.join(NOT_PENDING)})))`;
}

/**
 * After `done` left pending with a gap behind it (gapAfter): makes the next pending delivery of its
 * config due, if it waits in the future. One statement with the keys as parameters, so the row is
 * updated by primary key whatever the plan; finding it reads the config's pending deliveries in
 * seq order, which only a replayed dead letter with later deliveries gone before it leads to.
 */
export async function releaseAfterGap(db: Db, done: DeliveryKey): Promise<void> {
  const config = sql`tenant_id = ${done.tenantId} AND task_id = ${done.taskId}::uuid AND config_id = ${done.configId}
    AND status NOT IN (${sql.join(NOT_PENDING)})`;
  await sql`
    UPDATE push_deliveries SET next_attempt_at = now()
     WHERE ${config} AND next_attempt_at > now()
       AND seq = (SELECT seq FROM push_deliveries WHERE ${config} AND seq > ${done.seq}::int ORDER BY seq LIMIT 1)`.execute(
    db,
  );
}
