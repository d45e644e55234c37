import { sql, type RawBuilder } from 'kysely';
import { NOT_PENDING } from './not-pending.ts';
import type { ClaimDeliveriesInput } from './outbox-store.ts';
import { receiverHostOf } from './receiver-host.ts';

/**
 * The keys of the deliveries one claim takes, row-locked with FOR UPDATE SKIP LOCKED so that
 * concurrent pushers never take the same row and never wait on each other.
 *
 * Tenants take turns; a disabled tenant has none (its deliveries wait until it is enabled, as its
 * runs do). A loose index scan of push_deliveries_tenant_due (000009), one probe per
 * step, lists the tenants with due deliveries in id order from the one after `afterTenant`,
 * wrapping around; a LATERAL subquery takes each tenant's due deliveries oldest first, up to its
 * share (the caller's per-tenant cap less what the caller has in flight for it). Postgres runs the
 * recursive scans and the laterals only as far as the outer LIMIT pulls rows, so a claim reads the
 * tenants it serves, and a tenant's backlog costs a claim at most its share: in one global
 * oldest-due order, a tenant's 5,000 due deliveries came before every other tenant's.
 *
 * Per-task order (§7): a delivery is a candidate only when no earlier seq for the same
 * (tenant, task, config) is still pending, in flight or not. Delivered and dead rows do not
 * block, so one poisoned event cannot stall the rest. The NOT EXISTS is one probe of the partial
 * index push_deliveries_pending_order per candidate (OFFSET 0 keeps it a probe: pulled up into an
 * anti join, the planner hashed every pending delivery instead). The deliveries waiting behind one
 * in flight or in backoff would be read and refused on every claim: once a delivery is claimed,
 * those queued behind it are parked ten minutes out, and whatever ends it makes the next one due
 * (park-waiting.ts); markFailed moves those that came due meanwhile to its retry time.
 *
 * Receivers: a claim takes at most the caller's room at each receiver host (its per-host cap less
 * its sends in flight there), counting the candidates of all tenants in visiting order, so that
 * tenants sharing a receiver take turns at it too. Candidates past a host's room are locked by the
 * claim's statement but not taken (their row locks end with it). Hosts with no room at all are
 * skipped inside each tenant's scan, so that they do not fill the candidates.
 */
export function claimCandidates(input: ClaimDeliveriesInput): RawBuilder<unknown> {
  // The keys leave as arrays, unnested: the planner takes an unnested array for a few rows, so the
  // UPDATE fetches each key by its primary key. Taking the subquery's rows directly, it estimated
  // them as a tenth of the recursive scans' estimate (the LIMIT is a parameter), thousands, and
  // hashed a seq scan of every partition to stamp four rows (46,024 rows read).
  return sql`
    SELECT u.tenant_id, u.task_id, u.config_id, u.seq
      FROM (SELECT array_agg(c.tenant_id) AS tenant_ids, array_agg(c.task_id) AS task_ids,
                   array_agg(c.config_id) AS config_ids, array_agg(c.seq) AS seqs
              FROM (${withinHostRoom(input)}) c) a,
           unnest(a.tenant_ids, a.task_ids, a.config_ids, a.seqs) AS u(tenant_id, task_id, config_id, seq)`;
}

/**
 * The candidates (in visiting order) that fit each receiver host's room: the n-th candidate for a
 * host is kept while n is at most the caller's per-host cap less its sends in flight there.
 */
function withinHostRoom(input: ClaimDeliveriesInput): RawBuilder<unknown> {
  const { perHost } = capsOf(input);
  const url = sql`(SELECT pc.url FROM push_configs pc
    WHERE pc.tenant_id = v.tenant_id AND pc.task_id = v.task_id AND pc.id = v.config_id)`;
  return sql`
    SELECT h.tenant_id, h.task_id, h.config_id, h.seq
      FROM (SELECT n.*, count(*) OVER (PARTITION BY n.host ORDER BY n.visit) AS nth
              FROM (SELECT v.*, ${receiverHostOf(url)} AS host, row_number() OVER () AS visit
                      FROM (${tenantsInTurn(input)}) v) n) h
     WHERE h.nth <= ${roomLeft(perHost, input.shares?.inFlightByHost, sql.ref('h.host'))}`;
}

/** The caller's caps; without shares, the batch size caps nothing further. */
function capsOf(input: ClaimDeliveriesInput) {
  return {
    perTenant: input.shares?.perTenant ?? input.limit,
    perHost: input.shares?.perHost ?? input.limit,
  };
}

