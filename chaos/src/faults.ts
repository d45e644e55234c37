import type pg from 'pg';
import { FAULT_KINDS, type Fault, type FaultKind } from './check-types.ts';
import { sleep } from './free-port.ts';
import { LEASE_MS, STATEMENT_TIMEOUT_MS, type Fleet, type Member } from './fleet.ts';
import type { PrivatePostgres } from './private-postgres.ts';
import type { PrivateRedis } from './private-redis.ts';
import type { Rng } from './rng.ts';

export interface FaultDeps {
  fleet: Fleet;
  redis: PrivateRedis;
  postgres: PrivatePostgres;
  /** Reads which worker holds the most leases (the freeze hits a busy worker). */
  pool: pg.Pool;
  rng: Rng;
  log: (line: string) => void;
}

/**
 * Injects faults until `until`: first every kind once in a seeded order (so even a short run
 * covers them all), then at random. Each fault waits for its own recovery (restart, SIGCONT)
 * before the next one starts, so the platform is never left without a worker or a gateway.
 */
export async function injectFaults(d: FaultDeps, until: number, faults: Fault[]): Promise<void> {
  const plan = shuffle([...FAULT_KINDS], d.rng);
  while (Date.now() < until) {
    await sleep(d.rng.int(1000, 3000));
    if (Date.now() >= until) break;
    const kind = plan.shift() ?? d.rng.pick(FAULT_KINDS);
    const fault = await inject(d, kind).catch((err: unknown) => {
      d.log(`fault ${kind} failed: ${err instanceof Error ? err.message : String(err)}`);
      return null;
    });
    if (fault) {
      faults.push(fault);
      d.log(
        `fault ${fault.kind}${fault.name ? ` ${fault.name} (pid ${fault.pid})` : ''} ${fault.until - fault.at} ms${fault.note ? ` — ${fault.note}` : ''}`,
      );
    }
  }
}

async function inject(d: FaultDeps, kind: FaultKind): Promise<Fault> {
  const at = Date.now();
  switch (kind) {
    case 'kill-worker':
    case 'kill-gateway':
    case 'kill-pusher': {
      const member = d.rng.pick(
        d.fleet.byRole(kind === 'kill-worker' ? 'worker' : kind === 'kill-gateway' ? 'gateway' : 'pusher'),
      );
      const pid = await d.fleet.kill(member);
      const killedAt = Date.now();
      await sleep(d.rng.int(200, 1500));
      // Not awaited: a restart takes seconds on a busy machine, and faults go on meanwhile.
      d.fleet.start(member).catch((err: unknown) => d.log(String(err)));
      return { kind, name: member.name, ...(pid ? { pid } : {}), at: killedAt, until: killedAt };
    }
    case 'freeze-worker': {
      const member = await busiestWorker(d);
      const held = await leasesOf(d, member);
      const pid = d.fleet.freeze(member);
      // Past its lease and a reaper pass: its tasks are taken over while it sleeps.
      await sleep(LEASE_MS + d.rng.int(1500, 3000));
      const takenOver = await claimedAgain(d, held);
      d.fleet.thaw(member);
      return {
        kind,
        name: member.name,
        ...(pid ? { pid } : {}),
        at,
        until: Date.now(),
        takenOver,
        note: `held ${held.length} leases, ${takenOver} claimed by another worker while frozen`,
      };
    }
    case 'restart-redis':
      await d.redis.restart(d.rng.int(200, 1500));
      return { kind, at, until: Date.now() };
    case 'flushall-redis':
      await d.redis.flushAll();
      return { kind, at, until: Date.now() };
    case 'freeze-redis':
      // Hints, rate allotments and the queue all wait on it: nothing may be lost or done twice,
      // and the advisory commands time out rather than stall the runs.
      await d.redis.freeze(d.rng.int(500, 4000));
      return { kind, at, until: Date.now() };
    case 'restart-postgres':
      // Sometimes down longer than a lease: running tasks lose their leases and run again.
      await d.postgres.restart(
        d.rng.chance(0.5) ? d.rng.int(200, 1000) : d.rng.int(LEASE_MS, LEASE_MS + 1500),
      );
      return { kind, at, until: Date.now() };
    case 'freeze-postgres':
      // Sometimes past the processes' statement timeout (STATEMENT_TIMEOUT_MS): statements in
      // flight then fail and drop their connections; sometimes past a lease as well.
      await d.postgres.freeze(
        d.rng.chance(0.5) ? d.rng.int(300, STATEMENT_TIMEOUT_MS - 500) : d.rng.int(LEASE_MS, LEASE_MS + 1500),
      );
      return { kind, at, until: Date.now() };
  }
}

interface HeldLease {
  id: string;
  attempts: number;
}

async function leasesOf(d: FaultDeps, member: Member): Promise<HeldLease[]> {
  const { rows } = await d.pool.query<HeldLease>(
    // A lease owner is the worker's id and the claim's token: `<worker id>/<token>`.
    // Live tasks only: a canceled task keeps its lease until its run lets go of it.
    `SELECT id, attempts FROM tasks WHERE starts_with(lease_owner, $1 || '/') AND lease_expires_at > now()
        AND state IN ('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING')`,
    [`${member.name}-g${member.generation}`],
  );
  return rows;
}

/** How many of `held` were claimed again since (every claim counts an attempt): taken over. */
async function claimedAgain(d: FaultDeps, held: HeldLease[]): Promise<number> {
  if (held.length === 0) return 0;
  const { rows } = await d.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM tasks t JOIN unnest($1::uuid[], $2::int[]) AS h(id, attempts)
        ON t.id = h.id WHERE t.attempts > h.attempts`,
    [held.map((h) => h.id), held.map((h) => h.attempts)],
  );
  return rows[0]?.n ?? 0;
}

/** The running worker holding the most leases, waiting a little for one that holds any. */
async function busiestWorker(d: FaultDeps): Promise<Member> {
  const workers = d.fleet.byRole('worker').filter((w) => w.proc);
  let best = d.rng.pick(workers);
  for (let tries = 0; tries < 20; tries++) {
    let most = 0;
    for (const w of workers) {
      const n = (await leasesOf(d, w)).length;
      if (n > most) [best, most] = [w, n];
    }
    if (most > 0) break;
    await sleep(100);
  }
  return best;
}

function shuffle<T>(items: T[], rng: Rng): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