/** `cap` less the caller's count in flight for `key` (tenant or host), from its counts by key. */
function roomLeft(cap: number, inFlight: ReadonlyMap<string, number> | undefined, key: RawBuilder<unknown>) {
  const counts = [...(inFlight ?? [])];
  return sql<number>`(${cap}::int - coalesce((
    SELECT b.n FROM unnest(${counts.map(([k]) => k)}::text[], ${counts.map(([, n]) => n)}::int[]) AS b(k, n)
     WHERE b.k = ${key}), 0))`;
}

function tenantsInTurn(input: ClaimDeliveriesInput): RawBuilder<unknown> {
  const after = input.afterTenant ?? '';
  const { perTenant, perHost } = capsOf(input);
  const fullHosts = [...(input.shares?.inFlightByHost ?? [])].filter(([, n]) => n >= perHost).map(([h]) => h);
  // The next tenant with a due delivery. 'pending' is a literal: a partial index (WHERE status =
  // 'pending') serves only a predicate the planner can prove, generic plans included. Ordered by
  // push_deliveries_tenant_due's columns so that this index serves the step: ordered by tenant
  // alone, it was served by push_deliveries_pending_order, which read every delivery in backoff of
  // each tenant it passed from the heap. Due only: when statistics were taken on an empty table the
  // planner may sort instead of merging the partitions' indexes, and then a step reads the due
  // deliveries after `previous`, never those in backoff (with the merge, a step still passes the
  // index entries of a tenant whose deliveries all wait in backoff, without reading their rows).
  const nextTenant = (previous: unknown) => sql`(
    SELECT n.tenant_id FROM push_deliveries n
     WHERE n.status = 'pending' AND n.next_attempt_at <= now() AND n.tenant_id > ${previous}
     ORDER BY n.tenant_id, n.next_attempt_at LIMIT 1)`;
  const url = sql`(SELECT pc.url FROM push_configs pc
    WHERE pc.tenant_id = d.tenant_id AND pc.task_id = d.task_id AND pc.id = d.config_id)`;
  const hostNotFull =
    fullHosts.length === 0 ? sql`` : sql`AND ${receiverHostOf(url)} <> ALL(${[...fullHosts]}::text[])`;
  return sql`
    WITH RECURSIVE
      later(tenant_id) AS (
        SELECT ${nextTenant(after)}
        UNION ALL
        SELECT ${nextTenant(sql.ref('l.tenant_id'))} FROM later l WHERE l.tenant_id IS NOT NULL),
      earlier(tenant_id) AS (
        SELECT ${nextTenant('')}
        UNION ALL
        SELECT ${nextTenant(sql.ref('e.tenant_id'))} FROM earlier e WHERE e.tenant_id < ${after}),
      turns(tenant_id) AS (
        SELECT tenant_id FROM later WHERE tenant_id IS NOT NULL
        UNION ALL
        SELECT tenant_id FROM earlier WHERE tenant_id <= ${after}),
      -- A disabled tenant's deliveries wait, as its runs do, until it is enabled again; the step
      -- above still passes it with one probe, so its backlog costs a claim nothing more.
      enabled_turns(tenant_id) AS (
        SELECT tenant_id FROM turns
         WHERE tenant_id <> ALL (ARRAY(SELECT id FROM tenants WHERE disabled_at IS NOT NULL)))
    SELECT c.tenant_id, c.task_id, c.config_id, c.seq
      FROM enabled_turns t
      CROSS JOIN LATERAL (
        SELECT d.tenant_id, d.task_id, d.config_id, d.seq FROM push_deliveries d
         WHERE d.tenant_id = t.tenant_id AND d.status = 'pending' AND d.next_attempt_at <= now()
           AND (d.locked_until IS NULL OR d.locked_until < now())
           AND NOT EXISTS (
             SELECT 1 FROM push_deliveries e
              WHERE e.tenant_id = d.tenant_id AND e.task_id = d.task_id
                AND e.config_id = d.config_id AND e.seq < d.seq
                AND e.status NOT IN (${sql.join(NOT_PENDING)})
             OFFSET 0)
           ${hostNotFull}
         ORDER BY d.next_attempt_at, d.seq
         LIMIT greatest(0, ${roomLeft(perTenant, input.shares?.inFlightByTenant, sql.ref('t.tenant_id'))})
         FOR UPDATE OF d SKIP LOCKED) c
     LIMIT ${input.limit}::int`;
}
